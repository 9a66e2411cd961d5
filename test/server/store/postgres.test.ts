/**
 * @module The PostgreSQL driver: the Store and idempotency contracts, unchanged, on a fresh database per test, and what only a
 * shared database asks of it: migrations applied once under an advisory lock by stores opening together, a
 * newer schema refused, one owner bootstrapped by racing daemons, and search counters that stay exact.
 */
import {randomUUID} from 'node:crypto'
import pg from 'pg'
import {KbError} from '../../../src/shared/errors.js'
import {describe, expect, it} from 'vitest'
import {openPostgresStore, type PostgresStore} from '../../../server/store/postgres.js'
import {POSTGRES_MIGRATIONS} from '../../../server/store/postgres-migrations.js'
import {PostgresDb} from '../../../server/store/postgres-db.js'
import type {ApiKeyRow, EntryRow, PrincipalRecord} from '../../../server/store/store.js'
import {useCluster} from '../../helpers/postgres.js'
import {requireSystem} from '../../helpers/system.js'
import {runStoreContract} from './contract.js'
import {runIdempotencyContract} from './idempotency-contract.js'
import {runTrustContract} from './trust-contract.js'
import {runMembersContract} from './members-contract.js'
import {runImportContract} from './import-contract.js'

const system = requireSystem('postgres')

