/**
 * `kb browse` curation (docs/tui.md, "History" and "Review") without Ink or a terminal: `h` in the full view loads
 * and shows the entry's history in its place (h or Esc back to the entry), and `!` in the results loads the review
 * queue instead of the entries (and back).
 */
import {shortId} from '../../../src/shared/short-id.js'
import {describe, expect, it} from 'vitest'
import type {HistoryItem} from '../../../src/shared/curation-schemas.js'
import {frame} from '../../../src/cli/tui/frame.js'
import type {State} from '../../../src/cli/tui/state.js'
import {lineText} from '../../../src/cli/tui/styled.js'
import {answer, apply, browsing, effectsOf, entry, full, KEYS, page, press} from './fixtures.js'

const NOW = Date.parse('2026-11-20T12:00:00Z')
const screen = (s: State): string => frame(s, NOW).map(lineText).join('\n')
const items = [entry('Pool exhaustion under load'), entry('Flaky CI on Mondays')]

const HISTORY: HistoryItem[] = [
  {
    at: '2026-11-20T10:00:00.000Z',
    action: 'created',
    actor: {id: 'p1', name: 'owner', via: 'api_key', client: 'laptop'},
    changes: {},
    note: null,
  },
  {
    at: '2026-11-20T11:00:00.000Z',
    action: 'edited',
    actor: {id: 'p2', name: 'ben', via: 'mcp', client: 'ben key'},
    changes: {body: '+2/−1 lines', tags: '+db'},
    note: null,
  },
]

describe('history in the full view', () => {
  const opened = (): State => {
    const s = press(browsing(items), KEYS.enter).state
    return apply(s, {type: 'entry', id: items[0]!.id, entry: full(items[0]!)}).state
  }

  it('h loads the history and shows it in place of the entry; h again shows the entry', () => {
    const r = press(opened(), 'h')
    expect(effectsOf(r, 'loadHistory')).toEqual([{type: 'loadHistory', id: items[0]!.id}])
    expect(screen(r.state)).toContain('Loading the history…')
    const shown = apply(r.state, {type: 'history', id: items[0]!.id, items: HISTORY}).state
    const text = screen(shown)
    expect(text).toContain('History: 2 changes, oldest first')
    expect(text).toContain('created by owner (api_key: laptop)')
    expect(text).toContain('edited by ben (mcp: ben key)')
    expect(text).toContain('body +2/−1 lines, tags +db')
    const back = press(shown, 'h').state
    expect(back.full?.history).toBeNull()
    expect(screen(back)).not.toContain('History:')
  })

  it('Esc in the history goes back to the entry, not the results; an answer for another entry is ignored', () => {
    const r = press(opened(), 'h')
    const other = apply(r.state, {type: 'history', id: items[1]!.id, items: HISTORY}).state
    expect(other.full?.history).toBe('loading')
    const shown = apply(r.state, {type: 'history', id: items[0]!.id, items: HISTORY}).state
    const esc = press(shown, KEYS.esc).state
    expect(esc.full?.id).toBe(items[0]!.id)
    expect(esc.full?.history).toBeNull()
  })

  it('a failed load says so and shows the entry', () => {
    const r = press(opened(), 'h')
    const failed = apply(r.state, {type: 'historyFailed', id: items[0]!.id, error: 'the daemon is not running'}).state
    expect(failed.full?.history).toBeNull()
    expect(failed.line).toEqual({tone: 'error', text: 'History: the daemon is not running'})
  })
})

describe('review mode in the results', () => {
  it('! loads the review queue in place of the entries, and ! again the entries', () => {
    const r = press(browsing(items), '!')
    const loads = effectsOf(r, 'load')
    expect(loads).toHaveLength(1)
    expect(loads[0]!.request.filters).toEqual({review: true})
    const queued = answer(r.state, page([items[1]!])).state
    expect(screen(queued)).toContain('review queue · scope all')
    expect(queued.results.items.map((e) => e.id)).toEqual([items[1]!.id])
    const back = press(queued, '!')
    expect(effectsOf(back, 'load')[0]!.request.filters).toEqual({})
    expect(screen(back.state)).not.toContain('review queue ·')
  })

  it('an entry of a similar pair names the entry it looks like in the detail pane', () => {
    const r = press(browsing(items), '!')
    const other = items[0]!
    const paired = {...items[1]!, similar_to: [{id: other.id, title: other.title}]}
    const queued = answer(r.state, page([paired])).state
    expect(screen(queued)).toContain(`similar to "${other.title}" (${shortId(other.id)})`)
  })
})
