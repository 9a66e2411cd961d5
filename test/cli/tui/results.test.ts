/**
 * The reducer and the results: keys pressed while results are about to change wait for them (and act
 * on what is then on screen), a new question selects its first row, a refresh keeps the selected entry,
 * rows past the first page load as the selection nears the end, and answers to older loads are dropped.
 */
import {describe, expect, it} from 'vitest'
import {frame} from '../../../src/cli/tui/frame.js'
import {HOLD_MS} from '../../../src/cli/tui/reduce.js'
import {selectedEntry, settled, type State} from '../../../src/cli/tui/state.js'
import {lineText} from '../../../src/cli/tui/styled.js'
import {MORE_MARGIN} from '../../../src/cli/tui/transitions.js'
import {answer, apply, browsing, effectsOf, entry, KEYS, page, press} from './fixtures.js'

const items = Array.from({length: 30}, (_, i) => entry(`Entry ${String(i + 1).padStart(2, '0')}`))
const screen = (s: State): string => frame(s, Date.parse('2026-11-20T12:00:00Z')).map(lineText).join('\n')

describe('keys wait for the results they would act on', () => {
  const old = [entry('macOS: xcrun: error: invalid active developer path'), entry('Another old one')]
  const kafka = entry('Kafka consumer lag grows after deploy')

  it('typing, Enter and d in quick succession: d applies to the top hit of the new query, never the old row', () => {
    const s0 = press(browsing(old), '/').state
    const typed = press(s0, 'kafka lag', KEYS.enter, 'd')
    expect(typed.state.prompt).toBeNull()
    expect(typed.state.queue.map((k) => k.name)).toEqual(['char'])
    expect(typed.state.line?.text).toContain('d will apply to them')
    expect(effectsOf(typed, 'hold')).toHaveLength(1)
    // The answer arrives, but is not on screen yet: still held.
    const arrived = apply(typed.state, {type: 'results', seq: typed.state.seq, page: page([kafka, old[0]!])}).state
    expect(arrived.prompt).toBeNull()
    expect(settled(arrived)).toBe(false)
    const shown = apply(arrived, {type: 'painted', seq: arrived.seq}).state
    expect(shown.prompt).toMatchObject({kind: 'delete', entry: {id: kafka.id}})
    expect(shown.queue).toEqual([])
    expect(screen(shown)).toContain('Delete "Kafka consumer lag grows after deploy"')
  })

  it('held keys apply in order, moves included (j then d acts on the second new row)', () => {
    const s0 = press(browsing(old), '/').state
    const r = press(s0, 'kafka', KEYS.enter, 'j', 'd')
    const shown = answer(r.state, page([kafka, ...old])).state
    expect(shown.prompt).toMatchObject({kind: 'delete', entry: {id: old[0]!.id}})
  })

  it('a key held for results that fail or never come is dropped with a note', () => {
    const s0 = press(browsing(old), '/').state
    const r = press(s0, 'kafka', KEYS.enter, 'd')
    const failed = apply(r.state, {type: 'resultsFailed', seq: r.state.seq, error: 'boom'}).state
    expect(failed.queue).toEqual([])
    expect(failed.prompt).toBeNull()
    expect(failed.line).toEqual({tone: 'error', text: 'Ignored d: the results could not be loaded'})
    const hold = effectsOf(r, 'hold')[0]!
    const expired = apply(r.state, {type: 'holdExpired', seq: hold.seq}).state
    expect(expired.queue).toEqual([])
    expect(expired.line?.text).toBe(`Ignored d: the results did not arrive within ${HOLD_MS / 1000} s`)
    // An older hold's timer does not drop a newer queue.
    expect(apply(r.state, {type: 'holdExpired', seq: hold.seq - 1}).state.queue).toHaveLength(1)
  })

  it('q and Ctrl-C are never held', () => {
    const r = press(press(browsing(old), '/').state, 'x', KEYS.enter, 'd')
    expect(press(r.state, 'q').state.quit).toBe(true)
    expect(press(r.state, KEYS.ctrlC).state.quit).toBe(true)
  })

  it('behind a held c, q is the first letter of the comment, not quit (Ctrl-C still quits)', () => {
    const r = press(press(browsing(old), '/').state, 'kafka', KEYS.enter, 'c', 'quick')
    expect(r.state.quit).toBe(false)
    expect(press(r.state, KEYS.ctrlC).state.quit).toBe(true)
    const shown = answer(r.state, page([kafka, ...old])).state
    expect(shown.prompt).toMatchObject({kind: 'comment', entry: {id: kafka.id}})
    expect(screen(shown)).toContain('quick')
  })

  it('keys in the search box and prompts are not held (they do not act on rows)', () => {
    const s0 = press(browsing(old), '/').state
    const r = press(s0, 'abc')
    expect(r.state.queue).toEqual([])
    expect(r.state.query).toBe('abc')
  })
})

