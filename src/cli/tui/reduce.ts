/**
 * @module The `kb browse` reducer: `reduce(state, msg) → {state, effects}`, pure, testable without Ink or
 * a terminal. Keys go to the place that has them (prompt, help, full view, search box, results); answers
 * from the API update what is shown. Prompts live in `reduce-prompt.ts`, the full view and help in
 * `reduce-full.ts`.
 */
import {SCOPES, STATUSES} from '../../shared/contract.js'
import type {Scope, Status} from '../../shared/types.js'
import {actionOf, isQuitKey} from './keymap.js'
import type {Key} from './keys.js'
import {step, type Msg, type Step} from './messages.js'
import {fullKey, helpKey} from './reduce-full.js'
import {actionDone, promptKey, startAction, isEntryAction} from './reduce-prompt.js'
import {layout, selectedEntry, type State} from './state.js'
import {DEBOUNCE_MS, follow, load, openFull, quit, select, typed} from './transitions.js'

const SCOPE_CYCLE: (Scope | undefined)[] = [undefined, ...SCOPES]
const STATUS_CYCLE: (Status | undefined)[] = [undefined, ...STATUSES]

/** The first load and the projects' names: what `kb browse` does as it starts. */
export function start(s: State): Step {
  const first = load(s, 0)
  return {state: first.state, effects: [...first.effects, {type: 'loadProjects'}]}
}

export function reduce(s: State, msg: Msg): Step {
  switch (msg.type) {
    case 'key':
      return onKey(s, msg.key)
    case 'resize':
      return step(follow({...s, size: msg.size}))
    case 'results': {
      if (msg.seq !== s.seq) return step(s)
      const {page} = msg
      const keepId = selectedEntry(s)?.id
      const kept = keepId ? page.items.findIndex((e) => e.id === keepId) : -1
      const results = {...page, query: s.query.trim(), filters: s.filters, loaded: true, error: null, seq: msg.seq}
      const selected = kept >= 0 ? kept : Math.min(s.selected, Math.max(0, page.items.length - 1))
      return step(follow({...s, results, selected, loading: {pending: false, slow: false}}))
    }
    case 'resultsFailed':
      if (msg.seq !== s.seq) return step(s)
      return step({...s, results: {...s.results, loaded: true, error: msg.error}, loading: {pending: false, slow: false}})
    case 'slow':
      return step(msg.seq === s.seq && s.loading.pending ? {...s, loading: {...s.loading, slow: true}} : s)
    case 'entry':
      return step(s.full?.id === msg.id ? {...s, full: {...s.full, entry: msg.entry, error: null}} : s)
    case 'entryFailed':
      return step(s.full?.id === msg.id ? {...s, full: {...s.full, error: msg.error}} : s)
    case 'projects':
      return step({...s, projects: Object.fromEntries(msg.projects.map((p) => [p.id, p]))})
    case 'done':
      return actionDone(s, msg)
    case 'opened':
      return step({...s, line: msg.ok ? {tone: 'ok', text: `Opened ${msg.url}`} : {tone: 'error', text: `No browser could be started here; the url is ${msg.url}`}})
    case 'copied':
      return step({...s, line: msg.where ? {tone: 'ok', text: `Copied ${msg.text} to ${msg.where}`} : {tone: 'error', text: `Could not copy the id ${msg.text}: ${msg.error ?? 'no clipboard'}`}})
  }
}

function onKey(s: State, k: Key): Step {
  if (isQuitKey(k)) return quit(s)
  if (s.prompt) return promptKey(s, s.prompt, k)
  if (s.help) return helpKey(s, k)
  if (s.full) return fullKey(s, s.full, k)
  return s.focus === 'search' ? searchKey(s, k) : listKey(s, k)
}

function setQuery(s: State, query: string): Step {
  if (query === s.query) return step(s)
  return load({...s, query, selected: 0}, DEBOUNCE_MS)
}

function searchKey(s: State, k: Key): Step {
  switch (actionOf('search', k)) {
    case 'toList':
      return step({...s, focus: 'list'})
    case 'quit':
      return quit(s)
    case 'backspace':
      return setQuery(s, Array.from(s.query).slice(0, -1).join(''))
    case 'clear':
      return setQuery(s, '')
    default:
      if (k.name === 'char' || k.name === 'paste') return setQuery(s, s.query + typed(k.text))
      return step(s)
  }
}

function listKey(s: State, k: Key): Step {
  const a = actionOf('list', k)
  const {listRows} = layout(s.size)
  const current = selectedEntry(s)
  switch (a) {
    case null:
      return step(s)
    case 'up':
      return step(s.selected === 0 ? {...s, focus: 'search'} : select(s, s.selected - 1))
    case 'down':
      return step(select(s, s.selected + 1))
    case 'pageUp':
      return step(select(s, s.selected - listRows))
    case 'pageDown':
      return step(select(s, s.selected + listRows))
    case 'first':
      return step(select(s, 0))
    case 'last':
      return step(select(s, s.results.items.length - 1))
    case 'open':
      return current ? openFull(s, current.id) : step(s)
    case 'search':
      return step({...s, focus: 'search'})
    case 'cycleScope': {
      const scope = SCOPE_CYCLE[(SCOPE_CYCLE.indexOf(s.filters.scope) + 1) % SCOPE_CYCLE.length]
      return load({...s, filters: {...s.filters, scope}, line: {tone: 'info', text: `Scope: ${scope ?? 'all'}`}}, DEBOUNCE_MS)
    }
    case 'toggleStatus': {
      const status = STATUS_CYCLE[(STATUS_CYCLE.indexOf(s.filters.status) + 1) % STATUS_CYCLE.length]
      return load({...s, filters: {...s.filters, status}, line: {tone: 'info', text: `Status: ${status ?? 'all'}`}}, DEBOUNCE_MS)
    }
    case 'help':
      return step({...s, help: true})
    case 'quit':
      return quit(s)
    default:
      if (!isEntryAction(a)) return step(s)
      if (!current) return step({...s, line: {tone: 'error', text: 'No entry selected'}})
      return startAction(s, a, current)
  }
}
