/**
 * @module The SQLite driver remembers the caller's API key and principal between writes (one read
 * transaction fewer each per request); these tests pin that nothing it returns is ever stale.
 */
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, describe, expect, it} from 'vitest'
import {openSqliteStore, type SqliteStore} from '../../../server/store/sqlite.js'
import {tempDir} from '../../helpers/daemon.js'

const at = '2025-01-01T00:00:00.000Z'

describe('SQLite driver: remembered keys and principals', () => {
  const dir = tempDir('kb-remembered-')
  let store: SqliteStore
  let n = 0
  afterEach(async () => {
    await store.close()
  })
  afterAll(() => {
    rmSync(dir, {recursive: true, force: true})
  })
  const open = async (): Promise<SqliteStore> => {
    store = openSqliteStore({path: join(dir, `kb-${n++}.sqlite`)})
    await store.insertPrincipal({id: 'p1', name: 'ann', role: 'owner', created_at: at})
    return store
  }
  const key = {
    id: 'k1',
    principal_id: 'p1',
    name: 'laptop',
    prefix: 'kb_abc',
    hash: 'h1',
    project_id: null,
    created_at: at,
    expires_at: null,
    last_used_at: null,
    revoked_at: null,
  }

  it('sees a key created after it was looked up and missing, and its revocation at once', async () => {
    const s = await open()
    expect(await s.findApiKeyByHash('h1')).toBeNull()
    await s.insertApiKey(key)
    expect(await s.findApiKeyByHash('h1')).toEqual(key)
    expect(await s.revokeApiKey('k1', 'p1', at)).toBe(true)
    expect((await s.findApiKeyByHash('h1'))!.revoked_at).toBe(at)
    await s.touchApiKey('k1', '2025-01-02T00:00:00.000Z')
    expect((await s.findApiKeyByHash('h1'))!.last_used_at).toBe('2025-01-02T00:00:00.000Z')
  })

  it('hands out copies: changing one does not change the next read', async () => {
    const s = await open()
    const p = (await s.getPrincipal('p1'))!
    p.name = 'mallory'
    expect((await s.getPrincipal('p1'))!.name).toBe('ann')
  })

  it('never remembers a row a transaction later rolls back', async () => {
    const s = await open()
    expect(await s.getPrincipal('p2')).toBeNull()
    expect(() =>
      s.db.transaction(() => {
        void s.insertPrincipal({id: 'p2', name: 'ben', role: 'member', created_at: at})
        void s.getPrincipal('p2')
        throw new Error('roll back')
      })(),
    ).toThrow('roll back')
    expect(await s.getPrincipal('p2')).toBeNull()
  })
})
