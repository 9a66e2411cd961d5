/**
 * Plain data for the reducer's unit tests: entries as the API serves them at `standard` and `full`,
 * a state with results on screen, and a way to press keys and collect the effects.
 */
import type {EntryFull, EntryStandard} from '../../../src/shared/types.js'
import {decodeAll, type Key} from '../../../src/cli/tui/keys.js'
import type {Effect, Msg} from '../../../src/cli/tui/messages.js'
import {reduce, start} from '../../../src/cli/tui/reduce.js'
import {initialState, type ResultsPage, type StartOptions, type State} from '../../../src/cli/tui/state.js'

let n = 0
/** An entry at `standard`; ids are distinct, UUID-shaped and sort by creation. */
export function entry(title: string, extra: Partial<EntryStandard> = {}): EntryStandard {
  n++
  const hex = n.toString(16).padStart(12, '0')
  return {
    id: `0199aaaa-bbbb-7ccc-8ddd-${hex}`,
    title,
    body: `Body of ${title}.`,
    status: 'open',
    tags: [],
    scope: 'global',
    url: null,
    project_id: null,
    author: {id: 'p1', name: 'owner'},
    forked_from: null,
    created_at: '2026-11-20T10:00:00.000Z',
    updated_at: '2026-11-20T10:00:00.000Z',
    version: 1,
    comment_count: 0,
    freshness: {state: 'fresh', reasons: [], verified_at: null, verified_by: null},
    anchors: [],
    flags: {stale: 0, incorrect: 0, duplicate: 0, obsolete: 0},
    confidence: 0.5,
    superseded_by: null,
    usage: {retrieved: 0, last_retrieved_at: null},
    ...extra,
  }
}

export function full(e: EntryStandard, extra: Partial<EntryFull> = {}): EntryFull {
  return {...e, comments: [], comments_truncated: false, thought_chain: [], branches: [], resolution: null, ...extra}
}

export const page = (items: EntryStandard[], more = false): ResultsPage => ({
  items,
  total: items.length,
  more,
  cursor: more ? 'next' : null,
})

export interface Run {
  state: State
  effects: Effect[]
}

/** Applies messages in order, collecting every effect. */
export function apply(state: State, ...msgs: Msg[]): Run {
  const effects: Effect[] = []
  for (const m of msgs) {
    const r = reduce(state, m)
    state = r.state
    effects.push(...r.effects)
  }
  return {state, effects}
}

/** Presses keys: a string is decoded as if typed (`'jj\r'`), a Key is pressed as is. */
export function press(state: State, ...input: (string | Key)[]): Run {
  const keys = input.flatMap((i) => (typeof i === 'string' ? decodeAll(i) : [i]))
  return apply(state, ...keys.map((key): Msg => ({type: 'key', key})))
}

/** The answer to the latest load, drawn on the screen. */
export function answer(state: State, p: ResultsPage): Run {
  return apply(state, {type: 'results', seq: state.seq, page: p}, {type: 'painted', seq: state.seq})
}

/** A started browser at `size` whose first load answered with `items`, focus in the list. */
export function browsing(items: EntryStandard[], o: Partial<StartOptions> = {}): State {
  const s0 = initialState({size: {columns: 120, rows: 30}, ...o})
  const started = start(s0).state
  return answer({...started, focus: o.query === undefined ? 'list' : started.focus}, page(items)).state
}

export const KEYS = {
  up: '\u001B[A',
  down: '\u001B[B',
  left: '\u001B[D',
  right: '\u001B[C',
  enter: '\r',
  esc: '\u001B',
  tab: '\t',
  backTab: '\u001B[Z',
  backspace: '\u007F',
  pgDown: '\u001B[6~',
  pgUp: '\u001B[5~',
  home: '\u001B[H',
  end: '\u001B[F',
  ctrlC: '\u0003',
  ctrlU: '\u0015',
}

/** Effects of one kind. */
export function effectsOf<T extends Effect['type']>(r: Run, type: T): Extract<Effect, {type: T}>[] {
  return r.effects.filter((e): e is Extract<Effect, {type: T}> => e.type === type)
}
