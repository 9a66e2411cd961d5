/**
 * @module The state changes several places of the reducer share: loading results (a new question, a
 * refresh, more rows), moving the selection, opening an entry in full, leaving.
 */
import {LIMIT_MAX} from '../../shared/contract.js'
import {safeText} from '../output/safe-text.js'
import {step, type Effect, type Step} from './messages.js'
import {layout, windowTop, type LoadMode, type LoadRequest, type State} from './state.js'

export const DEBOUNCE_MS = 150
/** More rows are loaded when the selection comes this close to the last one. */
export const MORE_MARGIN = 10
/** G loads at most this many rows before it selects the last one loaded. */
const LAST_MAX = 2000

/**
 * Typed or pasted text, printable: escape sequences go, other controls are shown as U+FFFD; line breaks
 * stay where the field takes several lines (a comment, a note) and become spaces elsewhere.
 */
export function typed(text: string, multiline = false): string {
  return safeText(text, {newlines: multiline, tabs: false})
}

/** Asks for results (after `delay` ms): of a new question, again (refresh), or the rows after these (more). */
export function load(s: State, delay: number, mode: LoadMode = 'new'): Step {
  const seq = s.seq + 1
  const r = s.results
  const loaded = r.items.length
  const request: LoadRequest = {
    query: s.query.trim(),
    filters: s.filters,
    projectId: s.projectId,
    // A refresh asks again for as many rows as are shown (up to a page); a search has no cursor, so
    // more of a search is one larger page.
    limit: mode === 'new' ? s.limit : Math.min(LIMIT_MAX, Math.max(s.limit, mode === 'more' && r.query !== '' ? LIMIT_MAX : loaded)),
    cursor: mode === 'more' && r.query === '' ? r.cursor : null,
  }
  const wantLast = mode === 'more' ? s.wantLast : false
  return step({...s, seq, wantLast, loading: {pending: true, slow: false, mode}}, {type: 'load', seq, delay, request})
}

/** The results again, the selected entry kept (after an action, `R`, the terminal regaining focus). */
export function refresh(s: State): Step {
  const r = load(s, 0, 'refresh')
  const effects: Effect[] = [...r.effects]
  if (r.state.full) effects.push({type: 'loadEntry', id: r.state.full.id})
  return {state: r.state, effects}
}

/** Keeps the list's window around the selection. */
export function follow(s: State): State {
  const {listRows} = layout(s.size)
  const top = windowTop(s.top, s.selected, listRows, s.results.items.length)
  return top === s.top ? s : {...s, top}
}

export function select(s: State, n: number): State {
  const last = Math.max(0, s.results.items.length - 1)
  return follow({...s, selected: Math.max(0, Math.min(last, n))})
}

/** Selects row `n`; near the end of what is loaded, loads more. */
export function moveTo(s0: State, n: number): Step {
  const s = select(s0, n)
  const r = s.results
  if (r.more && !s.loading.pending && s.selected >= r.items.length - MORE_MARGIN) return load(s, 0, 'more')
  return step(s)
}

/** G: the last row — of everything, loading the rest first when there is more. */
export function toLast(s0: State): Step {
  const s = select(s0, s0.results.items.length - 1)
  if (!s.results.more || s.results.items.length >= LAST_MAX) return step({...s, wantLast: false})
  if (s.loading.pending && s.loading.mode === 'more') return step({...s, wantLast: true})
  return load({...s, wantLast: true}, 0, 'more')
}

export function openFull(s: State, id: string, prev: State['full'] = null): Step {
  return step({...s, full: {id, entry: null, error: null, scroll: 0, link: -1, prev, history: null}}, {type: 'loadEntry', id})
}

/** The help screen over the current place, which it returns to. */
export function openHelp(s: State): Step {
  return step({...s, help: {scroll: 0}})
}

export function quit(s: State): Step {
  return step({...s, quit: true}, {type: 'quit'})
}
