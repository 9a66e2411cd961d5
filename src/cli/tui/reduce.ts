/**
 * @module The `kb browse` reducer: `reduce(state, msg) → {state, effects}`, pure, testable without Ink or
 * a terminal. Keys go to the place that has them (prompt, help, full view, search box, results); answers
 * from the API update what is shown. A key that would act on the results while they are about to change
 * is held and applied once the new ones are on screen, so a key never acts on an entry the person did not
 * see. Prompts live in `reduce-prompt.ts`, the full view and help in `reduce-full.ts`.
 */
import {SCOPES, STATUSES} from '../../shared/contract.js'
import type {EntryStandard, Scope, Status} from '../../shared/types.js'
import {actionOf, isQuitKey, type Action, type Place} from './keymap.js'
import type {Key} from './keys.js'
import {step, type Effect, type Msg, type Step} from './messages.js'
import {fullKey, helpKey, maxScroll} from './reduce-full.js'
import {actionDone, isEntryAction, placeOfPrompt, promptKey, startAction} from './reduce-prompt.js'
import {previewed} from './reduce-sensitive.js'
import {layout, selectedEntry, settled, type Results, type ResultsPage, type State} from './state.js'
import {DEBOUNCE_MS, follow, load, moveTo, openFull, openHelp, quit, refresh, select, toLast, typed} from './transitions.js'

/** Keys held for results that do not come within this long are dropped, with a note. */
export const HOLD_MS = 3000

/**
 * Keys of the results that act on what the rows are: held while the rows are about to change. Keys that
 * change the question (filters, the search box, refresh) or leave it (help, Esc, q) apply at once.
 */
const HELD: ReadonlySet<Action> = new Set<Action>([
  'up',
  'down',
  'pageUp',
  'pageDown',
  'first',
  'last',
  'open',
  'resolve',
  'comment',
  'fork',
  'publish',
  'openUrl',
  'copyId',
  'delete',
  'verify',
  'flag',
  'edit',
])

/** Held keys whose action opens a text field (a comment, a resolution note, a fork's title, a verify or flag note). */
const TEXT_OPENERS: ReadonlySet<Action> = new Set<Action>(['comment', 'resolve', 'fork', 'verify', 'flag'])

const SCOPE_CYCLE: (Scope | undefined)[] = [undefined, ...SCOPES]
const STATUS_CYCLE: (Status | undefined)[] = [undefined, ...STATUSES]

/** The first load and the projects' names: what `kb browse` does as it starts. */
export function start(s: State): Step {
  const first = load(s, 0)
  return {state: first.state, effects: [...first.effects, {type: 'loadProjects'}]}
}

/** Where keys go now. */
export function placeOf(s: State): Place {
  if (s.help) return 'help'
  if (s.prompt) return placeOfPrompt(s.prompt)
  if (s.full) return 'full'
  return s.focus
}

const keyName = (k: Key): string =>
  k.name === 'char' ? k.text : k.name === 'ctrl' ? `Ctrl-${k.text.toUpperCase()}` : k.name === 'paste' ? 'a paste' : k.name