describe('selection', () => {
  it('a new result set selects its first row, even if the old selection is among the results', () => {
    const s = press(browsing(items), 'j', 'j', 'j').state
    expect(selectedEntry(s)!.title).toBe('Entry 04')
    const r = press(s, '/', 'entry')
    const shown = answer(r.state, page(items.slice(0, 10))).state
    expect(shown.selected).toBe(0)
    expect(shown.top).toBe(0)
  })

  it('Ctrl-U in the search box is a new question too: back to the first row', () => {
    const s = answer(press(browsing(items), '/', 'entry').state, page(items)).state
    const moved = press(s, KEYS.enter, 'j', 'j').state
    const cleared = answer(press(moved, '/', KEYS.ctrlU).state, page(items)).state
    expect(cleared.selected).toBe(0)
  })

  it('a refresh keeps the selected entry where it moved, or the row in its place when it is gone', () => {
    const s = press(browsing(items), 'j', 'j').state
    const again = answer(press(s, 'R').state, page([items[5]!, ...items])).state
    expect(selectedEntry(again)!.id).toBe(items[2]!.id)
    const gone = answer(press(s, 'R').state, page(items.filter((_, i) => i !== 2))).state
    expect(gone.selected).toBe(2)
    expect(selectedEntry(gone)!.id).toBe(items[3]!.id)
  })

  it('an answer to an older load is dropped; a failure is shown', () => {
    const typed = press(press(browsing(items), '/').state, 'ab').state
    const stale = apply(typed, {type: 'results', seq: typed.seq - 1, page: page([entry('Stale')])}).state
    expect(stale.results.items).toBe(typed.results.items)
    const failed = apply(typed, {type: 'resultsFailed', seq: typed.seq, error: 'boom'}).state
    expect(screen(failed)).toContain('Could not load entries: boom')
  })

  it('rows hidden behind a load error are not acted on; a note like "Refreshed" does not outlive the failure', () => {
    const s = browsing(items)
    const failed = apply(press(s, 'R').state, {type: 'resultsFailed', seq: s.seq + 1, error: 'daemon down'}).state
    expect(screen(failed)).toContain('Could not load entries: daemon down')
    expect(screen(failed)).not.toContain('Refreshed')
    expect(screen(failed)).not.toContain(items[0]!.title)
    for (const k of ['d', 'r', 'c', 'f', 'p', 'y', 'o']) {
      const r = press(failed, k)
      expect(r.state.prompt, k).toBeNull()
      expect(r.effects, k).toEqual([])
      expect(r.state.line?.text, k).toBe('No entry on screen: the results could not be loaded (R tries again)')
    }
    expect(press(failed, KEYS.enter).state.full).toBeNull()
    // R asks again; once the rows are back, keys act on them.
    const back = answer(press(failed, 'R').state, page(items)).state
    expect(press(back, 'd').state.prompt).toMatchObject({kind: 'delete', entry: {id: items[0]!.id}})
  })

  it('Loading… shows only after the slow message of the current load', () => {
    const s = press(press(browsing(items), '/').state, 'a').state
    expect(screen(s)).not.toContain('Loading…')
    const slow = apply(s, {type: 'slow', seq: s.seq}).state
    expect(screen(slow)).toContain('Loading…')
    expect(screen(answer(slow, page(items)).state)).not.toContain('Loading…')
  })

  it('the terminal regaining focus refreshes (not during a prompt)', () => {
    const s = browsing(items)
    expect(effectsOf(press(s, '\u001B[I'), 'load')).toHaveLength(1)
    expect(effectsOf(press(s, 'c', '\u001B[I'), 'load')).toEqual([])
    expect(press(s, 'c', '\u001B[I').state.prompt).toMatchObject({text: ''})
  })
})

describe('paging past the first page', () => {
  const first = items.slice(0, 20)
  const rest = [...items.slice(20), ...Array.from({length: 30}, (_, i) => entry(`Later ${i + 1}`))]

  it('moving near the end of a listing loads the next page after the cursor, and adds its rows', () => {
    const s = browsing(
      first.map((e) => e),
      {limit: 20},
    )
    const listed = answer({...s}, page(first, true)).state
    expect(screen(listed)).toContain('20+ entries')
    let r = press(listed, ...Array.from({length: 20 - MORE_MARGIN - 1}, () => 'j'))
    expect(effectsOf(r, 'load')).toEqual([])
    r = press(r.state, 'j')
    const more = effectsOf(r, 'load')
    expect(more).toHaveLength(1)
    expect(more[0]!.request.cursor).toBe('next')
    expect(r.state.loading.mode).toBe('more')
    // Moving on while more rows load is not held: the rows on screen do not change.
    const moved = press(r.state, 'j')
    expect(moved.state.queue).toEqual([])
    expect(moved.state.selected).toBe(11)
    const grown = answer(moved.state, page(rest.slice(0, 20), true)).state
    expect(grown.results.items).toHaveLength(40)
    expect(grown.selected).toBe(11)
  })

  it('G loads the rest, then selects the very last entry', () => {
    const listed = answer(browsing(first, {limit: 20}), page(first, true)).state
    let r = press(listed, 'G')
    expect(r.state.wantLast).toBe(true)
    expect(effectsOf(r, 'load')[0]!.request.cursor).toBe('next')
    r = answer(r.state, page(rest.slice(0, 20), true))
    expect(effectsOf(r, 'load')).toHaveLength(1)
    r = answer(r.state, page(rest.slice(20), false))
    expect(r.state.results.items).toHaveLength(60)
    expect(selectedEntry(r.state)!.title).toBe('Later 30')
    expect(screen(r.state)).toContain('60 entries')
  })

  it('a search shows how many of its matches are loaded and asks for a larger page for more', () => {
    const s = answer(press(browsing(items), '/', 'entry', KEYS.enter).state, {items: first, total: 30, more: true, cursor: null}).state
    expect(screen(s)).toContain('20 of 30 matches')
    const r = press(s, 'G')
    const req = effectsOf(r, 'load')[0]!.request
    expect(req.limit).toBe(100)
    expect(req.cursor).toBeNull()
    const all = answer(r.state, {items, total: 30, more: false, cursor: null}).state
    expect(all.results.items).toHaveLength(30)
    expect(selectedEntry(all)!.title).toBe('Entry 30')
  })
})
