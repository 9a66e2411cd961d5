/**
 * @module Freshness in the CLI's output: the FRESH badge is a word (so it survives NO_COLOR and pipes),
 * the last column piped; kb show's reason lines say what, where and how long ago; `--anchor`/`--remove-anchor`
 * edits build the whole anchor set PATCH replaces.
 */
import {describe, expect, it} from 'vitest'
import {entryRows, renderEntry, searchRows, type OutputMode} from '../../../src/cli/output/format.js'
import {ago, trustRows} from '../../../src/cli/output/trust.js'
import {patchFor} from '../../../src/cli/outbox/edit-intent.js'
import type {Anchor, EntryView} from '../../../src/shared/types.js'

const NOW = Date.parse('2026-11-27T12:00:00Z')
const anchor = (over: Partial<Anchor>): Anchor => ({
  path: 'src/db/pool.ts',
  lines: '40-62',
  symbol: null,
  commit: 'a'.repeat(40),
  hash: 'b'.repeat(64),
  state: 'current',
  moved_to: null,
  checked_at: null,
  checked_commit: null,
  ...over,
})
const stale = {
  id: '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980',
  title: 'Pool leaks on reconnect',
  body: 'text',
  status: 'open',
  scope: 'project',
  updated_at: '2026-11-20T12:00:00Z',
  freshness: {
    state: 'stale',
    reasons: [{kind: 'anchor_changed', detail: 'anchor src/db/pool.ts:40-62 changed in a1b2c3d', since: '2026-11-24T12:00:00Z'}],
    verified_at: null,
    verified_by: null,
  },
  anchors: [anchor({state: 'changed', checked_commit: 'a1b2c3d4e5'}), anchor({path: 'src/x.ts', lines: null, symbol: 'connect'})],
  flags: {stale: 1, incorrect: 0, duplicate: 0, obsolete: 0},
} as unknown as EntryView
const fresh = {
  id: '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7981',
  title: 'Fresh one',
  body: 'b',
  status: 'open',
  freshness: 'fresh',
  score: 1,
} as EntryView
const tty: OutputMode = {tty: true, color: false, width: 100}
const pipe: OutputMode = {tty: false, color: false, width: 80}

describe('freshness badge', () => {
  it('is a FRESH column after STATUS on a terminal, and the last column piped', () => {
    const t = entryRows([stale, fresh], tty).split('\n')
    expect(t[0]).toMatch(/^ID\s+STATUS\s+FRESH\s+SCOPE\s+TITLE\s+UPDATED$/)
    expect(t[1]).toMatch(/open\s+stale\s+project\s+Pool leaks/)
    expect(t[2]).toMatch(/open\s+fresh\s+Fresh one/)
    const p = entryRows([stale, fresh], pipe)
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'))
    expect(p.map((r) => [r[0], r.at(-1)])).toEqual([
      [stale.id, 'stale'],
      [fresh.id, 'fresh'],
    ])
    expect(searchRows([fresh], tty)).toMatch(/^ID\s+SCORE\s+STATUS\s+FRESH\s+TITLE\n/)
    // On 80 columns kb list folds the badge into the title (the date alone in UPDATED) and fits.
    const narrow = entryRows([stale, fresh], {...tty, width: 80})
      .trimEnd()
      .split('\n')
    expect(narrow[0]).toMatch(/^ID\s+STATUS\s+SCOPE\s+TITLE\s+UPDATED$/)
    expect(narrow[1]).toMatch(/open\s+project\s+\[stale\] Pool/)
    expect(narrow[2]).not.toContain('[stale]')
    for (const l of narrow) expect(l.length, l).toBeLessThanOrEqual(80)
    expect(
      searchRows([stale, fresh], {...tty, width: 80})
        .trimEnd()
        .split('\n')
        .every((l) => l.length <= 80),
    ).toBe(true)
    expect(searchRows([fresh], pipe).trimEnd().split('\t')).toEqual([fresh.id, '1.00', 'open', 'Fresh one', 'fresh'])
  })
})

describe('kb show', () => {
  it('says why an entry is stale, how long ago, and lists its anchors and open flags', () => {
    const rows = trustRows(stale, NOW)
    expect(rows).toEqual([
      ['freshness', 'stale'],
      ['stale', 'anchor src/db/pool.ts:40-62 changed in a1b2c3d, 3 days ago'],
      ['flags', '1 stale'],
      ['anchor', 'src/db/pool.ts:40-62 (changed at a1b2c3d)'],
      ['anchor', 'src/x.ts#connect (current)'],
    ])
    const piped = renderEntry(stale, pipe)
    expect(piped).toContain('freshness:\tstale\n')
    expect(piped).toMatch(/^stale:\tanchor src\/db\/pool\.ts:40-62 changed in a1b2c3d, \d+ days? ago$/m)
    expect(renderEntry(stale, tty)).toMatch(/^stale +anchor src\/db\/pool\.ts:40-62 changed in a1b2c3d/m)
  })

  it('words time spans as people do', () => {
    expect(ago('2026-11-27T11:59:30Z', NOW)).toBe('just now')
    expect(ago('2026-11-27T10:00:00Z', NOW)).toBe('2 hours ago')
    expect(ago('2026-11-26T12:00:00Z', NOW)).toBe('1 day ago')
    expect(ago('2025-11-01T12:00:00Z', NOW)).toBe('1 year ago')
  })
})

describe('anchor edits', () => {
  const current = {tags: [], anchors: [anchor({}), anchor({path: 'src/x.ts', lines: null, symbol: 'connect', state: 'changed'})]}
  it('adds, replaces and removes anchors in the whole set PATCH sends', () => {
    const added = {path: 'README.md', lines: null, symbol: null, commit: 'c'.repeat(40), hash: 'd'.repeat(64)}
    const p = patchFor(current, {
      entry_id: 'x',
      set: {},
      add_anchors: [added],
      remove_anchors: [{path: 'src/x.ts', lines: null, symbol: null}],
    })
    expect(p.anchors).toEqual([{path: 'src/db/pool.ts', lines: '40-62', symbol: null, commit: 'a'.repeat(40), hash: 'b'.repeat(64)}, added])
    // The same place again: re-anchored (new commit and hash), not doubled.
    const again = patchFor(current, {entry_id: 'x', set: {}, add_anchors: [{...anchor({}), commit: 'e'.repeat(40), hash: 'f'.repeat(64)}]})
    expect(again.anchors).toHaveLength(2)
    expect(again.anchors![0]).toMatchObject({commit: 'e'.repeat(40), hash: 'f'.repeat(64)})
    expect(patchFor(current, {entry_id: 'x', set: {title: 't'}})).toEqual({title: 't'})
  })
})
