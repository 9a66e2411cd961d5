/**
 * @module server/services/freshness.ts (docs/search.md, "Freshness and confidence"): the reasons an entry is stale,
 * the age floor of 0.7, verification raising confidence, anything stale below any fresh twin, determinism.
 */
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {CONFIDENCE_AGE_FLOOR} from '../../../src/shared/contract.js'
import type {Anchor} from '../../../src/shared/types.js'
import {confidence, freshness, freshnessReasons, type TrustFields} from '../../../server/services/freshness.js'

const NOW = Date.parse('2026-06-01T00:00:00.000Z')
const daysAgo = (n: number): string => new Date(NOW - n * 86_400_000).toISOString()
const ctx = {now: NOW}

const anchor = (state: Anchor['state'], o: Partial<Anchor> = {}): Anchor => ({
  path: 'src/db/pool.ts',
  lines: '40-62',
  symbol: null,
  commit: 'a1b2c3d',
  hash: 'a'.repeat(64),
  state,
  moved_to: null,
  checked_at: daysAgo(3),
  checked_commit: 'e5f6a7b8c9d0',
  ...o,
})

function row(o: Partial<TrustFields> = {}): TrustFields {
  return {
    anchors: [],
    flags: {stale: 0, incorrect: 0, duplicate: 0, obsolete: 0},
    flagged_at: null,
    verified_at: null,
    verified_by: null,
    verifications: [],
    corrections: 0,
    updated_at: daysAgo(1),
    ...o,
  }
}

describe('freshnessReasons', () => {
  it('is empty for a recent entry; a moved anchor or a duplicate flag is no reason', () => {
    expect(freshnessReasons(row(), ctx)).toEqual([])
    expect(freshnessReasons(row({anchors: [anchor('moved'), anchor('current'), anchor('unknown')]}), ctx)).toEqual([])
    expect(freshnessReasons(row({flags: {stale: 0, incorrect: 0, duplicate: 2, obsolete: 0}}), ctx)).toEqual([])
    expect(freshness(row(), ctx)).toEqual({state: 'fresh', reasons: [], verified_at: null, verified_by: null})
  })

  it('names changed and deleted anchors with the commit, open flags, then age, in that order', () => {
    const e = row({
      anchors: [anchor('changed'), anchor('deleted', {path: 'src/gone.ts', lines: null, symbol: 'connect'})],
      flags: {stale: 1, incorrect: 2, duplicate: 1, obsolete: 0},
      flagged_at: daysAgo(2),
      updated_at: daysAgo(200),
    })
    expect(freshnessReasons(e, ctx)).toEqual([
      {kind: 'anchor_changed', detail: 'anchor src/db/pool.ts:40-62 changed in e5f6a7b', since: daysAgo(3)},
      {kind: 'anchor_deleted', detail: 'anchor src/gone.ts#connect was deleted in e5f6a7b', since: daysAgo(3)},
      {kind: 'flagged', detail: '3 open flags: 1 stale, 2 incorrect', since: daysAgo(2)},
      {kind: 'unverified', detail: 'not verified in 200 days (the project asks every 180)', since: daysAgo(20)},
    ])
    expect(freshness(e, ctx).state).toBe('stale')
  })

  it("follows the project's verify_after_days (0 = never) and counts from the last verification or edit", () => {
    const old = row({updated_at: daysAgo(400)})
    expect(freshnessReasons(old, {now: NOW, verifyAfterDays: 0})).toEqual([])
    expect(freshnessReasons(old, {now: NOW, verifyAfterDays: 500})).toEqual([])
    expect(freshnessReasons(old, {now: NOW, verifyAfterDays: 30}).map((r) => r.kind)).toEqual(['unverified'])
    expect(freshnessReasons({...old, verified_at: daysAgo(10)}, {now: NOW, verifyAfterDays: 30})).toEqual([])
  })
})

