/**
 * @module The SQLite driver: the Store contract on a fresh database file per test, and its migrations
 * (user_version, idempotent reopen, refusing a newer schema) and durability pragmas (WAL, synchronous=FULL).
 */
import Database from 'better-sqlite3'
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, describe, expect, it} from 'vitest'
import {openSqliteStore, type SqliteStore} from '../../../server/store/sqlite.js'
import {SQLITE_MIGRATIONS} from '../../../server/store/sqlite-migrations.js'
import {tempDir} from '../../helpers/daemon.js'
import {runStoreContract} from './contract.js'
import {runTrustContract} from './trust-contract.js'
import {runMembersContract} from './members-contract.js'
import {runImportContract} from './import-contract.js'

const dir = tempDir('kb-store-')
let n = 0
afterAll(() => {
  rmSync(dir, {recursive: true, force: true})
})

runStoreContract('sqlite', async () => openSqliteStore({path: join(dir, `contract-${n++}.sqlite`)}))
runTrustContract('sqlite', async () => openSqliteStore({path: join(dir, `contract-${n++}.sqlite`)}))
runMembersContract('sqlite', async () => openSqliteStore({path: join(dir, `contract-${n++}.sqlite`)}))
runImportContract('sqlite', async () => openSqliteStore({path: join(dir, `contract-${n++}.sqlite`)}))

describe('SQLite migrations and pragmas', () => {
  const open: SqliteStore[] = []
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close()
  })
  const openStore = (path: string): SqliteStore => {
    const s = openSqliteStore({path})
    open.push(s)
    return s
  }
  const schemaOf = (db: Database.Database): unknown[] => db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY type, name').all()

  it('a fresh file gets user_version = the number of migrations, WAL and synchronous=FULL', async () => {
    expect(SQLITE_MIGRATIONS.length).toBeGreaterThanOrEqual(1)
    const s = openStore(join(dir, 'fresh.sqlite'))
    expect(s.db.pragma('user_version', {simple: true})).toBe(SQLITE_MIGRATIONS.length)
    expect(s.schemaVersion).toBe(SQLITE_MIGRATIONS.length)
    expect(s.db.pragma('journal_mode', {simple: true})).toBe('wal')
    // 2 = FULL: a write that returned is on disk.
    expect(s.db.pragma('synchronous', {simple: true})).toBe(2)
    expect(s.db.pragma('foreign_keys', {simple: true})).toBe(1)
  })

  it('reopening is a no-op that keeps schema and data', async () => {
    const path = join(dir, 'reopen.sqlite')
    const first = openStore(path)
    await first.insertPrincipal({
      id: '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980',
      name: 'owner',
      role: 'owner',
      created_at: '2026-01-01T00:00:00.000Z',
    })
    const schema = schemaOf(first.db)
    await first.close()
    open.length = 0
    const second = openStore(path)
    expect(second.schemaVersion).toBe(SQLITE_MIGRATIONS.length)
    expect(schemaOf(second.db)).toEqual(schema)
    expect(await second.countPrincipals()).toBe(1)
    // WAL is a property of the file; synchronous is set again on every connection.
    expect(second.db.pragma('journal_mode', {simple: true})).toBe('wal')
    expect(second.db.pragma('synchronous', {simple: true})).toBe(2)
  })

  it('a file at an older version is brought up to date, step by step', async () => {
    const path = join(dir, 'old.sqlite')
    const raw = new Database(path)
    raw.exec(SQLITE_MIGRATIONS[0]!)
    raw.pragma('user_version = 1')
    raw
      .prepare(
        "INSERT INTO principals (id, name, role, created_at) VALUES ('0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7981', 'owner', 'owner', '2026-01-01T00:00:00.000Z')",
      )
      .run()
    raw.close()
    const s = openStore(path)
    expect(s.schemaVersion).toBe(SQLITE_MIGRATIONS.length)
    expect(await s.countPrincipals()).toBe(1)
    const fresh = openStore(join(dir, 'compare.sqlite'))
    expect(schemaOf(s.db)).toEqual(schemaOf(fresh.db))
  })

  it('refuses a file written by a newer kb', () => {
    const path = join(dir, 'newer.sqlite')
    const raw = new Database(path)
    raw.pragma(`user_version = ${SQLITE_MIGRATIONS.length + 1}`)
    raw.close()
    expect(() => openSqliteStore({path})).toThrow(/newer/)
  })
})
