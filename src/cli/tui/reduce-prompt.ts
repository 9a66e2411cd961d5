/**
 * @module The entry actions: starting one (a prompt, or at once for open and copy), the keys of the
 * prompts, and what follows the API's answer.
 */
import {COMMENT_TYPE_DEFAULT, COMMENT_TYPES, SCOPES} from '../../shared/contract.js'
import type {EntryStandard} from '../../shared/types.js'
import {actionOf, type Action, type Place} from './keymap.js'
import type {Key} from './keys.js'
import {step, type Call, type Msg, type Step} from './messages.js'
import {refresh, typed} from './transitions.js'
import type {Prompt, State} from './state.js'

export type EntryAction = 'resolve' | 'comment' | 'fork' | 'publish' | 'openUrl' | 'copyId' | 'delete'
const ENTRY_ACTIONS: ReadonlySet<Action> = new Set<EntryAction>(['resolve', 'comment', 'fork', 'publish', 'openUrl', 'copyId', 'delete'])

export const isEntryAction = (a: Action): a is EntryAction => ENTRY_ACTIONS.has(a)

export function startAction(s0: State, action: EntryAction, entry: EntryStandard): Step {
  const s = {...s0, line: null}
  switch (action) {
    case 'resolve':
      return step({...s, prompt: {kind: 'resolve', entry, text: ''}})
    case 'comment':
      return step({...s, prompt: {kind: 'comment', entry, text: '', type: COMMENT_TYPE_DEFAULT}})
    case 'fork':
      return step({...s, prompt: {kind: 'fork', entry, text: ''}})
    case 'publish': {
      const i = SCOPES.indexOf(entry.scope)
      return step({...s, prompt: {kind: 'publish', entry, choices: SCOPES, choice: Math.min(SCOPES.length - 1, i + 1)}})
    }
    case 'delete':
      return step({...s, prompt: {kind: 'delete', entry}})
    case 'openUrl':
      if (!entry.url) return step({...s, line: {tone: 'error', text: `"${entry.title}" has no url (add one with \`kb edit ${entry.id} --url <url>\`)`}})
      return step(s, {type: 'openUrl', url: entry.url})
    case 'copyId':
      return step(s, {type: 'copy', text: entry.id})
  }
}

export function placeOf(p: Prompt): Place {
  return p.kind === 'publish' ? 'choice' : p.kind === 'delete' ? 'confirm' : 'text'
}

function call(s: State, c: Call): Step {
  return step({...s, busy: true}, {type: 'call', call: c})
}

function confirm(s: State, p: Prompt): Step {
  const {entry} = p
  switch (p.kind) {
    case 'resolve':
      return call(s, {kind: 'resolve', entry, note: p.text.trim()})
    case 'comment':
      if (p.text.trim() === '') return step({...s, line: {tone: 'error', text: 'A comment needs text (Esc cancels)'}})
      return call(s, {kind: 'comment', entry, body: p.text.trim(), type: p.type})
    case 'fork':
      return call(s, {kind: 'fork', entry, title: p.text.trim()})
    case 'publish':
      return call(s, {kind: 'publish', entry, scope: p.choices[p.choice]!})
    case 'delete':
      return call(s, {kind: 'delete', entry})
  }
}

export function promptKey(s: State, p: Prompt, k: Key): Step {
  if (s.busy) return step(s)
  const a = actionOf(placeOf(p), k)
  if (a === 'cancel') return step({...s, prompt: null, line: {tone: 'info', text: 'Cancelled'}})
  if (p.kind === 'delete') {
    if (a === 'yes') return confirm(s, p)
    if (a === 'no') return step({...s, prompt: null, line: {tone: 'info', text: 'Not deleted'}})
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
      if (p.kind !== 'comment') return step(s)
      const n = COMMENT_TYPES.length
      const i = COMMENT_TYPES.indexOf(p.type) + (a === 'next' ? 1 : n - 1)
      return step({...s, prompt: {...p, type: COMMENT_TYPES[i % n]!}})
    }
    case 'backspace':
      return step({...s, prompt: {...p, text: Array.from(p.text).slice(0, -1).join('')}})
    case 'clear':
      return step({...s, prompt: {...p, text: ''}})
    default:
      if (k.name === 'char' || k.name === 'paste') return step({...s, prompt: {...p, text: p.text + typed(k.text)}})
      return step(s)
  }
}

/** The API answered an action: its result (or error) goes to the status line and the view refreshes. */
export function actionDone(s0: State, msg: Extract<Msg, {type: 'done'}>): Step {
  let s: State = {...s0, busy: false, prompt: null, line: {tone: msg.ok ? 'ok' : 'error', text: msg.text}}
  if (msg.ok && msg.call.kind === 'delete' && s.full?.id === msg.call.entry.id) s = {...s, full: null}
  return refresh(s)
}
