/**
 * The `kb browse` reducer without Ink or a terminal: every key of docs/tui.md in the search box, the
 * results (with the detail pane), the full view and the prompts. (Leaving, Esc and help in every place:
 * places.test.ts; the results as they load: results.test.ts.)
 */
import {describe, expect, it} from 'vitest'
import {frame} from '../../../src/cli/tui/frame.js'
import {selectedEntry, type State} from '../../../src/cli/tui/state.js'
import {lineText} from '../../../src/cli/tui/styled.js'
import {DEBOUNCE_MS} from '../../../src/cli/tui/transitions.js'
import {apply, browsing, effectsOf, entry, full, KEYS, press} from './fixtures.js'
import {shortId} from '../../../src/shared/short-id.js'

const items = Array.from({length: 30}, (_, i) => entry(`Entry ${String(i + 1).padStart(2, '0')}`))
const NOW = Date.parse('2026-11-20T12:00:00Z')
const screen = (s: State): string => frame(s, NOW).map(lineText).join('\n')
describe('search box', () => {
  const s0 = press(browsing(items), '/').state

  it('letters edit the query and ask for results after the debounce', () => {
    const r = press(s0, 'port')
    expect(r.state.query).toBe('port')
    const loads = effectsOf(r, 'load')
    expect(loads.map((l) => l.request.query)).toEqual(['p', 'po', 'por', 'port'])
    expect(loads.every((l) => l.delay === DEBOUNCE_MS)).toBe(true)
  })

  it('? and q are letters here', () => {
    expect(press(s0, '?q').state.query).toBe('?q')
  })

  it('Backspace deletes a character (a whole emoji), Ctrl-U clears', () => {
    expect(press({...s0, query: 'ab😀'}, KEYS.backspace).state.query).toBe('ab')
    expect(press({...s0, query: 'abc'}, KEYS.backspace, KEYS.backspace).state.query).toBe('a')
    expect(press({...s0, query: 'abc'}, KEYS.ctrlU).state.query).toBe('')
  })

  it('↓, Enter and Tab go to the results with the query; Esc goes back with the query it had', () => {
    for (const k of [KEYS.down, KEYS.enter, KEYS.tab]) {
      const r = press(s0, 'kafka', k)
      expect(r.state.focus).toBe('list')
      expect(r.state.query).toBe('kafka')
    }
    const searched = press(browsing(items, {}), '/', 'old', KEYS.enter).state
    const cancelled = press(searched, '/', 'new words', KEYS.esc)
    expect(cancelled.state.focus).toBe('list')
    expect(cancelled.state.query).toBe('old')
  })

  it('a paste is one piece of the query, its line breaks spaces; escape sequences in it are dropped', () => {
    expect(press(s0, '\u001B[200~kafka\nlag\u001B[201~').state.query).toBe('kafka lag')
    expect(press(s0, '\u001B[200~a\u001B[31mb\u001B[201~').state.query).toBe('ab')
  })
})

