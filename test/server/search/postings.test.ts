/**
 * @module PostgreSQL's search postings (server/store/postgres-postings.ts) stay exactly what the entries' vectors say
 * through every write, the totals counted from them are the GIN index's, and their functions keep a term's best
 * postings and its bits as docs/search.md describes.
 */
import pg from 'pg'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {indexTerms} from '../../../server/search/tokenizer.js'
import {TOP_MAX} from '../../../server/store/postgres-postings.js'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {postingsMismatches} from '../../helpers/postings.js'
import {useCluster} from '../../helpers/postgres.js'
import {requireSystem} from '../../helpers/system.js'

requireSystem('postgres').describe('PostgreSQL search postings', () => {
  const cluster = useCluster()
  let d: TestDaemon
  let url = ''

  beforeAll(async () => {
    url = await cluster().createDatabase()
    d = await startInProcessDaemon({storeUrl: url})
  })
  afterAll(async () => {
    await d?.stop()
  })

  async function sql(text: string, params: unknown[] = []): Promise<Array<Record<string, any>>> {
    const client = new pg.Client(url)
    await client.connect()
    try {
      return (await client.query(text, params)).rows
    } finally {
      await client.end()
    }
  }

  const create = async (title: string, body: string, tags: string[] = []): Promise<string> => {
    const res = await d.request('POST', '/knowledge', {body: {title, body, tags}})
    expect(res.status).toBe(201)
    return res.body.id as string
  }

  it('follow creates, edits, re-tags and deletes, and the totals they count match', async () => {
    const heron = await create('Heron queue stalls', 'The heron worker stalls when the queue is full. Heron heron.', ['queue'])
    const egret = await create('Egret retries', 'Retries back off; the queue drains.')
    const ibis = await create('Ibis cache', 'The cache keeps every key.', ['cache'])
    await create('Stork', 'Nothing about birds of the queue.')
    expect(await postingsMismatches((text) => sql(text))).toEqual([])

    expect((await d.request('PATCH', `/knowledge/${heron}`, {body: {body: 'Now about the cache only.'}})).status).toBe(200)
    expect((await d.request('PATCH', `/knowledge/${egret}`, {body: {tags: ['queue', 'backoff']}})).status).toBe(200)
    expect((await d.request('PATCH', `/knowledge/${ibis}`, {body: {title: 'Ibis cache evicts'}})).status).toBe(200)
    expect((await d.request('DELETE', `/knowledge/${egret}`)).status).toBe(204)
    expect(await postingsMismatches((text) => sql(text))).toEqual([])
    expect(await sql(`SELECT count(*)::int AS n FROM search_postings WHERE chunk = -1 AND 'egret' = term`)).toEqual([{n: 1}])
    expect(await sql(`SELECT cardinality(seqs) AS n FROM search_postings WHERE chunk = -1 AND term = 'egret'`)).toEqual([{n: 0}])

    // The total is counted from the postings for a caller who sees every entry; the GIN index says the same.
    for (const q of ['queue', 'cache heron', 'stalls birds', 'retries']) {
      const res = await d.request('GET', '/search', {query: {q}})
      const terms = q.split(' ').flatMap((w) => indexTerms(w).map((t) => `'${t}'`))
      const [gin] = await sql(`SELECT count(*)::int AS n FROM entries WHERE search @@ $1::tsquery`, [terms.join(' | ')])
      expect(res.body.total, q).toBe(gin!.n)
    }
  })

  it("keep a full list's best postings by impact, and set and clear bits alike one by one and in bulk", async () => {
    // kb_top_merge over TOP_MAX + 200 postings: the TOP_MAX of highest impact stay, best first, the floor their lowest.
    const n = TOP_MAX + 200
    const seqs = Array.from({length: n}, (_, i) => i + 1)
    const tfs = seqs.map((s) => 1 + (s % 7))
    const lens = seqs.map((s) => 10 + ((s * 37) % 300))
    const [m] = await sql('SELECT * FROM kb_top_merge($1::int8[], $2::int4[], $3::int4[], $4::int8[], $5::int4[], $6::int4[], 50)', [
      [],
      [],
      [],
      seqs,
      tfs,
      lens,
    ])
    const impact = (i: number): number => tfs[i]! / (tfs[i]! + 1.2 * (0.25 + (0.75 * lens[i]!) / 50))
    const best = seqs
      .map((s, i) => ({s, imp: impact(i)}))
      .sort((a, b) => b.imp - a.imp || b.s - a.s)
      .slice(0, TOP_MAX)
    expect(m!.seqs.map(Number)).toEqual(best.map((b) => b.s))
    expect(m!.floor).toBeCloseTo(best.at(-1)!.imp, 12)

    // Bits set and cleared one by one and in bulk (past 16 a row) give the same bitmap.
    const zero = '0'.repeat(64)
    const offs = Array.from({length: 40}, (_, i) => (i * 7) % 64)
    const [one] = await sql(`SELECT kb_bits_apply($1::varbit, $2::int4[], $3::bool[])::text AS b`, [
      zero,
      offs.slice(0, 10),
      offs.slice(0, 10).map(() => true),
    ])
    const [bulk] = await sql(`SELECT kb_bits_apply($1::varbit, $2::int4[], $3::bool[])::text AS b`, [
      zero,
      offs,
      offs.map((_, i) => i < 10),
    ])
    const expected = [...zero].map((_, i) => (offs.slice(0, 10).includes(i) && !offs.slice(10).includes(i) ? '1' : '0')).join('')
    expect(one!.b).toBe([...zero].map((_, i) => (offs.slice(0, 10).includes(i) ? '1' : '0')).join(''))
    expect(bulk!.b).toBe(expected)
  })
})
