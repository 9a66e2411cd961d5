/**
 * The MCP text rendering of freshness and anchors (docs/mcp.md, "Freshness, verify and flag"): the state word
 * of a summary, the reasons, verification and anchors of a standard or full entry, and the summary budget kept.
 */
import {countTokens} from 'gpt-tokenizer/encoding/o200k_base'
import {describe, expect, it} from 'vitest'
import {entryText} from '../../src/shared/mcp/render.js'
import type {EntryStandard, EntrySummary} from '../../src/shared/types.js'

const ID = '0199aaaa-bbbb-7ccc-8ddd-000000000001'

const standard = (extra: Partial<EntryStandard> = {}): EntryStandard => ({
  id: ID,
  title: 'Pool exhausted under load',
  body: 'Raise max in src/db/pool.ts.',
  status: 'open',
  tags: ['db'],
  scope: 'project',
  url: null,
  project_id: null,
  author: {id: 'p1', name: 'ann'},
  forked_from: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  version: 1,
  comment_count: 0,
  freshness: {
    state: 'stale',
    reasons: [
      {kind: 'anchor_changed', detail: 'anchor src/db/pool.ts:40-62 changed in a1b2c3d', since: '2026-11-20T10:00:00.000Z'},
      {kind: 'flagged', detail: '1 open flag: 1 incorrect', since: '2026-11-21T10:00:00.000Z'},
    ],
    verified_at: '2026-02-03T00:00:00.000Z',
    verified_by: {id: 'p2', name: 'bob'},
  },
  anchors: [
    {
      path: 'src/db/pool.ts',
      lines: '40-62',
      symbol: null,
      commit: 'a1b2c3d4e5f6',
      hash: null,
      state: 'changed',
      moved_to: null,
      checked_at: '2026-11-20T10:00:00.000Z',
      checked_commit: 'a1b2c3d',
    },
    {
      path: 'src/db/conn.ts',
      lines: null,
      symbol: 'open',
      commit: null,
      hash: null,
      state: 'unknown',
      moved_to: null,
      checked_at: null,
      checked_commit: null,
    },
  ],
  flags: {stale: 0, incorrect: 1, duplicate: 0, obsolete: 0},
  confidence: 0.3,
  superseded_by: null,
  usage: {retrieved: 0, last_retrieved_at: null},
  ...extra,
})

describe('MCP text rendering of freshness', () => {
  it('a stale entry at standard: the state in its header, each reason, who verified it, each anchor with its state', () => {
    const text = entryText(standard(), 'standard')
    const lines = text.split('\n')
    expect(lines[0]).toBe(`${ID} — Pool exhausted under load [open · stale · project · tags db]`)
    expect(text).toContain(
      'Stale:\n- anchor src/db/pool.ts:40-62 changed in a1b2c3d (since 2026-11-20)\n- 1 open flag: 1 incorrect (since 2026-11-21)',
    )
    expect(text).toContain('Verified 2026-02-03 by bob')
    expect(text).toContain('Anchors:\n- src/db/pool.ts:40-62 (changed, checked 2026-11-20)\n- src/db/conn.ts#open (unknown)')
  })

  it('a fresh entry says so and lists no reasons', () => {
    const text = entryText(
      standard({freshness: {state: 'fresh', reasons: [], verified_at: null, verified_by: null}, anchors: []}),
      'standard',
    )
    expect(text.split('\n')[0]).toContain('[open · fresh · project')
    expect(text).not.toMatch(/Stale:|Anchors:|Verified/)
  })

  it('a summary carries the state word alone, and stays within the summary budget', () => {
    const summary: EntrySummary = {id: ID, title: 'Pool exhausted', body: 'word '.repeat(300), status: 'open', freshness: 'stale'}
    const text = entryText(summary, 'summary')
    expect(text.split('\n')[0]).toBe(`${ID} — Pool exhausted [open · stale]`)
    expect(countTokens(text, {disallowedSpecial: new Set()})).toBeLessThanOrEqual(100)
  })
})