describe('results list and detail pane', () => {
  const s0 = browsing(items, {})
  const rows = 30 - 1 - 3 - 2 // side by side: the list has every body row

  it('↑ k ↓ j move; PgUp PgDn space Ctrl-B Ctrl-F move a page; g G Home End go to the ends', () => {
    let s = press(s0, 'j', 'j', KEYS.down).state
    expect(s.selected).toBe(3)
    s = press(s, 'k', KEYS.up).state
    expect(s.selected).toBe(1)
    for (const k of [KEYS.pgDown, ' ', '\u0006']) expect(press(s, k).state.selected).toBe(1 + rows)
    for (const k of [KEYS.pgUp, '\u0002']) expect(press(press(s, KEYS.pgDown).state, k).state.selected).toBe(1)
    expect(press(s, 'G').state.selected).toBe(29)
    expect(press(s, KEYS.end).state.selected).toBe(29)
    expect(press(s, 'G', 'g').state.selected).toBe(0)
    expect(press(s, 'G', KEYS.home).state.selected).toBe(0)
  })

  it('↑ and k on the first row stay there: focus moves only by explicit keys', () => {
    const r = press(s0, 'k', KEYS.up, 'k', 'k', 'k')
    expect(r.state.focus).toBe('list')
    expect(r.state.selected).toBe(0)
    expect(r.state.query).toBe('')
  })

  it('the window follows the selection', () => {
    const s = press({...s0, size: {columns: 80, rows: 24}}, 'G').state
    expect(screen(s)).toMatch(/^› Entry 30/m)
    expect(screen(s)).not.toContain('Entry 01')
  })

  it('the detail pane shows the selected entry at standard', () => {
    const s = press(s0, 'j', 'j').state
    expect(selectedEntry(s)!.title).toBe('Entry 03')
    expect(screen(s)).toMatch(/│ Entry 03/)
    expect(screen(s)).toContain('Body of Entry 03.')
  })

  it('Enter opens the entry in full and loads it; / and Tab go to the search box', () => {
    const r = press(s0, 'j', KEYS.enter)
    expect(r.state.full?.id).toBe(items[1]!.id)
    expect(effectsOf(r, 'loadEntry')).toEqual([{type: 'loadEntry', id: items[1]!.id}])
    expect(press(s0, '/').state.focus).toBe('search')
    expect(press(s0, KEYS.tab).state.focus).toBe('search')
  })

  it('r c f p d open their prompts on the selected entry; o opens an http(s) url; y copies the id', () => {
    const linked = browsing([entry('Linked', {url: 'https://example.com/x', scope: 'private'})])
    expect(press(linked, 'r').state.prompt).toMatchObject({kind: 'resolve', text: ''})
    expect(press(linked, 'c').state.prompt).toMatchObject({kind: 'comment', type: 'note'})
    expect(press(linked, 'f').state.prompt).toMatchObject({kind: 'fork'})
    expect(press(linked, 'p').state.prompt).toMatchObject({kind: 'publish'})
    expect(press(linked, 'd').state.prompt).toMatchObject({kind: 'delete'})
    expect(effectsOf(press(linked, 'o'), 'openUrl')).toEqual([{type: 'openUrl', url: 'https://example.com/x'}])
    expect(effectsOf(press(linked, 'y'), 'copy')).toEqual([{type: 'copy', text: linked.results.items[0]!.id}])
    expect(press(s0, 'o').state.line?.text).toContain('has no url')
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'vscode://x', 'not a url']) {
      const r = press(browsing([entry('Odd link', {url})]), 'o')
      expect(effectsOf(r, 'openUrl'), url).toEqual([])
      expect(r.state.line?.text, url).toContain('only http and https')
    }
  })

  it('r on a resolved entry offers to reopen it; y reopens', () => {
    const e = entry('Done already', {status: 'resolved'})
    const r = press(browsing([e]), 'r')
    expect(r.state.prompt).toMatchObject({kind: 'reopen'})
    expect(screen(r.state)).toContain('Reopen "Done already"')
    expect(effectsOf(press(r.state, 'y'), 'call')[0]!.call).toEqual({kind: 'reopen', entry: e})
    expect(press(r.state, 'n').state.line?.text).toBe('Left resolved')
  })

  it('an action with no entry selected says so', () => {
    const empty = browsing([])
    for (const k of ['r', 'c', 'f', 'p', 'o', 'y', 'd']) expect(press(empty, k).state.line?.text).toBe('No entry selected')
  })

  it('s cycles the scope, t the status; each is a new question that reloads', () => {
    let r = press(s0, 's')
    expect(r.state.filters.scope).toBe('private')
    expect(r.state.line?.text).toBe('Scope: private')
    expect(effectsOf(r, 'load')[0]!.request.filters).toEqual({scope: 'private'})
    expect(r.state.loading.mode).toBe('new')
    // Filters change the question, not an entry: they apply at once even while results load.
    r = press(r.state, 's', 's', 's', 't')
    expect(r.state.filters).toEqual({scope: undefined, status: 'open'})
    expect(r.state.queue).toEqual([])
  })

  it('R refreshes, keeping the selected entry', () => {
    const r = press(press(s0, 'j', 'j').state, 'R')
    expect(effectsOf(r, 'load')[0]!.request.limit).toBe(50)
    expect(r.state.loading.mode).toBe('refresh')
  })

  it('? opens help; q and Ctrl-C leave', () => {
    expect(press(s0, '?').state.help).toEqual({scroll: 0})
    expect(press(s0, 'q').state.quit).toBe(true)
    expect(press(s0, KEYS.ctrlC).state.quit).toBe(true)
  })
})

