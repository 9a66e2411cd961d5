/**
 * The `kb browse` reducer without Ink or a terminal: every key of docs/tui.md in the search box, the
 * results (with the detail pane), the full view, the prompts and help, and the answers from the API.
 */
import {describe, expect, it} from 'vitest'
import {frame, lineText} from '../../../src/cli/tui/frame.js'
import {reduce} from '../../../src/cli/tui/reduce.js'
import {initialState, selectedEntry, type State} from '../../../src/cli/tui/state.js'
import {DEBOUNCE_MS} from '../../../src/cli/tui/transitions.js'
import {answer, apply, browsing, effectsOf, entry, full, KEYS, page, press} from './fixtures.js'

const items = Array.from({length: 30}, (_, i) => entry(`Entry ${String(i + 1).padStart(2, '0')}`))
const screen = (s: State): string => frame(s, Date.parse('2026-11-20T12:00:00Z')).map(lineText).join('\n')

describe('search box', () => {
  const s0 = {...browsing(items), focus: 'search' as const}

  it('letters edit the query and ask for results after the debounce; the selection goes to the top', () => {
    const r = press({...s0, selected: 5}, 'port')
    expect(r.state.query).toBe('port')
    expect(r.state.selected).toBe(0)
    const loads = effectsOf(r, 'load')
    expect(loads.map((l) => l.request.query)).toEqual(['p', 'po', 'por', 'port'])
    expect(loads.every((l) => l.delay === DEBOUNCE_MS)).toBe(true)
    expect(r.state.loading.pending).toBe(true)
  })

  it('Backspace deletes a character (a whole emoji), Ctrl-U clears', () => {
    expect(press({...s0, query: 'ab😀'}, KEYS.backspace).state.query).toBe('ab')
    expect(press({...s0, query: 'abc'}, KEYS.backspace, KEYS.backspace).state.query).toBe('a')
    expect(press({...s0, query: 'abc'}, KEYS.ctrlU).state.query).toBe('')
  })

  it('↓, Enter and Tab go to the results', () => {
    for (const k of [KEYS.down, KEYS.enter, KEYS.tab]) expect(press(s0, k).state.focus).toBe('list')
  })

  it('Ctrl-C leaves', () => {
    const r = press(s0, KEYS.ctrlC)
    expect(r.state.quit).toBe(true)
    expect(effectsOf(r, 'quit')).toHaveLength(1)
  })

  it('keys in one read count one by one (jjjj, two Backspaces, text then Enter)', () => {
    expect(press(s0, 'abc\u007F\u007F').state.query).toBe('a')
    const r = press(s0, 'kafka lag\r')
    expect(r.state.query).toBe('kafka lag')
    expect(r.state.focus).toBe('list')
  })
})

describe('results list and detail pane', () => {
  const s0 = browsing(items, {})

  it('↑ k ↓ j move; PgUp PgDn move a page; g G Home End go to the ends', () => {
    const rows = 30 - 5 // side by side: the list has every body row
    let s = press(s0, 'j', 'j', KEYS.down).state
    expect(s.selected).toBe(3)
    s = press(s, 'k', KEYS.up).state
    expect(s.selected).toBe(1)
    s = press(s, KEYS.pgDown).state
    expect(s.selected).toBe(1 + rows)
    s = press(s, KEYS.pgUp).state
    expect(s.selected).toBe(1)
    expect(press(s, 'G').state.selected).toBe(29)
    expect(press(s, KEYS.end).state.selected).toBe(29)
    expect(press(press(s, 'G').state, 'g').state.selected).toBe(0)
    expect(press(press(s, 'G').state, KEYS.home).state.selected).toBe(0)
  })

  it('the window follows the selection', () => {
    const narrow = {...s0, size: {columns: 80, rows: 24}}
    const s = press(narrow, 'G').state
    expect(s.top).toBeGreaterThan(0)
    expect(screen(s)).toMatch(/^› Entry 30/m)
    expect(screen(s)).not.toContain('Entry 01')
  })

  it('the detail pane shows the selected entry at standard', () => {
    const s = press(s0, 'j', 'j').state
    expect(selectedEntry(s)!.title).toBe('Entry 03')
    expect(screen(s)).toMatch(/│ Entry 03/)
    expect(screen(s)).toContain('Body of Entry 03.')
  })

  it('Enter opens the entry in full and loads it', () => {
    const r = press(s0, 'j', KEYS.enter)
    expect(r.state.full?.id).toBe(items[1]!.id)
    expect(effectsOf(r, 'loadEntry')).toEqual([{type: 'loadEntry', id: items[1]!.id}])
  })

  it('/ and Tab go to the search box', () => {
    expect(press(s0, '/').state.focus).toBe('search')
    expect(press(s0, KEYS.tab).state.focus).toBe('search')
  })

  it('r c f p d open their prompts on the selected entry; o opens the url; y copies the id', () => {
    const withUrl = browsing([entry('Linked', {url: 'https://example.com/x', scope: 'private'})])
    expect(press(withUrl, 'r').state.prompt).toMatchObject({kind: 'resolve', text: ''})
    expect(press(withUrl, 'c').state.prompt).toMatchObject({kind: 'comment', type: 'note'})
    expect(press(withUrl, 'f').state.prompt).toMatchObject({kind: 'fork'})
    expect(press(withUrl, 'p').state.prompt).toMatchObject({kind: 'publish'})
    expect(press(withUrl, 'd').state.prompt).toMatchObject({kind: 'delete'})
    expect(effectsOf(press(withUrl, 'o'), 'openUrl')).toEqual([{type: 'openUrl', url: 'https://example.com/x'}])
    expect(effectsOf(press(withUrl, 'y'), 'copy')).toEqual([{type: 'copy', text: withUrl.results.items[0]!.id}])
    expect(press(s0, 'o').state.line?.text).toContain('has no url')
  })

  it('an action with no entry selected says so', () => {
    const empty = browsing([])
    for (const k of ['r', 'c', 'f', 'p', 'o', 'y', 'd']) expect(press(empty, k).state.line?.text).toBe('No entry selected')
  })

  it('s cycles the scope, t the status; each reloads and says so', () => {
    let r = press(s0, 's')
    expect(r.state.filters.scope).toBe('private')
    expect(r.state.line?.text).toBe('Scope: private')
    expect(effectsOf(r, 'load')[0]!.request.filters).toEqual({scope: 'private'})
    r = press(r.state, 's', 's', 's')
    expect(r.state.filters.scope).toBeUndefined()
    r = press(r.state, 't')
    expect(r.state.filters.status).toBe('open')
    r = press(r.state, 't')
    expect(r.state.filters.status).toBe('resolved')
    expect(press(r.state, 't').state.filters.status).toBeUndefined()
  })

  it('? opens help; q and Ctrl-C leave', () => {
    expect(press(s0, '?').state.help).toBe(true)
    expect(press(s0, 'q').state.quit).toBe(true)
    expect(press(s0, KEYS.ctrlC).state.quit).toBe(true)
  })
})

