/**
 * @module Ranking past BM25F (docs/search.md, "Ranking past BM25"): a word the query repeats weighs more, saturating
 * (query.ts QTF_K3), each candidate's query likelihood is fused with its BM25F score (likelihood.ts), and the best
 * candidates' scores are regularised towards those of the candidates most like them (regularise.ts); through the API,
 * a repeated word, and resemblance to the best hits, decide between two otherwise equal matches.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {fuse, queryLikelihood} from '../../../server/search/likelihood.js'
import {parseQuery} from '../../../server/search/query.js'
import {REGULARISATION, regularise, wordCounts} from '../../../server/search/regularise.js'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'

const weightOf = (query: string, term: string): number | undefined =>
  parseQuery(query).find((t) => t.kind === 'term' && t.terms.includes(term))?.weight

describe('query-term frequency', () => {
  it('weighs a repeated word (also through another form of it) (k3 + 1)·qtf / (k3 + qtf) times, never twice as much', () => {
    expect(weightOf('bone marrow', 'bone')).toBe(1)
    expect(weightOf('bone marrow bone', 'bone')).toBeCloseTo(4 / 3, 10)
    expect(weightOf('bones, bone development, bone cells', 'bone')).toBeCloseTo(1.5, 10)
    expect(weightOf(Array.from({length: 1000}, () => 'bone').join(' '), 'bone')).toBeLessThan(2)
    expect(weightOf('bone marrow bone', 'marrow')).toBe(1)
    // A code token's part keeps its own smaller weight, saturated the same way.
    expect(weightOf('getUserName user_name', 'user')).toBeCloseTo(0.25 * (4 / 3), 10)
  })
})

describe('query likelihood', () => {
  const terms = [
    {weight: 1, df: 10},
    {weight: 1, df: 500},
  ]
  it('rises with a term’s count, more for a rarer term, and falls with the document’s length', () => {
    const ql = (counts: number[], length: number): number => queryLikelihood(counts, length, terms, 100_000, 3000)
    expect(ql([2, 0], 100)).toBeGreaterThan(ql([1, 0], 100))
    expect(ql([1, 0], 100)).toBeGreaterThan(ql([0, 1], 100))
    expect(ql([1, 0], 100)).toBeGreaterThan(ql([1, 0], 2000))
    // Σ w·(log(1 + tf/(μ·df/tokens)) + log(μ/(len + μ))).
    expect(ql([1, 0], 100)).toBeCloseTo(Math.log(1 + 1 / (3000 * (10 / 100_000))) + 2 * Math.log(3000 / 3100), 10)
  })

  it('is fused scaled to the best candidate’s BM25F; weight 0 keeps BM25F, a likelihood under 0 counts 0', () => {
    expect(fuse([10, 5], [1, 4], 0)).toEqual([10, 5])
    const [a, b] = fuse([10, 5], [1, 4], 0.2)
    expect(a).toBeCloseTo(0.8 * 10 + (0.2 * 10 * 1) / 4, 10)
    expect(b).toBeCloseTo(0.8 * 5 + 0.2 * 10, 10)
    expect(fuse([10, 5], [2, -3], 0.5)).toEqual([10, 2.5])
    // Scaled to the best, not the pool's range: a weaker candidate more or less leaves the others' scores alone.
    expect(fuse([10, 5, 1], [1, 4, 0.5], 0.2).slice(0, 2)).toEqual(fuse([10, 5], [1, 4], 0.2))
  })
})

describe('score regularisation', () => {
  const texts = [
    'vacuum bloat autovacuum index table',
    'vacuum bloat autovacuum index rows',
    'vacuum bloat autovacuum planner index',
    'vacuum bloat index analyze statistics',
    'upload office network stalled router',
    'vacuum autovacuum bloat index pages',
  ]
  const counts = texts.map(wordCounts)

  it('moves an entry like the best hits above an equal one unlike them, and keeps every score within the best’s range', () => {
    const scores = [10, 9, 8, 7, 5, 5]
    const out = regularise(scores, counts, {...REGULARISATION, weight: 0.3, neighbours: 3})
    expect(out[5]).toBeGreaterThan(out[4]!)
    for (const s of out) {
      expect(s).toBeGreaterThanOrEqual(5)
      expect(s).toBeLessThanOrEqual(10)
    }
    // The stray entry shares no word with the others: it keeps its score.
    expect(out[4]).toBe(5)
  })

  it('changes nothing at weight 0 or with fewer than three candidates; compares only the heaviest words', () => {
    expect(regularise([3, 2, 1], counts.slice(0, 3), {...REGULARISATION, weight: 0})).toEqual([3, 2, 1])
    expect(regularise([3, 2], counts.slice(0, 2))).toEqual([3, 2])
    // Compared by their heaviest words only: the first's is `zeta` (the rarest among them), which the second lacks.
    const counted = [
      new Map([
        ['vacuum', 1],
        ['zeta', 1],
      ]),
      new Map([['vacuum', 1]]),
      new Map([['other', 1]]),
    ]
    expect(regularise([10, 5, 5], counted, {...REGULARISATION, words: 1})[1]).toBe(5)
    expect(regularise([10, 5, 5], counted, {...REGULARISATION, words: 2})[1]).toBeGreaterThan(5)
    expect(wordCounts('The vacuum, the VACUUM and an index: a b')).toEqual(
      new Map([
        ['vacuum', 2],
        ['index', 1],
      ]),
    )
  })
})

describe('a repeated word through the API', () => {
  let d: TestDaemon
  const ids: Record<string, string> = {}
  const add = async (name: string, title: string, body: string): Promise<void> => {
    const res = await d.request('POST', '/knowledge', {body: {title, body, scope: 'private'}})
    expect(res.status).toBe(201)
    ids[name] = res.body.id
  }
  const order = async (q: string): Promise<string[]> => {
    const res = await d.request('GET', '/search', {query: {q, limit: 10}})
    expect(res.status).toBe(200)
    return (res.body.items as Array<{id: string}>).map((i) => Object.keys(ids).find((k) => ids[k] === i.id) ?? i.id)
  }

  beforeAll(async () => {
    d = await startInProcessDaemon()
    for (let i = 0; i < 10; i++) await add(`filler${i}`, `Release notes ${i}`, `Changelog entry number ${i} for the desktop client.`)
    // Equal matches of one word each, as rare, as long; the newer wins a tie.
    await add('vacuum', 'Nightly maintenance', 'Run vacuum on the orders table after the import.')
    await add('planner', 'Nightly maintenance', 'Run planner on the orders table after the import.')
  })
  afterAll(async () => {
    await d.stop()
  })

  it('ranks the entry with the word the query repeats first', async () => {
    expect(await order('vacuum planner')).toEqual(['planner', 'vacuum'])
    expect(await order('vacuum planner, vacuum')).toEqual(['vacuum', 'planner'])
  })
})

describe('resemblance to the best hits through the API', () => {
  let d: TestDaemon
  const ids: Record<string, string> = {}
  const add = async (name: string, title: string, body: string): Promise<void> => {
    const res = await d.request('POST', '/knowledge', {body: {title, body, scope: 'private'}})
    expect(res.status).toBe(201)
    ids[name] = res.body.id
  }

  beforeAll(async () => {
    d = await startInProcessDaemon()
    for (let i = 0; i < 10; i++) await add(`filler${i}`, `Release notes ${i}`, `Changelog entry number ${i} for the desktop client.`)
    for (let i = 0; i < 6; i++)
      await add(`strong${i}`, `Queries stuck overnight ${i}`, `Autovacuum fell behind on the orders table; index bloat grew.`)
    // Two equal matches of the query's words in the body; the second is newer, so it comes first unless resemblance counts.
    await add('topical', 'Nightly jobs', 'Stuck overnight again: autovacuum behind, index bloat on orders.')
    await add('offTopic', 'Nightly jobs', 'Stuck overnight again: the upload stalled, office network down.')
  })
  afterAll(async () => {
    await d.stop()
  })

  it('ranks the match that resembles the best hits above an equal match that does not (a two-word query: no feedback)', async () => {
    const res = await d.request('GET', '/search', {query: {q: 'stuck overnight', limit: 10}})
    expect(res.status).toBe(200)
    const ranked = (res.body.items as Array<{id: string}>).map((i) => Object.keys(ids).find((k) => ids[k] === i.id) ?? i.id)
    expect(ranked.slice(0, 6).every((n) => n.startsWith('strong'))).toBe(true)
    expect(ranked.slice(6)).toEqual(['topical', 'offTopic'])
  })
})
