import {copyFileSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {COLLECTIONS} from '../../bench/collections.js'
import {type Baseline, baselinePath, checkRegression, readBaseline, writeBaseline} from '../../bench/regression.js'

const baseline: Baseline = {tolerance: 0.005, ndcg10: {SQLite: {cranfield: 0.397, code: 0.968}, PostgreSQL: {cranfield: 0.396}}}

describe('the search quality regression rule (bench/regression.ts)', () => {
  it('fails a collection that loses more than the tolerance, on the store where it lost it', () => {
    const r = checkRegression(
      [
        {collection: 'cranfield', store: 'SQLite', ndcg10: 0.391},
        {collection: 'cranfield', store: 'PostgreSQL', ndcg10: 0.396},
      ],
      baseline,
    )
    expect(r.failures).toEqual(['cranfield on SQLite: nDCG@10 0.391 is more than 0.005 below the recorded 0.397'])
    expect(r.missing).toEqual([])
  })

  it('passes a loss of the tolerance or less, and says when a figure rose past it', () => {
    const r = checkRegression(
      [
        {collection: 'cranfield', store: 'SQLite', ndcg10: 0.3921},
        {collection: 'code', store: 'SQLite', ndcg10: 0.98},
      ],
      baseline,
    )
    expect(r.failures).toEqual([])
    expect(r.risen).toEqual(['code on SQLite: nDCG@10 0.980 is above the recorded 0.968'])
  })

  it('names a measured collection without a recorded figure, and does not judge one not measured', () => {
    const r = checkRegression([{collection: 'med', store: 'SQLite', ndcg10: 0.7}], baseline)
    expect(r.missing).toEqual(['med on SQLite: nDCG@10 0.700 has no recorded figure'])
    expect(r.failures).toEqual([])
  })

  it('has a committed figure for each of kb’s own collections on both stores (they are always measured)', () => {
    const committed = readBaseline()
    expect(committed.tolerance).toBe(0.005)
    for (const store of ['SQLite', 'PostgreSQL'])
      for (const name of COLLECTIONS) expect(committed.ndcg10[store]?.[name]).toBeGreaterThan(0.5)
  })

  const dir = mkdtempSync(join(tmpdir(), 'kb-baseline-'))
  afterAll(() => rmSync(dir, {recursive: true, force: true}))
  it('records a run’s figures at three decimals, keeping the others', () => {
    const path = join(dir, 'baseline.json')
    copyFileSync(baselinePath(), path)
    const before = readBaseline(path)
    writeBaseline([{collection: 'code', store: 'SQLite', ndcg10: 0.97149}], path)
    const after = readBaseline(path)
    expect(after.ndcg10.SQLite!.code).toBe(0.971)
    expect(after.ndcg10.PostgreSQL).toEqual(before.ndcg10.PostgreSQL)
  })
})