describe('full view', () => {
  const long = entry('Long one', {body: Array.from({length: 80}, (_, i) => `Line ${i + 1}`).join('\n')})
  const opened = (): State => {
    const s = press(browsing([long]), KEYS.enter).state
    return apply(s, {type: 'entry', id: long.id, entry: full(long)}).state
  }

  it('↑ k ↓ j scroll; PgUp PgDn space scroll a page; g G go to the ends', () => {
    const s = opened()
    expect(press(s, 'j', 'j', KEYS.down).state.full!.scroll).toBe(3)
    expect(press(s, 'j', 'j', 'k', KEYS.up).state.full!.scroll).toBe(0)
    const page = 30 - 5 - 1
    expect(press(s, KEYS.pgDown).state.full!.scroll).toBe(page)
    expect(press(s, ' ').state.full!.scroll).toBe(page)
    expect(press(s, KEYS.pgDown, KEYS.pgUp).state.full!.scroll).toBe(0)
    const bottom = press(s, 'G').state
    expect(screen(bottom)).toContain('Line 80')
    expect(press(bottom, 'g').state.full!.scroll).toBe(0)
    expect(press(s, 'k').state.full!.scroll).toBe(0)
  })

  it('r c f p o y d act on the entry shown', () => {
    const s = opened()
    expect(press(s, 'r').state.prompt).toMatchObject({kind: 'resolve', entry: {id: long.id}})
    expect(press(s, 'c').state.prompt?.kind).toBe('comment')
    expect(press(s, 'f').state.prompt?.kind).toBe('fork')
    expect(press(s, 'p').state.prompt?.kind).toBe('publish')
    expect(press(s, 'd').state.prompt?.kind).toBe('delete')
    expect(press(s, 'o').state.line?.text).toContain('has no url')
    expect(effectsOf(press(s, 'y'), 'copy')).toHaveLength(1)
  })
})

