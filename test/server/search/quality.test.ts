/**
 * @module Search quality: stemming, typo tolerance, accent folding and field weighting through the HTTP
 * API; the TypeScript re-ranker's agreement with FTS5's tokenizer; the large-store paths (common terms);
 * and a reduced Cranfield run (the collection lives outside the project; that part skips without it).
 */
import Database from 'better-sqlite3'
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {evaluate, loadCranfield, loadIntoStore} from '../../../bench/cranfield.js'
import {dataFiles} from '../../../src/shared/paths.js'
import {Bm25fScorer, idf} from '../../../server/search/bm25f.js'
import {porterStem} from '../../../server/search/porter.js'
import {stemOf} from '../../../server/search/stem.js'
import {indexTerms} from '../../../server/search/tokenizer.js'
import {openSqliteStore} from '../../../server/store/sqlite.js'
import {startInProcessDaemon, tempDir, type TestDaemon} from '../../helpers/daemon.js'
import {entryRow} from '../../../bench/entry-row.js'

type Item = {id: string; title: string; score: number; matched?: {fields: string[]; terms: string[]}; snippet?: string}

describe('search through the API', () => {
  let d: TestDaemon
  const ids: Record<string, string> = {}
  const add = async (name: string, entry: {title: string; body: string; tags?: string[]}): Promise<void> => {
    const res = await d.request('POST', '/knowledge', {body: {...entry, scope: 'global'}})
    expect(res.status).toBe(201)
    ids[name] = res.body.id
  }
  const search = async (q: string, extra: Record<string, string | number | boolean> = {}): Promise<{items: Item[]; total: number}> => {
    const res = await d.request('GET', '/search', {query: {q, ...extra}})
    expect(res.status).toBe(200)
    return res.body
  }
  const names = (items: Item[]): string[] => items.map((i) => Object.keys(ids).find((k) => ids[k] === i.id) ?? i.id)

  beforeAll(async () => {
    d = await startInProcessDaemon()
    await add('crashes', {title: 'Daemon crashes on start', body: 'Seen after the upgrade to Node 22.'})
    await add('crashed', {title: 'Worker problem', body: 'The worker crashed twice while the queue drained.'})
    await add('kube', {title: 'Kubernetes ingress returns 502', body: 'The ingress controller had no endpoints.'})
    await add('cafe', {title: 'Café menu encoding', body: 'Résumé: the naïve parser broke the accents.'})
    await add('inTitle', {title: 'Postgres deadlock', body: 'Two transactions waited on each other, so the migration hung for an hour.'})
    await add('inBody', {title: 'Slow migration', body: 'The migration hung for an hour: a postgres deadlock between two transactions.'})
    await add('inTags', {title: 'Hung migration', body: 'Two transactions waited on each other for an hour.', tags: ['postgres']})
    await add('other', {title: 'Unrelated note', body: 'Nothing about databases here.'})
  })
  afterAll(async () => {
    await d.stop()
  })

  it('stems: crash finds crashes and crashed', async () => {
    const r = await search('crash')
    expect(names(r.items).sort()).toEqual(['crashed', 'crashes'])
    expect(r.total).toBe(2)
    expect(names((await search('crashing')).items).sort()).toEqual(['crashed', 'crashes'])
  })

  it('tolerates one typo in a longer word', async () => {
    expect(names((await search('kubernetse')).items)).toEqual(['kube']) // swap
    expect(names((await search('kubernets')).items)).toEqual(['kube']) // deletion
    expect(names((await search('ingres controler')).items)).toEqual(['kube']) // several words, each with a typo
    expect(names((await search('crashign')).items).sort()).toEqual(['crashed', 'crashes']) // typo in a suffix the stemmer drops
    // Short words are not corrected: too many neighbours (the trailing space: a finished word, not one being typed).
    expect((await search('nod ')).total).toBe(0)
  })

  it('folds case and accents both ways', async () => {
    expect(names((await search('cafe')).items)).toEqual(['cafe'])
    expect(names((await search('CAFÉ résumé')).items)).toEqual(['cafe'])
    expect(names((await search('naive')).items)).toEqual(['cafe'])
  })

  it('ranks a title match above a tags match above a body match', async () => {
    const r = await search('postgres')
    expect(names(r.items)).toEqual(['inTitle', 'inTags', 'inBody'])
    expect(r.items[0]!.score).toBeGreaterThan(r.items[1]!.score)
    expect(r.items[1]!.score).toBeGreaterThan(r.items[2]!.score)
  })

  it('ranks entries matching more of a question first (any-term matching, stop words ignored)', async () => {
    const r = await search('why did the migration hang in a postgres deadlock?')
    expect(names(r.items).slice(0, 2).sort()).toEqual(['inBody', 'inTitle'])
    expect(names(r.items)[2]).toBe('inTags') // migration and postgres, no deadlock
    expect(r.total).toBe(3)
  })

  it('explains matches', async () => {
    const r = await search('deadlock', {explain: true})
    const top = r.items[0]!
    expect(names([top])).toEqual(['inTitle'])
    expect(top.matched!.fields).toEqual(['title'])
    expect(top.matched!.terms).toEqual(['deadlock'])
    const body = r.items.find((i) => i.id === ids.inBody)!
    expect(body.matched!.fields).toEqual(['body'])
    expect(body.snippet).toContain('«deadlock»')
  })
})

