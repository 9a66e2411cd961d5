/**
 * @module Search is the same on both drivers: the same entries written through HTTP to a daemon on SQLite and
 * one on PostgreSQL, and the same queries — plain words, stems, accents, typos, completion of the word being
 * typed, code tokens (whole and by part, versions, error codes), CJK words, German spellings, query syntax as
 * text, filters, visibility, explain — give the same hits in the same order
 * with the same scores and totals, and the same matched fields and words. The PostgreSQL index is written from
 * the shared tokenizer and its statistics kept to match FTS5's, so anything else is a bug.
 */
import {afterAll, beforeAll, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {useCluster} from '../../helpers/postgres.js'
import {requireSystem} from '../../helpers/system.js'

const ENTRIES: Array<{title: string; body: string; tags?: string[]; scope?: string; by?: 'bob'}> = [
  {
    title: 'Daemon fails to start: EADDRINUSE on port 7411',
    body: 'Another process held the port. `lsof -i :7411` showed a stale kb daemon.',
    tags: ['daemon', 'port'],
  },
  {
    title: 'Connection pool exhausted',
    body: 'Set max_idle_conns to 10 and max_open_conns to 50; the pool stopped running dry.',
    tags: ['postgres'],
  },
  {title: 'Slow migration', body: 'The migration hung for an hour: a postgres deadlock between two transactions.'},
  {title: 'Hung migration', body: 'Two transactions waited on each other for an hour.', tags: ['postgres']},
  {title: 'Café crashed on naïve résumé parsing', body: 'Unicode normalisation (NFKD) before comparing fixed it.'},
  {title: 'getUserName returns undefined', body: 'get_user_name in the Python client returns None when the session expired.'},
  {title: 'Build breaks in src/server/app.ts', body: 'An import of node:http was typed as node:https; foo.bar() was undefined.'},
  {title: 'Crashes, crashing and crashed', body: 'Stemming should match every form: crash, crashes, crashing.'},
  {
    title: 'Timeouts under load',
    body: 'The reverse proxy timed out after 60 s while the import was still running.',
    tags: ['proxy', 'nginx'],
  },
  {
    title: 'Deadlock detected',
    body: 'ERROR: deadlock detected. Process 123 waits for ShareLock on transaction 456.',
    tags: ['postgres', 'locks'],
  },
  {title: 'Private note on rotation', body: 'Rotate the staging password every month.', scope: 'private', by: 'bob'},
  {title: 'Memory leak in the watcher', body: 'The file watcher kept every path it ever saw; a WeakRef cache fixed the leak.'},
  // Code, CJK and German (docs/search.md, "Tokens").
  {title: 'デプロイ後に文字化けする', body: 'サーバーのロケールが POSIX のままだった。UTF-8 BOM 付き CSV で直った。'},
  {title: '数据库连接池耗尽导致服务超时', body: '报表查询占用连接，max_idle_conns 太小。'},
  {title: '배포 후 한글이 깨지는 문제', body: '컨테이너에 로케일이 설치되어 있지 않았다.'},
  {title: 'Fußgängerzone-Dienst liefert 502', body: 'Der Health-Check zeigte auf den falschen Pfad.'},
  {
    title: 'Node v20.19.0 loads ES modules with require',
    body: 'connect ECONNREFUSED 127.0.0.1:5432, then error[E0432] in tokio::spawn; XMLHttpRequest is not defined; see ERR_REQUIRE_ESM.',
    tags: ['node-20'],
  },
]

const QUERIES = [
  'port',
  'daemon crash',
  'crashes',
  'crash',
  'cafe resume',
  'CAFÉ',
  'deadlock postgres',
  'why did the migration hang in a postgres deadlock?',
  'max_idle_conns',
  'max_idle',
  'getUserName',
  'get_user_name',
  'src/server/app.ts',
  'node:http',
  'foo.bar()',
  'EADDRINUSE',
  'daemo',
  'migr',
  'deadlok',
  'migratoin',
  'transactoins hour',
  'NOT found AND "quoted" OR x* col:val NEAR(a b)',
  'the',
  'rotation password',
  'leak watcher',
  'proxy timeout',
  'nginx',
  'zzzzzz',
  '日本語',
  '文字化け',
  'デプロイ',
  '付き CSV',
  '服务超时',
  '连接池',
  '한글',
  '로케일',
  'fussgaengerzone',
  'fussgangerzone',
  'Fußgängerzone',
  'Dienst 502',
  '20.19',
  'v20.19.0',
  'node 20.19',
  'ECONNREFUSED',
  '127.0.0.1:5432',
  '5432',
  'E0432',
  'tokio::spawn',
  'spawn',
  'XMLHttpRequest',
  'request',
  'user',
  'ERR_REQUIRE_ESM',
  'node-20',
]
/** The queries above that find nothing the owner may see. */
const NOTHING = ['NOT found AND "quoted" OR x* col:val NEAR(a b)', 'rotation password', 'zzzzzz', '日本語']

requireSystem('postgres').describe('search on SQLite and on PostgreSQL', () => {
  const cluster = useCluster()
  let sqlite: TestDaemon
  let postgres: TestDaemon
  const bob: Record<string, string> = {}
  /** Entry ids in both stores, by position in ENTRIES (the stores mint their own ids). */
  const ids: Array<{sqlite: string; postgres: string}> = []

  beforeAll(async () => {
    sqlite = await startInProcessDaemon()
    postgres = await startInProcessDaemon({storeUrl: await cluster().createDatabase()})
    for (const [name, d] of [
      ['sqlite', sqlite],
      ['postgres', postgres],
    ] as const)
      bob[name] = await newPrincipal(d, 'bob')
    for (const e of ENTRIES) {
      const body = {title: e.title, body: e.body, tags: e.tags ?? [], scope: e.scope ?? 'global'}
      const made = await Promise.all(
        [sqlite, postgres].map((d, i) =>
          d.request('POST', '/knowledge', {body, ...(e.by ? {key: bob[i === 0 ? 'sqlite' : 'postgres']} : {})}),
        ),
      )
      ids.push({sqlite: made[0]!.body.id, postgres: made[1]!.body.id})
    }
    // An edit and a deletion, so the statistics have followed more than inserts.
    await Promise.all(
      [sqlite, postgres].map((d, i) =>
        d.request('PATCH', `/knowledge/${ids[11]![i === 0 ? 'sqlite' : 'postgres']}`, {
          body: {body: 'The file watcher kept every path; a WeakRef cache fixed the memory leak.'},
        }),
      ),
    )
  }, 120_000)
  afterAll(async () => {
    await Promise.all([sqlite?.stop(), postgres?.stop()])
  })

  /** A search on both, with the entries named by their position in ENTRIES. */
  async function both(
    query: Record<string, string | number | boolean>,
    key?: 'bob',
  ): Promise<Array<{total: number; items: Array<Record<string, unknown>>}>> {
    return Promise.all(
      [sqlite, postgres].map(async (d, i) => {
        const name = i === 0 ? 'sqlite' : 'postgres'
        const res = await d.request('GET', '/search', {query: {detail: 'summary', limit: 20, ...query}, ...(key ? {key: bob[name]} : {})})
        expect(res.status, res.text).toBe(200)
        const position = new Map(ids.map((x, k) => [x[name], k]))
        return {
          total: res.body.total,
          items: res.body.items.map((it: Record<string, unknown>) => ({
            entry: position.get(it.id as string),
            score: it.score,
            ...(it.matched ? {matched: it.matched} : {}),
          })),
        }
      }),
    )
  }

  it('ranks every query alike, with the same scores and totals', async () => {
    for (const q of QUERIES) {
      const [a, b] = await both({q})
      expect(b, `query ${JSON.stringify(q)}`).toEqual(a)
    }
    // Not vacuous: every query finds something but those that should not.
    const totals = await Promise.all(QUERIES.map(async (q) => (await both({q}))[0]!.total))
    expect(QUERIES.filter((_, i) => totals[i] === 0)).toEqual(NOTHING)
  })

  it('explains alike: the same matched fields and words, snippets marking the same words', async () => {
    for (const q of [
      'deadlock',
      'max_idle_conns',
      'crashes',
      'cafe',
      'proxy nginx',
      'migratoin',
      '文字化け',
      '한글',
      'fussgaenger',
      'tokio::spawn',
      '20.19',
    ]) {
      const [a, b] = await both({q, explain: true})
      expect(b, q).toEqual(a)
    }
    const [, pg] = await Promise.all([sqlite, postgres].map((d) => d.request('GET', '/search', {query: {q: 'deadlock', explain: true}})))
    expect(pg!.body.items.some((it: {snippet: string}) => it.snippet.includes('«deadlock»'))).toBe(true)
  })

  it('filters and visibility alike', async () => {
    for (const [query, key] of [
      [{q: 'postgres', tag: 'postgres'}],
      [{q: 'rotation'}],
      [{q: 'rotation'}, 'bob'],
      [{q: 'password', scope: 'private'}, 'bob'],
    ] as const) {
      const [a, b] = await both(query as Record<string, string>, key)
      expect(b, JSON.stringify(query)).toEqual(a)
    }
    const [asOwner] = await both({q: 'rotation'})
    expect(asOwner!.total).toBe(0)
  })
})
