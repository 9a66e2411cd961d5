/**
 * @module Search under hostile input: 100,000-character queries (parsed directly; the API caps a query at
 * QUERY_MAX) and 100,000-character bodies of the shapes that make naive tokenizers, phrase matchers and
 * snippet builders quadratic, written, searched (with explain) and deleted through the HTTP API. Each
 * step must finish in time linear in its input; the bounds are generous for a loaded machine and still
 * far below what a quadratic step takes at this size (minutes).
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parseQuery} from '../../../server/search/query.js'
import {QUERY_MAX} from '../../../src/shared/contract.js'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'

const N = 100_000
/** Text shapes of N characters. */
const SHAPES: Record<string, string> = Object.fromEntries(
  Object.entries({
    'one word': 'a'.repeat(N),
    'camel humps': 'aB'.repeat(N / 2),
    capitals: 'A'.repeat(N),
    'snake parts': 'a_'.repeat(N / 2),
    'scoped parts': 'a::'.repeat(N / 3),
    'dotted digits': '1.'.repeat(N / 2),
    'repeated word': 'a '.repeat(N / 2),
    'distinct words': Array.from({length: N / 8}, (_, i) => `w${i.toString(36).padStart(6, 'x')}`).join(' '),
    'mixed code': 'getUserName_v2::src/app.ts '.repeat(N / 27),
    'accents and CJK': 'Fußgänger数据库デプロイ한글 '.repeat(N / 19),
    'spaces then a word': `${' '.repeat(N - 1)}b`,
  }).map(([name, text]) => [name, text.slice(0, N)]),
)

async function timed<T>(work: () => Promise<T> | T): Promise<{value: T; ms: number}> {
  const started = performance.now()
  const value = await work()
  return {value, ms: performance.now() - started}
}

describe('queries of 100,000 characters', () => {
  it.each(Object.entries(SHAPES))('%s: parsed in linear time into a bounded set of terms', async (_name, text) => {
    const {value, ms} = await timed(() => parseQuery(text))
    expect(ms).toBeLessThan(3_000)
    expect(value.length).toBeLessThanOrEqual(64)
  })
})

describe('bodies of 100,000 characters through the API', () => {
  let d: TestDaemon
  const ids: string[] = []
  beforeAll(async () => {
    d = await startInProcessDaemon()
  })
  afterAll(async () => {
    await d.stop()
  })

  it('each shape is written, found with explain and deleted, each request in time', async () => {
    for (const [name, body] of Object.entries(SHAPES)) {
      const {value: created, ms} = await timed(() => d.request('POST', '/knowledge', {body: {title: name, body, scope: 'global'}}))
      expect(created.status, created.text).toBe(201)
      expect(ms, `create ${name}`).toBeLessThan(10_000)
      ids.push(created.body.id)
    }
    // Queries as long as the API allows, of the same shapes: phrases of many parts, every word matching.
    const queries = [
      ...Object.values(SHAPES)
        .map((s) => s.slice(0, QUERY_MAX).trim())
        .filter((q) => q !== ''),
      'a',
      'a_a_a_a',
      'aqauriums getUsrName',
    ]
    for (const q of queries) {
      const {value: r, ms} = await timed(() => d.request('GET', '/search', {query: {q, explain: true, limit: 100}}))
      expect(r.status, r.text).toBe(200)
      expect(ms, `search ${JSON.stringify(q.slice(0, 20))}`).toBeLessThan(15_000)
    }
    const repeated = await d.request('GET', '/search', {query: {q: 'a_a', explain: true}})
    expect(repeated.body.items[0].snippet).toMatch(/^…«a a a( a)*»…$/) // overlapping phrase matches merge
    for (const id of ids) {
      const {value: r, ms} = await timed(() => d.request('DELETE', `/knowledge/${id}`))
      expect(r.status).toBe(204)
      expect(ms).toBeLessThan(10_000)
    }
  }, 300_000)
})