describe('prompts', () => {
  const e = entry('Target', {scope: 'private'})
  const s0 = browsing([e])

  it('resolve: a note typed, Backspace, Ctrl-U, Enter sends it; busy ignores keys until the answer', () => {
    let r = press(s0, 'r', 'fixed itx', KEYS.backspace)
    expect(r.state.prompt).toMatchObject({kind: 'resolve', text: 'fixed it'})
    expect(press(r.state, KEYS.ctrlU).state.prompt).toMatchObject({text: ''})
    r = press(r.state, KEYS.enter)
    expect(effectsOf(r, 'call')).toEqual([{type: 'call', call: {kind: 'resolve', entry: e, note: 'fixed it'}}])
    expect(r.state.busy).toBe(true)
    expect(press(r.state, 'x', KEYS.esc).state.prompt).toMatchObject({text: 'fixed it'})
    const done = apply(r.state, {type: 'done', call: {kind: 'resolve', entry: e, note: 'fixed it'}, ok: true, text: 'Resolved "Target"'})
    expect(done.state.prompt).toBeNull()
    expect(done.state.line).toEqual({tone: 'ok', text: 'Resolved "Target"'})
    expect(effectsOf(done, 'load')).toHaveLength(1)
  })

  it('Esc cancels any prompt', () => {
    for (const k of ['r', 'c', 'f', 'p', 'd']) {
      const r = press(s0, k, KEYS.esc)
      expect(r.state.prompt).toBeNull()
      expect(r.state.line?.text).toBe('Cancelled')
      expect(effectsOf(r, 'call')).toEqual([])
    }
  })

  it('comment: Tab and Shift-Tab pick the type; an empty comment is refused', () => {
    let r = press(s0, 'c', KEYS.tab, KEYS.tab)
    expect(r.state.prompt).toMatchObject({type: 'correction'})
    r = press(r.state, KEYS.backTab)
    expect(r.state.prompt).toMatchObject({type: 'supplement'})
    r = press(r.state, KEYS.enter)
    expect(r.state.line?.text).toContain('A comment needs text')
    expect(effectsOf(r, 'call')).toEqual([])
    r = press(r.state, 'seen too', KEYS.enter)
    expect(effectsOf(r, 'call')[0]!.call).toMatchObject({kind: 'comment', body: 'seen too', type: 'supplement'})
  })

  it('fork: Enter with no title keeps the default; a title is sent', () => {
    expect(effectsOf(press(s0, 'f', KEYS.enter), 'call')[0]!.call).toMatchObject({kind: 'fork', title: ''})
    expect(effectsOf(press(s0, 'f', 'On Windows', KEYS.enter), 'call')[0]!.call).toMatchObject({kind: 'fork', title: 'On Windows'})
  })

  it('publish: ← → Tab choose, Enter publishes', () => {
    let r = press(s0, 'p')
    const choice = (s: State): string => {
      const p = s.prompt
      return p?.kind === 'publish' ? p.choices[p.choice]! : ''
    }
    expect(choice(r.state)).toBe('project')
    r = press(r.state, KEYS.right)
    expect(choice(r.state)).toBe('global')
    r = press(r.state, KEYS.left, KEYS.tab)
    expect(choice(r.state)).toBe('global')
    expect(effectsOf(press(r.state, KEYS.enter), 'call')[0]!.call).toMatchObject({kind: 'publish', scope: 'global'})
  })

  it('delete: y deletes; n and Enter keep it', () => {
    expect(effectsOf(press(s0, 'd', 'y'), 'call')[0]!.call).toMatchObject({kind: 'delete'})
    for (const k of ['n', 'N', KEYS.enter]) {
      const r = press(s0, 'd', k)
      expect(r.state.line?.text).toBe('Not deleted')
      expect(effectsOf(r, 'call')).toEqual([])
    }
  })

  it('an error from the API goes to the status line and the list is refreshed', () => {
    const r = press(s0, 'd', 'y')
    const done = apply(r.state, {type: 'done', call: {kind: 'delete', entry: e}, ok: false, text: 'knowledge entry x does not exist'})
    expect(done.state.line).toEqual({tone: 'error', text: 'knowledge entry x does not exist'})
    expect(effectsOf(done, 'load')).toHaveLength(1)
  })
})

describe('help', () => {
  it('shows every key and any key returns', () => {
    const s = press(browsing(items), '?').state
    const text = screen(s)
    for (const k of ['Results list', 'resolve (with an optional note)', 'delete (asks first)', 'status filter']) expect(text).toContain(k)
    expect(press(s, 'x').state.help).toBe(false)
  })
})

describe('answers from the API', () => {
  it('an answer to an older load is dropped; a failure is shown', () => {
    const s0 = {...browsing(items), focus: 'search' as const}
    const typed = press(s0, 'ab').state
    const stale = apply(typed, {type: 'results', seq: typed.seq - 1, page: page([entry('Stale')])}).state
    expect(stale.results.items).toBe(typed.results.items)
    const failed = apply(typed, {type: 'resultsFailed', seq: typed.seq, error: 'boom'}).state
    expect(failed.results.error).toBe('boom')
    expect(screen(failed)).toContain('Could not load entries: boom')
  })

  it('Loading… shows only after the slow message of the current load', () => {
    const s = press({...browsing(items), focus: 'search'}, 'a').state
    expect(screen(s)).not.toContain('Loading…')
    const slow = apply(s, {type: 'slow', seq: s.seq}).state
    expect(screen(slow)).toContain('Loading…')
    expect(screen(answer(slow, page(items)).state)).not.toContain('Loading…')
  })

  it('starts in the list when a query is given', () => {
    expect(initialState({size: {columns: 80, rows: 24}, query: 'x'}).focus).toBe('list')
    expect(reduce(initialState({size: {columns: 80, rows: 24}}), {type: 'resize', size: {columns: 60, rows: 20}}).state.size).toEqual({columns: 60, rows: 20})
  })
})
