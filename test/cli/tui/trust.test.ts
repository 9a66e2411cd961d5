/**
 * Freshness in `kb browse` without Ink or a terminal (docs/tui.md, "Freshness"): the V and F keys and
 * their prompts (reason chooser, withdraw), held like the other entry keys, shown in help and the key
 * line; the list's `stale` badge as a word; the reasons in the detail pane; the full view's freshness row
 * and its "Freshness" and "Anchors" sections; reasons and anchors made safe as they arrive.
 */
import {describe, expect, it} from 'vitest'
import {frame} from '../../../src/cli/tui/frame.js'
import {helpSections, KEY_LINES} from '../../../src/cli/tui/keymap.js'
import {cleanEntry} from '../../../src/cli/tui/load.js'
import {fullLines, standardLines} from '../../../src/cli/tui/lines.js'
import type {State} from '../../../src/cli/tui/state.js'
import {lineText} from '../../../src/cli/tui/styled.js'
import {width} from '../../../src/cli/tui/text.js'
import type {EntryStandard} from '../../../src/shared/types.js'
import {apply, browsing, effectsOf, entry, full, KEYS, press} from './fixtures.js'
import {shortId} from '../../../src/shared/short-id.js'

const NOW = Date.parse('2026-11-20T12:00:00Z')
const screen = (s: State): string => frame(s, NOW).map(lineText).join('\n')
const ctx = {projects: {}, titleOf: () => undefined}

const stale = (title: string, extra: Partial<EntryStandard> = {}): EntryStandard =>
  entry(title, {
    freshness: {
      state: 'stale',
      reasons: [
        {kind: 'anchor_changed', detail: 'anchor src/db/pool.ts:40-62 changed in a1b2c3d', since: '2026-11-17T12:00:00Z'},
        {kind: 'flagged', detail: '1 open flag: 1 incorrect', since: null},
      ],
      verified_at: '2026-11-10T12:00:00Z',
      verified_by: {id: 'p2', name: 'bob'},
    },
    anchors: [
      {
        path: 'src/db/pool.ts',
        lines: '40-62',
        symbol: null,
        commit: 'a1b2c3d',
        hash: null,
        state: 'changed',
        moved_to: null,
        checked_at: '2026-11-17T12:00:00Z',
        checked_commit: 'a1b2c3d',
      },
      {
        path: 'src/db/conn.ts',
        lines: null,
        symbol: 'open',
        commit: null,
        hash: null,
        state: 'current',
        moved_to: null,
        checked_at: null,
        checked_commit: null,
      },
    ],
    flags: {stale: 0, incorrect: 1, duplicate: 0, obsolete: 0},
    confidence: 0.3,
    ...extra,
  })
const fresh = (title: string): EntryStandard =>
  entry(title, {
    freshness: {state: 'fresh', reasons: [], verified_at: null, verified_by: null},
    anchors: [],
    flags: {stale: 0, incorrect: 0, duplicate: 0, obsolete: 0},
  })