describe('full view', () => {
  const long = entry('Long one', {body: Array.from({length: 80}, (_, i) => `Line ${i + 1}`).join('\n')})
  const opened = (e = long): State => apply(press(browsing([e]), KEYS.enter).state, {type: 'entry', id: e.id, entry: full(e)}).state

  it('↑ k ↓ j scroll; PgUp PgDn space scroll a page; g G go to the ends', () => {
    const s = opened()
    expect(press(s, 'j', 'j', KEYS.down).state.full!.scroll).toBe(3)
    expect(press(s, 'j', 'j', 'k', KEYS.up).state.full!.scroll).toBe(0)
    const page = 30 - 1 - 3 - 2 - 1
    expect(press(s, KEYS.pgDown).state.full!.scroll).toBe(page)
    expect(press(s, ' ').state.full!.scroll).toBe(page)
    expect(press(s, KEYS.pgDown, KEYS.pgUp).state.full!.scroll).toBe(0)
    const bottom = press(s, 'G').state
    expect(screen(bottom)).toContain('Line 80')
    expect(press(bottom, 'g').state.full!.scroll).toBe(0)
  })

  it('widening the terminal at the bottom keeps text on screen (the scroll is kept in range)', () => {
    const narrow = {...opened(entry('Wrapped', {body: 'word '.repeat(400)})), size: {columns: 60, rows: 20}}
    const bottom = press(narrow, 'G').state
    const wide = apply(bottom, {type: 'resize', size: {columns: 200, rows: 20}}).state
    const body = frame(wide, NOW).slice(3, 12).map(lineText)
    expect(body.filter((l) => l.includes('word')).length).toBeGreaterThan(3)
  })

  it('r c f p o y d R act on the entry shown', () => {
    const s = opened()
    expect(press(s, 'r').state.prompt).toMatchObject({kind: 'resolve', entry: {id: long.id}})
    expect(press(s, 'c').state.prompt?.kind).toBe('comment')
    expect(press(s, 'f').state.prompt?.kind).toBe('fork')
    expect(press(s, 'p').state.prompt).toBeNull() // global: there is no wider scope
    expect(press(s, 'p').state.line?.text).toContain('already global')
    expect(press(s, 'd').state.prompt?.kind).toBe('delete')
    expect(press(s, 'o').state.line?.text).toContain('has no url')
    expect(effectsOf(press(s, 'y'), 'copy')).toHaveLength(1)
    const refreshed = press(s, 'R')
    expect(effectsOf(refreshed, 'loadEntry')).toEqual([{type: 'loadEntry', id: long.id}])
  })

  it('keys for an entry still loading say so instead of acting', () => {
    const loading = press(browsing([long]), KEYS.enter).state
    expect(press(loading, 'd').state.prompt).toBeNull()
    expect(press(loading, 'd').state.line?.text).toBe('The entry is still loading')
  })

  it('Tab highlights "forked from" and the branches; Enter opens that entry; Esc comes back', () => {
    const parent = entry('The original')
    const fork = entry('The original (fork)', {forked_from: parent.id})
    const branch = {
      id: entry('x').id,
      title: 'A branch of it',
      scope: 'private' as const,
      author: {id: 'p1', name: 'owner'},
      created_at: fork.created_at,
    }
    const s = apply(press(browsing([fork, parent]), KEYS.enter).state, {
      type: 'entry',
      id: fork.id,
      entry: full(fork, {branches: [branch]}),
    }).state
    expect(screen(s)).toMatch(new RegExp(`^forked from +↳ "The original" \\(${shortId(parent.id)}\\)`, 'm'))
    expect(press(s, KEYS.enter).state.full?.id).toBe(fork.id) // no link highlighted yet
    const onParent = press(s, KEYS.tab)
    expect(onParent.state.full?.link).toBe(0)
    const toParent = press(onParent.state, KEYS.enter)
    expect(toParent.state.full?.id).toBe(parent.id)
    expect(effectsOf(toParent, 'loadEntry')).toEqual([{type: 'loadEntry', id: parent.id}])
    expect(press(toParent.state, KEYS.esc).state.full?.id).toBe(fork.id)
    expect(press(toParent.state, KEYS.esc, KEYS.esc).state.full).toBeNull()
    const toBranch = press(s, KEYS.tab, KEYS.tab, KEYS.enter)
    expect(toBranch.state.full?.id).toBe(branch.id)
    expect(press(s, KEYS.backTab).state.full?.link).toBe(1)
    expect(press(opened(), KEYS.tab).state.line?.text).toContain('links to no other')
  })

  it('a superseded entry names its replacement first; Tab then Enter opens the replacement', () => {
    const neu = entry('The better fix')
    const old = entry('The old workaround', {superseded_by: neu.id})
    const s = apply(press(browsing([old, neu]), KEYS.enter).state, {type: 'entry', id: old.id, entry: full(old)}).state
    expect(screen(s)).toMatch(new RegExp(`^superseded by +→ "The better fix" \\(${shortId(neu.id)}\\)`, 'm'))
    const followed = press(s, KEYS.tab, KEYS.enter)
    expect(followed.state.full?.id).toBe(neu.id)
    expect(effectsOf(followed, 'loadEntry')).toEqual([{type: 'loadEntry', id: neu.id}])
    // An entry that stands has no such line.
    const standing = apply(press(browsing([neu]), KEYS.enter).state, {type: 'entry', id: neu.id, entry: full(neu)}).state
    expect(screen(standing)).not.toContain('superseded by')
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
    expect(done.state.loading.mode).toBe('refresh')
  })

  it('Esc cancels any prompt; ? is a letter in text prompts', () => {
    for (const k of ['r', 'c', 'f', 'p', 'd']) {
      const r = press(s0, k, KEYS.esc)
      expect(r.state.prompt).toBeNull()
      expect(r.state.line?.text).toMatch(/Cancelled|Not deleted/)
      expect(effectsOf(r, 'call')).toEqual([])
    }
    expect(press(s0, 'c', '?').state.prompt).toMatchObject({text: '?'})
  })

  it('comment: Tab and Shift-Tab pick the type; an empty comment is refused; a paste keeps its lines', () => {
    let r = press(s0, 'c', KEYS.tab, KEYS.tab)
    expect(r.state.prompt).toMatchObject({type: 'correction'})
    r = press(r.state, KEYS.backTab)
    expect(r.state.prompt).toMatchObject({type: 'supplement'})
    r = press(r.state, KEYS.enter)
    expect(r.state.line?.text).toContain('A comment needs text')
    expect(effectsOf(r, 'call')).toEqual([])
    r = press(r.state, '\u001B[200~first line\nsecond line\nthird line\u001B[201~')
    expect(effectsOf(r, 'call')).toEqual([])
    expect(r.state.prompt).toMatchObject({text: 'first line\nsecond line\nthird line'})
    r = press(r.state, KEYS.enter)
    expect(effectsOf(r, 'call')[0]!.call).toMatchObject({kind: 'comment', body: 'first line\nsecond line\nthird line', type: 'supplement'})
  })

  it('fork: Enter with no title keeps the default; a pasted title is one line', () => {
    expect(effectsOf(press(s0, 'f', KEYS.enter), 'call')[0]!.call).toMatchObject({kind: 'fork', title: ''})
    expect(effectsOf(press(s0, 'f', '\u001B[200~On\nWindows\u001B[201~', KEYS.enter), 'call')[0]!.call).toMatchObject({
      kind: 'fork',
      title: 'On Windows',
    })
  })

  it('publish offers only wider scopes the server accepts', () => {
    const choices = (x: Partial<typeof e>): string[] => {
      const p = press(browsing([entry('P', x)]), 'p').state.prompt
      return p?.kind === 'publish' ? [...p.choices] : []
    }
    expect(choices({scope: 'private', project_id: null})).toEqual(['global'])
    expect(choices({scope: 'private', project_id: 'proj'})).toEqual(['project', 'global'])
    expect(choices({scope: 'project', project_id: 'proj'})).toEqual(['global'])
    expect(choices({scope: 'global'})).toEqual([])
  })

  it('publish: ← → Tab choose, Enter publishes', () => {
    const s = browsing([entry('Mine', {scope: 'private', project_id: 'proj'})])
    let r = press(s, 'p')
    const choice = (st: State): string => (st.prompt?.kind === 'publish' ? st.prompt.choices[st.prompt.choice]! : '')
    expect(choice(r.state)).toBe('project')
    r = press(r.state, KEYS.right)
    expect(choice(r.state)).toBe('global')
    r = press(r.state, KEYS.left, KEYS.tab)
    expect(choice(r.state)).toBe('global')
    // Enter asks what publishing would expose first; with nothing found, it publishes as confirmed.
    const asked = press(r.state, KEYS.enter)
    expect(effectsOf(asked, 'call')).toEqual([])
    const call = effectsOf(asked, 'preview')[0]!.call
    expect(call).toMatchObject({kind: 'publish', scope: 'global'})
    const clean = apply(asked.state, {
      type: 'previewed',
      call,
      preview: {scope: 'global', findings: [], findings_total: 0, diff: [], redacted: {}},
    })
    expect(effectsOf(clean, 'call')[0]!.call).toEqual(call)
  })

  it('publish with findings: the review, then r redacts, k keeps them (by id), s and Esc stop', () => {
    const mine = entry('Leaky', {scope: 'private', project_id: 'proj'})
    const asked = press(browsing([mine]), 'p', KEYS.enter)
    const call = effectsOf(asked, 'preview')[0]!.call
    const finding = {
      id: '0123456789abcdef',
      field: 'body',
      kind: 'email',
      label: 'email address',
      category: 'personal' as const,
      start: 5,
      end: 25,
      line: 1,
      column: 6,
      excerpt: 'Mail jane…',
    }
    const preview = {
      scope: 'project' as const,
      findings: [finding],
      findings_total: 1,
      diff: [{field: 'body', line: 1, before: 'Mail jane…', after: 'Mail [REDACTED:email]'}],
      redacted: {},
    }
    const shown = apply(asked.state, {type: 'previewed', call, preview})
    expect(effectsOf(shown, 'call')).toEqual([])
    expect(shown.state.prompt?.kind).toBe('sensitive')
    const text = screen(shown.state)
    expect(text).toContain('Publishing "Leaky" to project would share a secret or personal data:')
    expect(text).toContain('email address · body, line 1')
    expect(text).toContain('  + Mail [REDACTED:email]')
    expect(text).toContain('r redact  k keep as written (recorded)  s/Esc stop')
    expect(effectsOf(press(shown.state, 'r'), 'call')[0]!.call).toEqual({...call, choice: {redact: true}})
    expect(effectsOf(press(shown.state, 'k'), 'call')[0]!.call).toEqual({...call, choice: {acknowledge: [finding.id]}})
    for (const k of ['s', KEYS.esc]) {
      const r = press(shown.state, k)
      expect(r.state.prompt).toBeNull()
      expect(effectsOf(r, 'call')).toEqual([])
      expect(r.state.line?.text).toBe('Not published: "Leaky" stays private; nothing was changed')
    }
    // More findings than listed: only redaction is offered.
    const many = apply(asked.state, {type: 'previewed', call, preview: {...preview, findings_total: 1001}})
    expect(screen(many.state)).not.toContain('k keep')
    expect(effectsOf(press(many.state, 'k'), 'call')).toEqual([])
    // A comment refused on a shared entry is reviewed too, and s gives it back to edit.
    const comment = {kind: 'comment' as const, entry: mine, body: 'Mail jane@example.org', type: 'note' as const}
    const refused = apply(shown.state, {type: 'done', call: comment, ok: false, text: 'refused', report: preview})
    expect(refused.state.prompt).toMatchObject({kind: 'sensitive', call: comment})
    expect(press(refused.state, 's').state.prompt).toMatchObject({kind: 'comment', text: 'Mail jane@example.org'})
  })

  it('delete: y deletes; n, Enter and Esc keep it', () => {
    expect(effectsOf(press(s0, 'd', 'y'), 'call')[0]!.call).toMatchObject({kind: 'delete'})
    for (const k of ['n', 'N', KEYS.enter, KEYS.esc]) {
      const r = press(s0, 'd', k)
      expect(r.state.prompt).toBeNull()
      expect(effectsOf(r, 'call')).toEqual([])
    }
  })

  it('deleting the entry shown in full goes back; an error from the API goes to the status line', () => {
    const opened = apply(press(s0, KEYS.enter).state, {type: 'entry', id: e.id, entry: full(e)}).state
    const r = press(opened, 'd', 'y')
    expect(apply(r.state, {type: 'done', call: {kind: 'delete', entry: e}, ok: true, text: 'Deleted'}).state.full).toBeNull()
    const failed = apply(r.state, {type: 'done', call: {kind: 'delete', entry: e}, ok: false, text: 'knowledge entry x does not exist'})
    expect(failed.state.line).toEqual({tone: 'error', text: 'knowledge entry x does not exist'})
    expect(failed.state.full?.id).toBe(e.id)
    expect(effectsOf(failed, 'load')).toHaveLength(1)
  })
})