describe('the index and the re-ranker', () => {
  it('stem exactly as the FTS5 porter tokenizer does (porter.ts is its port)', () => {
    const words = [
      'crashes',
      'crashed',
      'crashing',
      'caresses',
      'ponies',
      'ties',
      'agreed',
      'feed',
      'plastered',
      'motoring',
      'sing',
      'conflated',
      'troubled',
      'sized',
      'hopping',
      'tanned',
      'falling',
      'hissing',
      'fizzed',
      'failing',
      'filing',
      'happy',
      'sky',
      'relational',
      'conditional',
      'valenci',
      'digitizer',
      'conformabli',
      'radicalli',
      'differentli',
      'vileli',
      'analogousli',
      'vietnamization',
      'predication',
      'operator',
      'feudalism',
      'decisiveness',
      'hopefulness',
      'callousness',
      'formaliti',
      'sensitiviti',
      'sensibiliti',
      'triplicate',
      'formative',
      'formalize',
      'electriciti',
      'electrical',
      'hopeful',
      'goodness',
      'revival',
      'allowance',
      'inference',
      'airliner',
      'gyroscopic',
      'adjustable',
      'defensible',
      'irritant',
      'replacement',
      'adjustment',
      'dependent',
      'adoption',
      'homologou',
      'communism',
      'activate',
      'angulariti',
      'homologous',
      'effective',
      'bowdlerize',
      'probate',
      'rate',
      'cease',
      'controll',
      'roll',
      'generalizations',
      'oscillators',
      'aeroelastic',
      'typescript',
      'kubernetes',
      'eaddrinuse',
      'node22',
      '1950s',
      'ies',
      'sses',
      'eed',
      'logically',
      'archaeology',
      'naive',
      'cafe',
      'a',
      'is',
      'yes',
      'by',
      'x'.repeat(70),
      'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxing',
    ]
    const db = new Database(':memory:')
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row');`)
    const insert = db.prepare('INSERT INTO t (x) VALUES (?)')
    const vocab = db.prepare('SELECT term FROM v').pluck()
    for (const w of words) {
      db.exec('DELETE FROM t')
      insert.run(w)
      expect([w, porterStem(w)]).toEqual([w, vocab.get()])
    }
    db.close()
  })

  it("hold exactly the tokenizer's terms, whatever FTS5 would make of them", async () => {
    const text =
      'Café CRASHED twice; naïve re-runs of node_modules/.bin failed (EADDRINUSE 127.0.0.1:7411) in src/app.ts — 文字化け, Fußgänger.'
    const dir = tempDir('kb-index-terms-')
    const store = openSqliteStore({path: join(dir, 'kb.sqlite')})
    try {
      await store.insertPrincipal({id: 'p', name: 'p', role: 'owner', created_at: '2024-01-01T00:00:00.000Z'})
      await store.insertEntry(
        entryRow({
          id: 'e',
          title: 'x',
          body: text,
          summary_title: 'x',
          author: {id: 'p', name: 'p'},
          created_at: '2024-01-01T00:00:00.000Z',
          updated_at: '2024-01-01T00:00:00.000Z',
        }),
      )
      const held = store.db.prepare(`SELECT term FROM entries_vocab WHERE term != 'x'`).pluck().all() as string[]
      expect(held.sort()).toEqual([...new Set(indexTerms(text))].sort())
      expect(held).toEqual(
        expect.arrayContaining([
          'node_modules/.bin',
          '127.0.0.1:7411',
          '127.0.0.1',
          'app.ts',
          '字化',
          stemOf('fussganger'),
          stemOf('fussgaenger'),
        ]),
      )
    } finally {
      await store.close()
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('scores more occurrences, rarer terms and shorter fields higher', () => {
    const stats = {docs: 1000, avgLength: {title: 6, tags: 2, body: 100}}
    const term = (word: string, df: number): {terms: string[]; phrase: boolean; df: number; weight: number} => ({
      terms: [stemOf(word)],
      phrase: false,
      df,
      weight: 1,
    })
    const scorer = new Bm25fScorer([term('deadlock', 10), term('migration', 500)], stats)
    const doc = (title: string, body: string): {title: string; tags: string; body: string} => ({title, tags: '', body})
    const filler = ' word'.repeat(50)
    expect(scorer.score(doc('x', `deadlock deadlock${filler}`))).toBeGreaterThan(scorer.score(doc('x', `deadlock${filler}`)))
    expect(scorer.score(doc('x', `deadlock${filler}`))).toBeGreaterThan(scorer.score(doc('x', `migration${filler}`)))
    expect(scorer.score(doc('x', 'deadlock'))).toBeGreaterThan(scorer.score(doc('x', `deadlock${filler}${filler}`)))
    expect(scorer.score(doc('deadlock', filler))).toBeGreaterThan(scorer.score(doc('x', `deadlock${filler}`)))
    expect(scorer.score(doc('nothing', filler))).toBe(0)
    expect(idf(999, 1000)).toBeGreaterThan(0)
  })
})

describe('search on a larger store', () => {
  const dir = tempDir('kb-search-large-')
  const store = openSqliteStore({path: join(dir, 'kb.sqlite')})
  const owner = {id: 'p-owner', name: 'owner'}
  const other = {id: 'p-other', name: 'other'}
  const viewer = {principalId: owner.id}
  const N = 12_000
  beforeAll(async () => {
    await store.insertPrincipal({...owner, role: 'owner', created_at: '2024-01-01T00:00:00.000Z'})
    await store.insertPrincipal({...other, role: 'member', created_at: '2024-01-01T00:00:00.000Z'})
    // Every entry says "error"; one in a hundred says "timeout"; one says "zeppelin"; one is another's private.
    store.db.transaction(() => {
      for (let i = 0; i < N; i++) {
        const title = i === 7 ? 'zeppelin error' : i % 100 === 0 ? `timeout number ${i}` : `note ${i}`
        const body = `an error happened in step ${i}${i % 100 === 0 ? ' after a timeout' : ''}`
        const at = new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString()
        const author = i === 9 ? other : owner
        void store.insertEntry(
          entryRow({
            id: `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`,
            title,
            body,
            scope: i === 9 ? 'private' : 'global',
            author,
            created_at: at,
          }),
        )
      }
    })()
  })
  afterAll(async () => {
    await store.close()
    rmSync(dir, {recursive: true, force: true})
  })
  const search = (query: string, limit = 10, filter = {}): ReturnType<typeof store.searchEntries> =>
    store.searchEntries(viewer, filter, {query, limit, explain: false})

  it('puts the rare term first when a query mixes it with one every entry has', async () => {
    const r = await search('zeppelin error ')
    expect(r.hits[0]!.entry.title).toBe('zeppelin error')
    expect(r.total).toBe(N - 1) // the other principal's private entry is neither found nor counted
    expect(r.hits).toHaveLength(10)
  })

  it('answers a query of common terms only, title matches first, and counts them all', async () => {
    const r = await search('error ', 20)
    expect(r.total).toBe(N - 1)
    expect(r.hits).toHaveLength(20)
    expect(r.hits[0]!.entry.title).toBe('zeppelin error')
    const scores = r.hits.map((h) => h.score)
    expect([...scores].sort((a, b) => b - a)).toEqual(scores)
  })

  it('ranks by the rarer term and keeps filters exact', async () => {
    const r = await search('timeout error ', 50)
    expect(r.hits.slice(0, N / 100).every((h) => h.entry.title.startsWith('timeout'))).toBe(true)
    expect(r.total).toBe(N - 1)
    const filtered = await search('timeout ', 5, {scope: 'global'})
    expect(filtered.total).toBe(N / 100)
    expect(filtered.hits).toHaveLength(5)
  })

  it('counts as the other principal sees it', async () => {
    const r = await store.searchEntries({principalId: other.id}, {}, {query: 'error', limit: 5, explain: false})
    expect(r.total).toBe(N) // the owner's entries are global; its own private one counts for it
  })

  it("neither finds nor counts project entries outside the viewer's projects, until it joins", async () => {
    const at = '2025-01-01T00:00:00.000Z'
    await store.createProject({
      id: 'proj-a',
      name: 'a',
      remote: 'example.com/a',
      created_by: other.id,
      created_at: at,
      verify_after_days: 180,
    })
    const entry = (id: string, projectId: string): Parameters<typeof store.insertEntry>[0] =>
      entryRow({
        id,
        title: 'zeppelin in a project',
        body: 'error',
        summary_title: '',
        scope: 'project',
        project_id: projectId,
        author: other,
        created_at: at,
      })
    await store.insertEntry(entry('10000000-0000-7000-8000-000000000001', 'proj-a'))
    // A project id without a projects row must not slip through either.
    await store.insertEntry(entry('10000000-0000-7000-8000-000000000002', 'proj-gone'))
    expect((await search('zeppelin ')).total).toBe(1)
    expect((await search('error ')).total).toBe(N - 1)
    await store.addMember('proj-a', owner.id, 'member', at)
    const r = await search('zeppelin ')
    expect(r.total).toBe(2)
    expect(r.hits.map((h) => h.entry.project_id)).toContain('proj-a')
    expect((await search('error ')).total).toBe(N)
  })
})

const cranfield = loadCranfield()

describe.skipIf(!cranfield)('Cranfield, reduced (first 100 queries, documents loaded through the driver)', () => {
  let d: TestDaemon
  let byEntry: Map<string, string>
  const dir = tempDir('kb-cranfield-')
  beforeAll(async () => {
    // The daemon bootstraps its owner; the collection goes in through the driver while it is stopped.
    const first = await startInProcessDaemon({dataDir: dir})
    await first.stop()
    const store = openSqliteStore({path: dataFiles(dir).db})
    const owner = store.db.prepare(`SELECT id, name FROM principals WHERE role = 'owner'`).get() as {id: string; name: string}
    byEntry = await loadIntoStore(store, cranfield!.docs, owner)
    await store.close()
    d = await startInProcessDaemon({dataDir: dir})
  })
  afterAll(async () => {
    await d?.stop()
    rmSync(dir, {recursive: true, force: true})
  })

  it('keeps nDCG@10 and MRR@10 at the measured level', async () => {
    const r = await evaluate({url: d.url, key: d.ownerKey}, cranfield!, byEntry, cranfield!.queries.slice(0, 100))
    expect(r.queries).toBe(100)
    // Measured on these 100 queries: nDCG@10 0.368, MRR@10 0.530; FTS5's bm25() alone (title ×4, the
    // previous ranking) gets 0.356 and 0.522. The floors sit between, with room for tie order only.
    expect(r.ndcg10).toBeGreaterThanOrEqual(NDCG_FLOOR)
    expect(r.mrr10).toBeGreaterThanOrEqual(MRR_FLOOR)
  })
})

const NDCG_FLOOR = 0.362
const MRR_FLOOR = 0.525
