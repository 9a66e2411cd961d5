/**
 * @module The entry actions: starting one (a prompt, or at once for open and copy), the keys of the
 * prompts, and what follows the API's answer. Findings of secrets or personal data are reviewed in
 * `reduce-sensitive.ts`.
 */
import {COMMENT_TYPE_DEFAULT, COMMENT_TYPES, FLAG_REASONS} from '../../shared/contract.js'
import type {EntryStandard, Scope} from '../../shared/types.js'
import {actionOf, type Action, type Place} from './keymap.js'
import type {Key} from './keys.js'
import {step, type Call, type Msg, type ScannedCall, type Step} from './messages.js'
import {askPreview, review, reviewKey} from './reduce-sensitive.js'
import type {Prompt, State} from './state.js'
import {openHelp, quit, refresh, typed} from './transitions.js'
import {shortId} from '../../shared/short-id.js'

export type EntryAction = 'resolve' | 'comment' | 'fork' | 'publish' | 'openUrl' | 'copyId' | 'delete' | 'verify' | 'flag' | 'edit'
const ENTRY_ACTIONS: ReadonlySet<Action> = new Set<EntryAction>([
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

/** What Tab cycles through in the flag prompt: the API's reasons, then taking back one's own flag. */
export const FLAG_CHOICES = [...FLAG_REASONS, 'withdraw'] as const

export const isEntryAction = (a: Action): a is EntryAction => ENTRY_ACTIONS.has(a)

/**
 * The scopes the server accepts to publish `e` to (docs/api.md): only wider ones, and `project` only for an
 * entry that has a project.
 */
function publishChoices(e: EntryStandard): Scope[] {
  if (e.scope === 'private') return e.project_id ? ['project', 'global'] : ['global']
  return e.scope === 'project' ? ['global'] : []
}

/** Whether kb opens `url`: http and https only (no `file:`, `javascript:` or a program's own scheme). */
function openable(url: string): boolean {
  try {
    const {protocol} = new URL(url)
    return protocol === 'http:' || protocol === 'https:'
  } catch {
    return false
  }
}

export function startAction(s0: State, action: EntryAction, entry: EntryStandard): Step {
  const s = {...s0, line: null}
  switch (action) {
    case 'resolve':
      if (entry.status === 'resolved') return step({...s, prompt: {kind: 'reopen', entry}})
      return step({...s, prompt: {kind: 'resolve', entry, text: ''}})
    case 'comment':
      return step({...s, prompt: {kind: 'comment', entry, text: '', type: COMMENT_TYPE_DEFAULT}})
    case 'fork':
      return step({...s, prompt: {kind: 'fork', entry, text: ''}})
    case 'publish': {
      const choices = publishChoices(entry)
      if (choices.length === 0)
        return step({...s, line: {tone: 'info', text: `"${entry.title}" is already global: there is no wider scope`}})
      return step({...s, prompt: {kind: 'publish', entry, choices, choice: 0}})
    }
    case 'delete':
      return step({...s, prompt: {kind: 'delete', entry}})
    case 'verify':
      return step({...s, prompt: {kind: 'verify', entry, text: ''}})
    case 'flag':
      return step({...s, prompt: {kind: 'flag', entry, text: '', reason: FLAG_CHOICES[0]}})
    case 'openUrl':
      if (!entry.url)
        return step({
          ...s,
          line: {tone: 'error', text: `"${entry.title}" has no url (add one with \`kb edit ${shortId(entry.id)} --url <url>\`)`},
        })
      if (!openable(entry.url))
        return step({...s, line: {tone: 'error', text: `kb opens only http and https links; the url is ${entry.url}`}})
      return step(s, {type: 'openUrl', url: entry.url})
    case 'copyId':
      return step(s, {type: 'copy', text: entry.id})
    case 'edit':
      return call(s, {kind: 'edit', entry})
  }
}

export function placeOfPrompt(p: Prompt): Place {
  if (p.kind === 'sensitive') return 'review'
  return p.kind === 'publish' ? 'choice' : p.kind === 'delete' || p.kind === 'reopen' ? 'confirm' : 'text'
}

/** Comments and notes may take several lines (a paste keeps its own); a fork title is one. */
const multiline = (p: Prompt): boolean => p.kind !== 'fork'

function call(s: State, c: Call): Step {
  return step({...s, busy: true}, {type: 'call', call: c})
}

function confirm(s: State, p: Prompt): Step {
  const {entry} = p
  switch (p.kind) {
    case 'resolve':
      return call(s, {kind: 'resolve', entry, note: p.text.trim()})
    case 'reopen':
      return call(s, {kind: 'reopen', entry})
    case 'comment':
      if (p.text.trim() === '') return step({...s, line: {tone: 'error', text: 'A comment needs text (Esc cancels)'}})
      return call(s, {kind: 'comment', entry, body: p.text.trim(), type: p.type})
    case 'fork':
      return call(s, {kind: 'fork', entry, title: p.text.trim()})
    case 'publish':
      return askPreview(s, {kind: 'publish', entry, scope: p.choices[p.choice]!})
    case 'delete':
      return call(s, {kind: 'delete', entry})
    case 'verify':
      return call(s, {kind: 'verify', entry, note: p.text.trim()})
    case 'flag':
      if (p.reason === 'withdraw') return call(s, {kind: 'unflag', entry})
      return call(s, {kind: 'flag', entry, reason: p.reason, note: p.text.trim()})
    case 'sensitive':
      return step(s)
  }
}

export function promptKey(s: State, p: Prompt, k: Key): Step {
  const a = actionOf(placeOfPrompt(p), k)
  if (a === 'quit') return quit(s)
  // While the API answers, every key but q waits for that answer.
  if (s.busy) return step(s)
  if (p.kind === 'sensitive') return reviewKey(s, p, k)
  if (a === 'help') return openHelp(s)
  if (a === 'cancel') return step({...s, prompt: null, line: {tone: 'info', text: 'Cancelled'}})
  if (p.kind === 'delete' || p.kind === 'reopen') {
    if (a === 'yes') return confirm(s, p)
    if (a === 'no') return step({...s, prompt: null, line: {tone: 'info', text: p.kind === 'delete' ? 'Not deleted' : 'Left resolved'}})
    return step(s)
  }
  if (p.kind === 'publish') {
    const n = p.choices.length
    if (a === 'confirm') return confirm(s, p)
    if (a === 'next') return step({...s, prompt: {...p, choice: (p.choice + 1) % n}})
    if (a === 'prev') return step({...s, prompt: {...p, choice: (p.choice + n - 1) % n}})
    return step(s)
  }
  switch (a) {
    case 'confirm':
      return confirm(s, p)
    case 'next':
    case 'prev': {
      const by = a === 'next' ? 1 : -1
      if (p.kind === 'flag') return step({...s, prompt: {...p, reason: cycle(FLAG_CHOICES, p.reason, by)}})
      if (p.kind !== 'comment') return step(s)
      return step({...s, prompt: {...p, type: cycle(COMMENT_TYPES, p.type, by)}})
    }
    case 'backspace':
      return step({...s, prompt: {...p, text: Array.from(p.text).slice(0, -1).join('')}})
    case 'clear':
      return step({...s, prompt: {...p, text: ''}})
    default:
      if (k.name === 'char' || k.name === 'paste') return step({...s, prompt: {...p, text: p.text + typed(k.text, multiline(p))}})
      return step(s)
  }
}

/** The choice `by` steps from `current`, round the end. */
function cycle<T>(choices: readonly T[], current: T, by: number): T {
  const n = choices.length
  return choices[(choices.indexOf(current) + by + n) % n]!
}

/** The API answered an action: its result (or error) goes to the status line and the view refreshes. */
export function actionDone(s0: State, msg: Extract<Msg, {type: 'done'}>): Step {
  // Refused for secrets or personal data: they are reviewed, nothing having changed.
  if (!msg.ok && msg.report && isScanned(msg.call)) return step({...s0, busy: false, line: null, prompt: review(msg.call, msg.report)})
  let s: State = {...s0, busy: false, prompt: null, line: {tone: msg.ok ? 'ok' : 'error', text: msg.text}}
  // The entry shown in full is gone: back to where it was opened from.
  if (msg.ok && msg.call.kind === 'delete' && s.full?.id === msg.call.entry.id) s = {...s, full: s.full.prev}
  return refresh(s)
}

const isScanned = (c: Call): c is ScannedCall => c.kind === 'publish' || c.kind === 'comment' || c.kind === 'resolve'