describe('confidence', () => {
  it('never goes below 0.7 for age alone, however old and whatever the setting', () => {
    fc.assert(
      fc.property(fc.integer({min: 0, max: 20_000}), fc.integer({min: 0, max: 3650}), (age, after) => {
        const c = confidence(row({updated_at: daysAgo(age)}), {now: NOW, verifyAfterDays: after})
        expect(c).toBeGreaterThanOrEqual(CONFIDENCE_AGE_FLOOR)
        expect(c).toBeLessThanOrEqual(1)
      }),
    )
    expect(confidence(row({updated_at: daysAgo(3650)}), ctx)).toBe(0.7)
  })

  it('a verified entry scores higher than the same entry unverified; more verifiers, higher still', () => {
    const old = row({updated_at: daysAgo(300)})
    const once = {...old, verified_at: daysAgo(5), verifications: [{principal_id: 'a', at: daysAgo(5)}]}
    const twice = {...once, verifications: [...once.verifications, {principal_id: 'b', at: daysAgo(100)}]}
    expect(confidence(once, ctx)).toBeGreaterThan(confidence(old, ctx))
    // A recent entry is at the top already: more verifiers cannot pass 1.
    const aged = {...old, verified_at: daysAgo(90), verifications: [{principal_id: 'a', at: daysAgo(90)}]}
    const agedTwice = {...aged, verifications: [...aged.verifications, {principal_id: 'b', at: daysAgo(95)}]}
    expect(confidence(agedTwice, ctx)).toBeGreaterThan(confidence(aged, ctx))
    expect(confidence(twice, ctx)).toBeLessThanOrEqual(1)
  })

  it('puts anything stale below any fresh twin: a changed or deleted anchor, a stale-making flag', () => {
    const freshest = confidence(row(), ctx)
    const oldestFresh = confidence(row({updated_at: daysAgo(179)}), ctx)
    expect(oldestFresh).toBeLessThan(freshest)
    for (const stale of [
      row({anchors: [anchor('changed')]}),
      row({anchors: [anchor('deleted')]}),
      row({flags: {stale: 1, incorrect: 0, duplicate: 0, obsolete: 0}, flagged_at: daysAgo(1)}),
      row({flags: {stale: 0, incorrect: 0, duplicate: 0, obsolete: 1}, flagged_at: daysAgo(1)}),
    ]) {
      expect(confidence(stale, ctx)).toBeLessThan(CONFIDENCE_AGE_FLOOR)
      expect(confidence(stale, ctx)).toBeLessThan(oldestFresh)
    }
    // More flags weigh more, down to a bound; a duplicate flag and corrections only a little.
    const flagged = (n: number): number =>
      confidence(row({flags: {stale: n, incorrect: 0, duplicate: 0, obsolete: 0}, flagged_at: daysAgo(1)}), ctx)
    expect(flagged(2)).toBeLessThan(flagged(1))
    expect(flagged(9)).toBeGreaterThan(0)
    expect(confidence(row({flags: {stale: 0, incorrect: 0, duplicate: 1, obsolete: 0}}), ctx)).toBeGreaterThan(0.9)
    expect(confidence(row({corrections: 2}), ctx)).toBeLessThan(freshest)
    expect(confidence(row({corrections: 30}), ctx)).toBe(confidence(row({corrections: 3}), ctx))
  })

  it('is deterministic: the same row and clock give the same value, rounded to three places', () => {
    fc.assert(
      fc.property(
        fc.integer({min: 0, max: 5000}),
        fc.integer({min: 0, max: 4}),
        fc.integer({min: 0, max: 5}),
        (age, flags, corrections) => {
          const e = row({updated_at: daysAgo(age), flags: {stale: flags, incorrect: 0, duplicate: 0, obsolete: 0}, corrections})
          const c = confidence(e, ctx)
          expect(confidence(structuredClone(e), {...ctx})).toBe(c)
          expect(Math.round(c * 1000) / 1000).toBe(c)
          expect(freshness(e, ctx)).toEqual(freshness(structuredClone(e), ctx))
        },
      ),
    )
  })
})