export function reduce(s: State, msg: Msg): Step {
  switch (msg.type) {
    case 'key':
      return onKey(s, msg.key)
    case 'resize':
      return step(follow(clampFull({...s, size: msg.size})))
    case 'results':
      return msg.seq === s.seq ? arrived(s, msg.page) : step(s)
    case 'resultsFailed': {
      if (msg.seq !== s.seq) return step(s)
      const failed = {
        ...s,
        results: {...s.results, loaded: true, error: msg.error},
        // A note such as "Refreshed" would contradict the error now shown in place of the rows.
        line: s.line?.tone === 'info' ? null : s.line,
        loading: {...s.loading, pending: false, slow: false},
        wantLast: false,
      }
      return step(dropQueue(failed, 'the results could not be loaded'))
    }
    case 'slow':
      return step(msg.seq === s.seq && s.loading.pending ? {...s, loading: {...s.loading, slow: true}} : s)
    case 'painted':
      return replay({...s, painted: Math.max(s.painted, msg.seq)})
    case 'holdExpired':
      return step(msg.seq === s.hold && s.queue.length > 0 ? dropQueue(s, `the results did not arrive within ${HOLD_MS / 1000} s`) : s)
    case 'entry':
      return step(s.full?.id === msg.id ? clampFull({...s, full: {...s.full, entry: msg.entry, error: null}}) : s)
    case 'entryFailed':
      return step(s.full?.id === msg.id ? {...s, full: {...s.full, error: msg.error}} : s)
    case 'history':
      return step(s.full?.id === msg.id && s.full.history === 'loading' ? {...s, full: {...s.full, history: msg.items}} : s)
    case 'historyFailed':
      return step(
        s.full?.id === msg.id && s.full.history === 'loading'
          ? {...s, full: {...s.full, history: null}, line: {tone: 'error', text: `History: ${msg.error}`}}
          : s,
      )
    case 'projects':
      return step({...s, projects: Object.fromEntries(msg.projects.map((p) => [p.id, p]))})
    case 'done':
      return actionDone(s, msg)
    case 'previewed':
    case 'previewFailed':
      return previewed(s, msg)
    case 'opened':
      return step({
        ...s,
        line: msg.ok
          ? {tone: 'ok', text: `Opened ${msg.url}`}
          : {tone: 'error', text: `No browser could be started here; the url is ${msg.url}`},
      })
    case 'copied': {
      const {where, certain, error} = msg.copy
      const text = !where
        ? `Could not copy ${msg.text}: ${error ?? 'no clipboard here'}`
        : certain
          ? `Copied ${msg.text} to ${where}`
          : `Sent ${msg.text} to ${where}; a terminal without OSC 52 support ignores it`
      return step({...s, line: {tone: where ? (certain ? 'ok' : 'info') : 'error', text}})
    }
  }
}

/** New rows: a new question selects its first row, a refresh keeps the selected entry, more adds rows below. */
function arrived(s: State, page: ResultsPage): Step {
  const {mode} = s.loading
  const old = s.results.items
  let items: EntryStandard[] = page.items
  if (mode === 'more') {
    const seen = new Set(old.map((e) => e.id))
    items = [...old, ...page.items.filter((e) => !seen.has(e.id))]
  }
  let selected = 0
  if (mode === 'more') selected = s.selected
  else if (mode === 'refresh') {
    const id = selectedEntry(s)?.id
    const kept = id ? items.findIndex((e) => e.id === id) : -1
    selected = kept >= 0 ? kept : Math.min(s.selected, Math.max(0, items.length - 1))
  }
  const results: Results = {
    items,
    total: Math.max(page.total, items.length),
    more: page.more,
    cursor: page.cursor,
    query: s.query.trim(),
    filters: s.filters,
    loaded: true,
    error: null,
    seq: s.seq,
  }
  const next: State = {...s, results, selected, top: mode === 'new' ? 0 : s.top, loading: {...s.loading, pending: false, slow: false}}
  if (mode === 'more' && s.wantLast) return toLast(next)
  return step(follow(next))
}

/** The view's scroll kept within its lines (after a resize, or when an entry comes back shorter). */
function clampFull(s: State): State {
  if (!s.full) return s
  const max = maxScrollOf(s)
  return s.full.scroll > max ? {...s, full: {...s.full, scroll: max}} : s
}

const maxScrollOf = (s: State): number => (s.full ? maxScroll(s, s.full) : 0)

function onKey(s: State, k: Key): Step {
  if (isQuitKey(k)) return quit(s)
  // The terminal regained focus: what another shell changed meanwhile is shown.
  if (k.name === 'focusIn') return s.prompt || s.busy || !settled(s) ? step(s) : refresh(s)
  if (k.name === 'focusOut') return step(s)
  const place = placeOf(s)
  if (s.queue.length > 0 || (place === 'list' && !settled(s) && HELD.has(actionOf('list', k) ?? 'quit'))) {
    // `q` quits at once, unless a held key opens a text field (c, r, f): then it is the field's first letter.
    const typing = s.queue.some((held) => TEXT_OPENERS.has(actionOf('list', held) ?? 'quit'))
    if (!typing && actionOf(place, k) === 'quit') return quit(s)
    return holdKey(s, k)
  }
  return dispatchKey(s, place, k)
}

function dispatchKey(s0: State, place: Place, k: Key): Step {
  if (s0.help) return helpKey(s0, s0.help, k)
  if (s0.prompt) return promptKey(s0, s0.prompt, k)
  // A status line speaks of the last thing done: the next key moves on from it.
  const s = s0.line ? {...s0, line: null} : s0
  if (s.full) return fullKey(s, s.full, k)
  return place === 'search' ? searchKey(s, k) : listKey(s, k)
}

