/**
 * @module Pseudo-relevance feedback (server/search/feedback.ts, docs/search.md "Ranking past BM25"): the relevance
 * model of the best hits, and through the API, an entry that shares the best hits' topic rising above an equal
 * match that does not; short queries and lookups keep their ranking.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {IndexTerm} from '../../../server/search/driver.js'
import {expansionTerms, FEEDBACK, relevanceModel} from '../../../server/search/feedback.js'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'

const term = (t: string): IndexTerm => ({terms: [t], phrase: false, df: 1, weight: 1})

describe('the relevance model of the feedback documents', () => {
  it('weighs words by their share of each document and the document’s share of the relevance; leaves out query terms, stop words, numbers and words of one document', () => {
    const model = relevanceModel(
      [
        {text: 'vacuum the index 2024 vacuum', relevance: 3},
        {text: 'index bloat after vacuum', relevance: 1},
        {text: 'the vacuum of an index', relevance: 1},
      ],
      [term('index')],
      2,
    )
    expect(model.map((m) => m.term)).toEqual(['vacuum'])
    // 2/5 × 3/5 + 1/4 × 1/5 + 1/5 × 1/5 (the tokens: every word counts towards a document's length).
    expect(model[0]!.weight).toBeCloseTo(0.24 + 0.05 + 0.04, 10)
  })

  it('keeps the telling expansion terms: in more than one entry, at most the common share, weighted by idf', () => {
    const out = expansionTerms(
      [
        {term: 'vacuum', weight: 0.3},
        {term: 'common', weight: 0.5},
        {term: 'once', weight: 0.4},
      ],
      [10, 900, 1],
      1000,
    )
    expect(out.map((t) => t.terms[0])).toEqual(['vacuum'])
    expect(out[0]!.weight).toBeCloseTo(FEEDBACK.weight, 10)
  })
})

describe('feedback through the API', () => {
  let d: TestDaemon
  const ids: Record<string, string> = {}
  const add = async (name: string, title: string, body: string): Promise<void> => {
    const res = await d.request('POST', '/knowledge', {body: {title, body, scope: 'private'}})
    expect(res.status).toBe(201)
    ids[name] = res.body.id
  }
  const order = async (q: string): Promise<string[]> => {
    const res = await d.request('GET', '/search', {query: {q, limit: 20}})
    expect(res.status).toBe(200)
    return (res.body.items as Array<{id: string}>).map((i) => Object.keys(ids).find((k) => ids[k] === i.id) ?? i.id)
  }

  beforeAll(async () => {
    d = await startInProcessDaemon()
    // Filler the query does not match, so that the topic's words are rare in the store.
    for (let i = 0; i < 60; i++) await add(`filler${i}`, `Release notes ${i}`, `Changelog entry number ${i} for the desktop client.`)
    for (let i = 0; i < 9; i++)
      await add(
        `strong${i}`,
        `Slow postgres queries ${i}`,
        `The planner skipped the index until a vacuum; slow postgres queries again after bulk loads.`,
      )
    // Two equal matches of one query word; the second is newer, so it comes first unless the topic counts.
    await add('topical', 'Queries stuck overnight', 'Autovacuum fell behind: run vacuum and rebuild the index.')
    await add('offTopic', 'Queries stuck overnight', 'The upload stalled when the office network went down.')
  })
  afterAll(async () => {
    await d.stop()
  })

  it('ranks an entry that shares the best hits’ topic above an equal match that does not', async () => {
    const ranked = await order('slow postgres queries planner')
    expect(ranked.slice(0, 9).every((n) => n.startsWith('strong'))).toBe(true)
    expect(ranked.indexOf('topical')).toBeLessThan(ranked.indexOf('offTopic'))
  })

  it('leaves a query of fewer words than FEEDBACK.minQueryWords as BM25F ranks it (ties to the newer entry)', async () => {
    expect(FEEDBACK.minQueryWords).toBe(3)
    const ranked = await order('stuck overnight')
    expect(ranked.slice(0, 2)).toEqual(['offTopic', 'topical'])
  })
})
