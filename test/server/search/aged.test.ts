/**
 * @module An old corpus keeps its ranking (docs/search.md, "Freshness and confidence"): Cranfield imported into one
 * daemon as written today and into another as written three years ago. Age alone multiplies every score by the same
 * factor (≥ 0.7), so every query returns the same hits in the same order and nDCG@10 does not move. Skipped when the
 * collection is absent.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {evaluate, importIntoKb, loadCranfield} from '../../../bench/cranfield.js'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'

const cranfield = loadCranfield()
const THREE_YEARS_MS = 3 * 365 * 86_400_000
const QUERIES = 100

describe.skipIf(!cranfield)('Cranfield, three years old', () => {
  let today: TestDaemon
  let old: TestDaemon
  let byEntry: Map<string, string>
  beforeAll(async () => {
    ;[today, old] = await Promise.all([startInProcessDaemon(), startInProcessDaemon()])
    byEntry = await importIntoKb({url: today.url, key: today.ownerKey}, cranfield!.docs, new Date().toISOString())
    await importIntoKb({url: old.url, key: old.ownerKey}, cranfield!.docs, new Date(Date.now() - THREE_YEARS_MS).toISOString())
  }, 120_000)
  afterAll(async () => {
    await today?.stop()
    await old?.stop()
  })

  it('every entry is stale as unverified, at the age floor, and the rankings and nDCG@10 are those of the new corpus', async () => {
    const sample = (await old.request('GET', '/knowledge', {query: {limit: 1}})).body.items[0]
    expect(sample.freshness.reasons.map((r: any) => r.kind)).toEqual(['unverified'])
    expect(sample.confidence).toBeGreaterThanOrEqual(0.7)
    expect(sample.confidence).toBeLessThan((await today.request('GET', '/knowledge', {query: {limit: 1}})).body.items[0].confidence)
    const queries = cranfield!.queries.slice(0, QUERIES)
    for (const q of queries.slice(0, 30)) {
      const ids = async (d: TestDaemon): Promise<string[]> =>
        (await d.request('GET', '/search', {query: {q: q.text, limit: 10}})).body.items.map((i: any) => i.id)
      expect(await ids(old), q.text).toEqual(await ids(today))
    }
    const [fresh, aged] = [
      await evaluate({url: today.url, key: today.ownerKey}, cranfield!, byEntry, queries),
      await evaluate({url: old.url, key: old.ownerKey}, cranfield!, byEntry, queries),
    ]
    expect(aged.queries).toBe(QUERIES)
    expect(aged.ndcg10).toBe(fresh.ndcg10)
    expect(aged.mrr10).toBe(fresh.mrr10)
    expect(aged.ndcg10).toBeGreaterThan(0.36)
    // 260 searches on each driver: 22 s on PostgreSQL in a quiet CI run, twice that on a loaded machine.
  }, 120_000)
})
