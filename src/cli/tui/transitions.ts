/**
 * @module The state changes several places of the reducer share: loading results, refreshing after an
 * action, moving the selection, opening an entry in full, leaving.
 */
import {step, type Effect, type Step} from './messages.js'
import {layout, windowTop, type LoadRequest, type State} from './state.js'

export const DEBOUNCE_MS = 150

/** Keeps typed text printable: control characters become spaces (a paste may hold newlines). */
export function typed(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001F\u007F-\u009F]/g, ' ')
}

/** Asks for the results of the current query and filters (after `delay` ms). */
export function load(s: State, delay: number): Step {
  const seq = s.seq + 1
  const request: LoadRequest = {query: s.query.trim(), filters: s.filters, projectId: s.projectId, limit: s.limit, cursor: null}
  return step({...s, seq, loading: {pending: true, slow: false}}, {type: 'load', seq, delay, request})
}

/** After an action: the results (and the entry shown in full) are fetched again. */
export function refresh(s: State): Step {
  const r = load(s, DEBOUNCE_MS)
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

export function openFull(s: State, id: string): Step {
  return step({...s, full: {id, entry: null, error: null, scroll: 0}}, {type: 'loadEntry', id})
}

export function quit(s: State): Step {
  return step({...s, quit: true}, {type: 'quit'})
}