function holdKey(s: State, k: Key): Step {
  const queue = [...s.queue, k]
  const line = {
    tone: 'info' as const,
    text: `Waiting for the results on screen to settle: ${queue.map(keyName).join(' ')} will apply to them`,
  }
  if (s.queue.length > 0) return step({...s, queue, line})
  const hold = s.hold + 1
  return step({...s, queue, hold, line}, {type: 'hold', seq: hold})
}

function dropQueue(s: State, why: string): State {
  if (s.queue.length === 0) return s
  return {...s, queue: [], line: {tone: 'error', text: `Ignored ${s.queue.map(keyName).join(' ')}: ${why}`}}
}

/** The results are on screen: the keys held for them apply now, in order. */
function replay(s0: State): Step {
  if (s0.queue.length === 0 || !settled(s0)) return step(s0)
  let s: State = {...s0, queue: [], line: null}
  const effects: Effect[] = []
  for (const [i, k] of s0.queue.entries()) {
    if (!settled(s)) {
      // A held key asked for new results (a filter, a refresh): the rest waits for those.
      s = {...s, queue: [...s.queue, ...s0.queue.slice(i)]}
      break
    }
    const r = onKey(s, k)
    s = r.state
    effects.push(...r.effects)
  }
  return {state: s, effects}
}

function setQuery(s: State, query: string): Step {
  if (query === s.query) return step(s)
  return load({...s, query}, DEBOUNCE_MS)
}

function searchKey(s: State, k: Key): Step {
  switch (actionOf('search', k)) {
    case 'toList':
      return step({...s, focus: 'list', searchOrigin: null})
    case 'back': {
      // Esc cancels the search: the query as it was when `/` was pressed, and back to the results.
      const origin = s.searchOrigin
      const back = {...s, focus: 'list' as const, searchOrigin: null}
      return origin === null ? step(back) : setQuery(back, origin)
    }
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
  // Rows behind a load error are not on screen, so nothing may act on them.
  const current = s.results.error ? undefined : selectedEntry(s)
  switch (a) {
    case null:
      return step(s)
    case 'up':
      // The first row stays the first row: only explicit keys move focus to the search box.
      return step(select(s, s.selected - 1))
    case 'down':
      return moveTo(s, s.selected + 1)
    case 'pageUp':
      return step(select(s, s.selected - listRows))
    case 'pageDown':
      return moveTo(s, s.selected + listRows)
    case 'first':
      return step(select(s, 0))
    case 'last':
      return toLast(s)
    case 'open':
      return current ? openFull(s, current.id) : step(s)
    case 'search':
      return step({...s, focus: 'search', searchOrigin: s.query})
    case 'back':
      if (s.query !== '') return setQuery({...s, line: {tone: 'info', text: 'Query cleared (Esc backs out one step; q quits)'}}, '')
      return step({...s, line: {tone: 'info', text: 'Nothing to go back to; q or Ctrl-C quits'}})
    case 'refresh':
      return refresh({...s, line: {tone: 'info', text: 'Refreshed'}})
    case 'cycleScope': {
      const scope = SCOPE_CYCLE[(SCOPE_CYCLE.indexOf(s.filters.scope) + 1) % SCOPE_CYCLE.length]
      return load({...s, filters: {...s.filters, scope}, line: {tone: 'info', text: `Scope: ${scope ?? 'all'}`}}, DEBOUNCE_MS)
    }
    case 'toggleStatus': {
      const status = STATUS_CYCLE[(STATUS_CYCLE.indexOf(s.filters.status) + 1) % STATUS_CYCLE.length]
      return load({...s, filters: {...s.filters, status}, line: {tone: 'info', text: `Status: ${status ?? 'all'}`}}, DEBOUNCE_MS)
    }
    case 'reviewQueue': {
      const review = s.filters.review ? undefined : (true as const)
      const {review: _was, ...rest} = s.filters
      const text = review ? 'Review queue: stale, flagged, unverified, unused — most used first (! again: all entries)' : 'All entries'
      return load({...s, filters: review ? {...rest, review} : rest, line: {tone: 'info', text}}, 0)
    }
    case 'help':
      return openHelp(s)
    case 'quit':
      return quit(s)
    default:
      if (!isEntryAction(a)) return step(s)
      if (!current) {
        const text = s.results.error ? 'No entry on screen: the results could not be loaded (R tries again)' : 'No entry selected'
        return step({...s, line: {tone: 'error', text}})
      }
      return startAction(s, a, current)
  }
}