describe('V verifies, F flags or withdraws', () => {
  const target = fresh('Pool exhausted')
  const s0 = browsing([target, fresh('Other')])

  it('V asks for an optional note naming the entry; Enter sends it', () => {
    const asked = press(s0, 'V')
    expect(asked.state.prompt).toMatchObject({kind: 'verify', entry: {id: target.id}})
    expect(screen(asked.state)).toContain('Verify "Pool exhausted"')
    expect(screen(asked.state)).toContain(`id ${shortId(target.id)} · global · open · by owner`)
    const sent = press(asked.state, 'worked on Node 22', KEYS.enter)
    expect(effectsOf(sent, 'call')).toEqual([{type: 'call', call: {kind: 'verify', entry: target, note: 'worked on Node 22'}}])
    expect(sent.state.busy).toBe(true)
    expect(effectsOf(press(asked.state, KEYS.enter), 'call')[0]!.call).toMatchObject({kind: 'verify', note: ''})
    expect(press(asked.state, KEYS.esc).state).toMatchObject({prompt: null, line: {text: 'Cancelled'}})
  })

  it('F starts at stale; Tab and Shift-Tab choose the reason, round to withdraw; Enter flags with the note', () => {
    const asked = press(s0, 'F')
    expect(asked.state.prompt).toMatchObject({kind: 'flag', reason: 'stale'})
    expect(screen(asked.state)).toContain('Flag [stale] "Pool exhausted"')
    expect(screen(asked.state)).toContain('Tab stale → incorrect → duplicate → obsolete → withdraw')
    const incorrect = press(asked.state, KEYS.tab, 'option removed in v5', KEYS.enter)
    expect(effectsOf(incorrect, 'call')).toEqual([
      {type: 'call', call: {kind: 'flag', entry: target, reason: 'incorrect', note: 'option removed in v5'}},
    ])
    const cycled = press(asked.state, KEYS.tab, KEYS.tab, KEYS.tab).state.prompt
    expect(cycled).toMatchObject({reason: 'obsolete'})
    const withdraw = press(asked.state, KEYS.backTab)
    expect(withdraw.state.prompt).toMatchObject({reason: 'withdraw'})
    expect(screen(withdraw.state)).toContain('Withdraw your flag on "Pool exhausted"')
    expect(screen(withdraw.state)).not.toContain('Note (optional)')
    expect(effectsOf(press(withdraw.state, KEYS.enter), 'call')).toEqual([{type: 'call', call: {kind: 'unflag', entry: target}}])
    expect(press(withdraw.state, KEYS.tab).state.prompt).toMatchObject({reason: 'stale'})
  })

  it('the answer goes to the status line and the results refresh', () => {
    const busy = press(s0, 'F', KEYS.enter).state
    const call = {kind: 'flag' as const, entry: target, reason: 'stale' as const, note: ''}
    const done = apply(busy, {type: 'done', call, ok: true, text: 'Flagged "Pool exhausted" as stale'})
    expect(done.state).toMatchObject({busy: false, prompt: null, line: {tone: 'ok', text: 'Flagged "Pool exhausted" as stale'}})
    expect(effectsOf(done, 'load')).toHaveLength(1)
  })

  it('work from the full view too, and wait with the other entry keys while results change (q then is a letter)', () => {
    const opened = apply(press(s0, KEYS.enter).state, {type: 'entry', id: target.id, entry: full(target)}).state
    expect(press(opened, 'V').state.prompt?.kind).toBe('verify')
    expect(press(opened, 'F').state.prompt?.kind).toBe('flag')
    const typing = press(s0, '/', 'x', KEYS.enter, 'V', 'q').state
    expect(typing.queue.map((k) => (k.name === 'char' ? k.text : k.name))).toEqual(['V', 'q'])
    expect(typing.quit).toBe(false)
  })

  it('are in the key line and in help', () => {
    expect(KEY_LINES.list).toContain('e r c f p o y d V F act')
    expect(KEY_LINES.full).toContain('e r c f p o y d V F R act')
    const results = helpSections()
      .find((x) => x.title === 'Results')!
      .rows.map(([k]) => k)
    expect(results).toEqual(expect.arrayContaining(['V', 'F']))
    const text = helpSections().find((x) => x.title.startsWith('Text prompts'))!.rows
    expect(text.find(([k]) => k === 'Tab S-Tab')![1]).toContain('flag reason')
  })
})