system.describe('PostgreSQL driver', () => {
  const cluster = useCluster()

  runStoreContract('postgres', async () => openPostgresStore({url: await cluster().createDatabase()}))
  runTrustContract('postgres', async () => openPostgresStore({url: await cluster().createDatabase()}))
  runMembersContract('postgres', async () => openPostgresStore({url: await cluster().createDatabase()}))
  runImportContract('postgres', async () => openPostgresStore({url: await cluster().createDatabase()}))

  // Idempotency-Key records live in the shared database, so every daemon of a team server sees the same ones.
  let lastUrl = ''
  runIdempotencyContract(
    'postgres',
    async () => openPostgresStore({url: (lastUrl = await cluster().createDatabase())}),
    async () => openPostgresStore({url: lastUrl}),
  )

  async function sql<T = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
    const client = new pg.Client(url)
    await client.connect()
    try {
      return (await client.query(text, params)).rows as T[]
    } finally {
      await client.end()
    }
  }

  it('runs the reads every request makes as prepared statements; a schema changed under one costs a retry, not an error', async () => {
    const url = await cluster().createDatabase()
    // One connection: the statements it prepared are the ones pg_prepared_statements lists.
    const db = new PostgresDb({url, poolSize: 1})
    try {
      await db.run('CREATE TABLE t (id integer PRIMARY KEY, a text)')
      await db.run("INSERT INTO t VALUES (1, 'x')")
      const text = 'SELECT * FROM t WHERE id = $1'
      db.prepare([text])
      expect(await db.query(text, [1])).toEqual([{id: 1, a: 'x'}])
      expect(await db.query('SELECT statement FROM pg_prepared_statements')).toEqual([{statement: text}])
      // Another daemon migrates: the prepared plan's columns changed, which PostgreSQL refuses to run (0A000).
      await sql(url, 'ALTER TABLE t ADD COLUMN b text')
      expect(await db.query(text, [1])).toEqual([{id: 1, a: 'x', b: null}])
      expect(await db.query(text, [1])).toEqual([{id: 1, a: 'x', b: null}])
    } finally {
      await db.close()
    }
  })

  describe('migrations', () => {
    it('stores opening together on an empty database migrate it once, to the latest version', async () => {
      const url = await cluster().createDatabase()
      const stores = await Promise.all(Array.from({length: 4}, () => openPostgresStore({url})))
      try {
        expect(await sql(url, 'SELECT version FROM kb_schema')).toEqual([{version: POSTGRES_MIGRATIONS.length}])
        expect(await Promise.all(stores.map((s) => s.countPrincipals()))).toEqual([0, 0, 0, 0])
      } finally {
        for (const s of stores) await s.close()
      }
      // Reopening changes nothing.
      const again = await openPostgresStore({url})
      await again.close()
      expect(await sql(url, 'SELECT version FROM kb_schema')).toEqual([{version: POSTGRES_MIGRATIONS.length}])
    })

    it('a database at an older version is brought up to date, keeping its data', async () => {
      const url = await cluster().createDatabase()
      await sql(url, `CREATE TABLE kb_schema (version integer NOT NULL); INSERT INTO kb_schema VALUES (1); ${POSTGRES_MIGRATIONS[0]}`)
      await sql(url, `INSERT INTO principals VALUES ('0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7981', 'owner', 'owner', '2026-01-01T00:00:00.000Z')`)
      const s = await openPostgresStore({url})
      try {
        expect(await s.countPrincipals()).toBe(1)
        expect(await sql(url, 'SELECT version FROM kb_schema')).toEqual([{version: POSTGRES_MIGRATIONS.length}])
      } finally {
        await s.close()
      }
    })

    it('refuses a database written by a newer kb', async () => {
      const url = await cluster().createDatabase()
      await sql(url, `CREATE TABLE kb_schema (version integer NOT NULL); INSERT INTO kb_schema VALUES (${POSTGRES_MIGRATIONS.length + 1})`)
      await expect(openPostgresStore({url})).rejects.toThrow(/newer kb/)
    })
  })

  describe('a database that does not answer in time', () => {
    it('is 503 unavailable with Retry-After after the statement timeout, not a hang, and the store goes on', async () => {
      const url = await cluster().createDatabase()
      const store = await openPostgresStore({url, statementTimeoutMs: 500})
      const locker = new pg.Client(url)
      await locker.connect()
      try {
        await locker.query('BEGIN')
        await locker.query('LOCK TABLE principals IN ACCESS EXCLUSIVE MODE')
        const started = performance.now()
        const error = await store.countPrincipals().then(
          () => null,
          (e: unknown) => e,
        )
        expect(error).toBeInstanceOf(KbError)
        expect(error).toMatchObject({code: 'unavailable', headers: {'Retry-After': '2'}})
        expect(performance.now() - started).toBeLessThan(10_000)
        await locker.query('ROLLBACK')
        expect(await store.countPrincipals()).toBe(0)
      } finally {
        await locker.end()
        await store.close()
      }
    })

    it('is 503 unavailable when the server cannot be reached, within the connect timeout', async () => {
      const store = await openPostgresStore({url: await cluster().createDatabase(), connectTimeoutMs: 1_000})
      try {
        // A port nothing listens on: the pool's next connection is refused at once.
        const unreachable = await openPostgresStore({url: 'postgres://kb@127.0.0.1:1/kb', connectTimeoutMs: 1_000}).then(
          () => null,
          (e: unknown) => e,
        )
        expect(unreachable).toMatchObject({code: 'unavailable'})
        expect(await store.answers()).toBe(true)
      } finally {
        await store.close()
      }
    })
  })

  describe('several daemons on one database', () => {
    const principal = (name: string, role: 'owner' | 'member' = 'owner'): PrincipalRecord => ({
      id: randomUUID(),
      name,
      role,
      created_at: new Date().toISOString(),
    })
    const key = (p: PrincipalRecord): ApiKeyRow => ({
      id: randomUUID(),
      principal_id: p.id,
      name: 'k',
      prefix: 'kb_x',
      hash: randomUUID(),
      project_id: null,
      created_at: new Date().toISOString(),
      expires_at: null,
      last_used_at: null,
      revoked_at: null,
    })

    it('bootstraps exactly one owner when stores race on an empty database', async () => {
      const url = await cluster().createDatabase()
      const stores = await Promise.all(Array.from({length: 4}, () => openPostgresStore({url})))
      try {
        const results = await Promise.all(
          stores.map((s, i) => {
            const owner = principal(`owner${i}`)
            return s.bootstrapOwner(owner, key(owner))
          }),
        )
        expect(results.filter(Boolean)).toHaveLength(1)
        expect(await stores[0]!.countPrincipals()).toBe(1)
        expect(await sql(url, 'SELECT count(*)::int AS n FROM api_keys')).toEqual([{n: 1}])
      } finally {
        for (const s of stores) await s.close()
      }
    })

    it('keeps the search counters exact under concurrent writers', async () => {
      const url = await cluster().createDatabase()
      const stores = await Promise.all([openPostgresStore({url}), openPostgresStore({url})])
      try {
        const owner = principal('owner')
        await stores[0]!.insertPrincipal(owner)
        const entry = (i: number): EntryRow => {
          const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString()
          return {
            id: randomUUID(),
            title: `Shared title ${i % 3}`,
            body: `common words and a rare${i} word`,
            summary: 's',
            summary_title: 't',
            scope: 'global',
            project_id: null,
            tags: ['tag'],
            url: null,
            status: 'open',
            resolution: null,
            thought_chain: [],
            forked_from: null,
            author: {id: owner.id, name: owner.name},
            created_at: at,
            updated_at: at,
            version: 1,
            comment_count: 0,
            anchors: [],
            flags: {stale: 0, incorrect: 0, duplicate: 0, obsolete: 0},
            flagged_at: null,
            verified_at: null,
            verified_by: null,
            verifications: [],
            corrections: 0,
            superseded_by: null,
            retrieved: 0,
            last_retrieved_at: null,
          }
        }
        const rows = Array.from({length: 40}, (_, i) => entry(i))
        await Promise.all(rows.map((r, i) => stores[i % 2]!.insertEntry(r)))
        await Promise.all(rows.slice(0, 20).map((r, i) => stores[i % 2]!.updateEntry(r.id, {body: 'replaced text'}, {at: r.updated_at})))
        await Promise.all(rows.slice(20, 30).map((r, i) => stores[i % 2]!.deleteEntry(r.id)))
        // The counters equal a recount from the stored vectors.
        const counted = await sql<{term: string; df: number}>(
          url,
          'SELECT term, sum(df)::int AS df FROM search_terms GROUP BY term ORDER BY term',
        )
        const recount = await sql<{term: string; df: number}>(
          url,
          'SELECT t AS term, count(*)::int AS df FROM entries, unnest(tsvector_to_array(search)) t GROUP BY t ORDER BY t',
        )
        expect(counted).toEqual(recount)
        expect(counted.find((t) => t.term === 'common')?.df).toBe(10)
        expect(counted.find((t) => t.term === 'rare5')).toBeUndefined()
        const [stats] = await sql<{docs: number; body: number}>(
          url,
          'SELECT sum(docs)::int AS docs, sum(body)::int AS body FROM search_stats',
        )
        const [actual] = await sql<{docs: number; body: number}>(
          url,
          'SELECT count(*)::int AS docs, sum(body_len)::int AS body FROM entries',
        )
        expect(stats).toEqual(actual)
        expect(
          (await (stores[1] as PostgresStore).searchEntries({principalId: owner.id}, {}, {query: 'rare35', limit: 5, explain: false}))
            .total,
        ).toBe(1)
      } finally {
        for (const s of stores) await s.close()
      }
    })
  })
})
