/**
 * The reducer, in every place (search box, results, full view, help, each prompt, the findings review): Esc backs out one step
 * and never quits; q quits outside text fields; Ctrl-C quits from everywhere; ? opens help over any place
 * but the text fields and returns to it; help scrolls.
 */
import {describe, expect, it} from 'vitest'
import {frame} from '../../../src/cli/tui/frame.js'
import {placeOf} from '../../../src/cli/tui/reduce.js'
import type {State} from '../../../src/cli/tui/state.js'
import {lineText} from '../../../src/cli/tui/styled.js'
import {apply, browsing, effectsOf, entry, full, KEYS, press} from './fixtures.js'

const items = Array.from({length: 30}, (_, i) => entry(`Entry ${String(i + 1).padStart(2, '0')}`))
const screen = (s: State): string => frame(s, Date.parse('2026-11-20T12:00:00Z')).map(lineText).join('\n')

/** Every place with a prompt or view open, for the keys that must work in all of them. */
function everyPlace(): [string, State][] {
  const e = entry('Somewhere', {scope: 'private'})
  const list = browsing([e])
  const opened = apply(press(list, KEYS.enter).state, {type: 'entry', id: e.id, entry: full(e)}).state
  return [
    ['search box', press(list, '/').state],
    ['results', list],
    ['full view', opened],
    ['help', press(list, '?').state],
    ['help over the full view', press(opened, '?').state],
    ['resolve prompt', press(list, 'r').state],
    ['comment prompt', press(list, 'c').state],
    ['fork prompt', press(list, 'f').state],
    ['publish prompt', press(list, 'p').state],
    ['delete prompt', press(list, 'd').state],
    ['findings review', reviewing(list)],
  ]
}

/** The review of findings a publish of the selected entry would share. */
function reviewing(list: State): State {
  const asked = press(list, 'p', KEYS.enter)
  const call = effectsOf(asked, 'preview')[0]!.call
  const finding = {id: '0123456789abcdef', field: 'body', kind: 'email', label: 'email address', category: 'personal' as const}
  const at = {start: 0, end: 9, line: 1, column: 1, excerpt: 'jane…'}
  const preview = {scope: call.scope, findings: [{...finding, ...at}], findings_total: 1, diff: [], redacted: {}}
  return apply(asked.state, {type: 'previewed', call, preview}).state
}
describe('leaving and backing out, in every place', () => {
  it('Ctrl-C quits from everywhere, text fields and prompts included', () => {
    for (const [where, s] of everyPlace()) {
      const r = press(s, KEYS.ctrlC)
      expect(r.state.quit, where).toBe(true)
      expect(effectsOf(r, 'quit'), where).toHaveLength(1)
    }
  })

  it('q quits outside text fields; in the search box and text prompts it is a letter', () => {
    for (const [where, s] of everyPlace()) {
      const r = press(s, 'q')
      const text = ['search box', 'resolve prompt', 'comment prompt', 'fork prompt'].includes(where)
      expect(r.state.quit, where).toBe(!text)
      if (where === 'search box') expect(r.state.query).toBe('q')
      if (text && where !== 'search box') expect(r.state.prompt).toMatchObject({text: 'q'})
    }
  })

  it('q quits from a prompt while its action is on its way (Working…); other keys wait for the answer', () => {
    for (const [where, s] of everyPlace()) {
      if (!s.prompt || ['resolve prompt', 'comment prompt', 'fork prompt'].includes(where)) continue
      const busy = {...s, busy: true}
      expect(press(busy, KEYS.esc).state, where).toEqual(busy)
      const r = press(busy, 'q')
      expect(r.state.quit, where).toBe(true)
      expect(effectsOf(r, 'quit'), where).toHaveLength(1)
    }
  })

  it('Esc never quits: it closes a prompt, help, the full view, the search box, then clears the query', () => {
    for (const [where, s] of everyPlace()) {
      const r = press(s, KEYS.esc)
      expect(r.state.quit, where).toBe(false)
      expect(effectsOf(r, 'quit'), where).toEqual([])
    }
    const list = browsing(items, {})
    expect(press(list, 'c', KEYS.esc).state.prompt).toBeNull()
    expect(press(list, '?', KEYS.esc).state.help).toBeNull()
    expect(press(list, KEYS.enter, KEYS.esc).state.full).toBeNull()
    // In the results with a query: Esc clears it (a new question); without one it only says how to quit.
    const searched = {...list, query: 'port'}
    const cleared = press(searched, KEYS.esc)
    expect(cleared.state.query).toBe('')
    expect(effectsOf(cleared, 'load')).toHaveLength(1)
    const twice = press(list, KEYS.esc, KEYS.esc, KEYS.esc)
    expect(twice.state.quit).toBe(false)
    expect(twice.state.line?.text).toContain('q or Ctrl-C quits')
  })

  it('? opens help from the results, the full view and the publish and delete prompts, and returns there', () => {
    for (const [where, s] of everyPlace()) {
      if (['search box', 'resolve prompt', 'comment prompt', 'fork prompt'].includes(where) || where.startsWith('help')) continue
      const opened = press(s, '?').state
      expect(opened.help, where).not.toBeNull()
      expect(placeOf(opened), where).toBe('help')
      const back = press(opened, KEYS.esc).state
      expect(back.help, where).toBeNull()
      expect(placeOf(back), where).toBe(placeOf(s))
      expect(back.prompt, where).toEqual(s.prompt)
      expect(back.full?.id, where).toBe(s.full?.id)
    }
  })
})
describe('help', () => {
  it('scrolls (j, k, PgDn, G, g) and only Esc, ? and Enter close it', () => {
    const s = press({...browsing(items), size: {columns: 80, rows: 24}}, '?').state
    expect(screen(s)).toContain('↓ more')
    const down = press(s, 'j', 'j', KEYS.down).state
    expect(down.help).toEqual({scroll: 3})
    expect(press(down, 'k').state.help).toEqual({scroll: 2})
    const end = press(s, 'G').state
    expect(end.help!.scroll).toBeGreaterThan(10)
    expect(screen(end)).not.toContain('↓ more')
    expect(press(end, 'g').state.help).toEqual({scroll: 0})
    for (const k of ['x', 'r', 'd', '/']) expect(press(s, k).state.help, k).not.toBeNull()
    for (const k of [KEYS.esc, '?', KEYS.enter]) expect(press(s, k).state.help, k).toBeNull()
  })
})