describe('freshness on screen', () => {
  it('the list shows a stale badge as a word, not colour alone; a fresh row has none', () => {
    const s = browsing([stale('Pool exhausted'), fresh('Port in use')], {size: {columns: 80, rows: 24}})
    const rows = screen(s).split('\n')
    expect(rows.find((l) => l.includes('Pool exhausted'))).toMatch(/Pool exhausted\s+stale\s+open/)
    expect(rows.find((l) => l.includes('Port in use'))).not.toContain('stale')
    // Only the state word (a summary, or an older server's entry without one) reads too.
    const word = browsing([entry('Summary only', {freshness: 'stale'} as never), entry('No freshness')], {size: {columns: 80, rows: 24}})
    expect(screen(word)).toMatch(/Summary only\s+stale/)
  })

  it('the detail pane lists each reason', () => {
    const lines = standardLines(stale('Pool exhausted'), 80, ctx, NOW).map(lineText)
    expect(lines).toContain('stale: anchor src/db/pool.ts:40-62 changed in a1b2c3d')
    expect(lines).toContain('stale: 1 open flag: 1 incorrect')
    expect(standardLines(fresh('Fine'), 80, ctx, NOW).map(lineText).join('\n')).not.toContain('stale')
  })

  it('the full view: a freshness row with who verified it, open flags, then the reasons and the anchors with their states', () => {
    const text = fullLines(full(stale('Pool exhausted')), 100, ctx).lines.map((l) => lineText(l).trimEnd())
    expect(text.find((l) => l.startsWith('freshness'))).toMatch(/^freshness +stale \(2 reasons below\) · verified \S+ ago by bob$/)
    expect(text.find((l) => l.startsWith('flags'))).toMatch(/^flags +1 incorrect \(F flags or withdraws yours\)$/)
    const at = text.indexOf('Freshness')
    expect(text.slice(at + 1, at + 3)).toEqual([
      expect.stringMatching(/^- anchor src\/db\/pool\.ts:40-62 changed in a1b2c3d \(since \S+ ago\)$/),
      '- 1 open flag: 1 incorrect',
    ])
    const anchors = text.indexOf('Anchors (2)')
    expect(text[anchors + 1]).toMatch(/^changed src\/db\/pool\.ts:40-62 · checked \S+ ago$/)
    expect(text[anchors + 2]).toBe('current src/db/conn.ts#open')
    const plain = fullLines(full(fresh('Fine')), 100, ctx).lines.map(lineText)
    expect(plain.find((l) => l.startsWith('freshness'))).toMatch(/^freshness +fresh$/)
    expect(plain).not.toContain('Freshness')
    expect(plain.some((l) => l.startsWith('Anchors'))).toBe(false)
  })

  it('reasons, anchors and the verifier are made safe as they arrive', () => {
    const e = stale('Evil')
    e.freshness.reasons[0]!.detail = 'anchor \u001B]52;c;ZXZpbA==\u0007x.ts changed'
    e.freshness.verified_by = {id: 'p3', name: 'eve\u001B[2J'}
    e.anchors[0]!.path = 'src/\u001B[31mred.ts'
    const clean = cleanEntry(e)
    const all = JSON.stringify([clean.freshness, clean.anchors])
    expect(all).not.toContain('\\u001b')
    expect(clean.freshness.verified_by!.name).toBe('eve')
    expect(clean.anchors[0]!.path).toBe('src/red.ts')
  })

  it('every line fits 120×35, 80×24 and 60×20: a stale list, its detail pane, the full view, the flag prompt', () => {
    const long = stale('Stale entry with a long title that has to be cut somewhere 日本語', {tags: ['db', 'pool']})
    long.freshness.reasons[0]!.detail = `anchor ${'very/deep/'.repeat(12)}pool.ts:40-62 changed in a1b2c3d`
    for (const size of [
      {columns: 120, rows: 35},
      {columns: 80, rows: 24},
      {columns: 60, rows: 20},
    ]) {
      const s = browsing([long, fresh('Fine')], {size})
      const opened = apply(press(s, KEYS.enter).state, {type: 'entry', id: long.id, entry: full(long)}).state
      for (const [what, st] of [
        ['list', s],
        ['full', opened],
        ['full, bottom', press(opened, 'G').state],
        ['flag prompt', press(s, 'F', 'a note').state],
      ] as const) {
        const lines = frame(st, NOW).map(lineText)
        expect(lines.length, `${what} ${size.columns}`).toBe(size.rows - 1)
        for (const l of lines) expect(width(l), `${what} ${size.columns}: ${l}`).toBeLessThanOrEqual(size.columns)
      }
    }
  })
})
