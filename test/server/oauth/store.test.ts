/**
 * The SQLite driver's OAuth records (`Store.oauth`) on a real database file: single-use exchange and
 * rotation, grant revocation, and which records the sweep removes and which it must keep.
 */
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {openSqliteStore, type SqliteStore} from '../../../server/store/sqlite.js'
import type {OAuthClientRow, OAuthCodeRow, OAuthTokenRow} from '../../../server/store/oauth-store.js'
import {tempDir} from '../../helpers/daemon.js'

let dir: string
let store: SqliteStore
const DAY = 86_400_000
const iso = (ms: number): string => new Date(ms).toISOString()
const now = Date.now()

beforeEach(async () => {
  dir = tempDir()
  store = openSqliteStore({path: join(dir, 'kb.sqlite')})
  await store.insertPrincipal({id: 'p1', name: 'owner', role: 'owner', created_at: iso(now)})
})
afterEach(async () => {
  await store.close()
  rmSync(dir, {recursive: true, force: true})
})

function client(id: string, created: number, lastUsed: number | null): OAuthClientRow {
  return {
    id,
    secret_hash: null,
    metadata: {
      redirect_uris: ['http://127.0.0.1/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
    created_at: iso(created),
    last_used_at: lastUsed === null ? null : iso(lastUsed),
  }
}

function token(hash: string, clientId: string, grant: string, expires: number, kind: 'access' | 'refresh' = 'access'): OAuthTokenRow {
  return {
    hash,
    id: `id-${hash}`,
    kind,
    grant_id: grant,
    client_id: clientId,
    principal_id: 'p1',
    project_id: null,
    resource: 'http://127.0.0.1/api/v1',
    scope: null,
    created_at: iso(now),
    expires_at: iso(expires),
    used_at: null,
    revoked_at: null,
  }
}

function code(hash: string, clientId: string, expires: number): OAuthCodeRow {
  return {
    hash,
    grant_id: `g-${hash}`,
    client_id: clientId,
    principal_id: 'p1',
    project_id: null,
    redirect_uri: 'http://127.0.0.1/cb',
    redirect_uri_given: true,
    code_challenge: 'c'.repeat(43),
    resource: 'http://127.0.0.1/api/v1',
    scope: null,
    created_at: iso(now),
    expires_at: iso(expires),
    used_at: null,
  }
}

describe('Store.oauth (SQLite)', () => {
  it('round-trips a client with its metadata', async () => {
    await store.oauth.insertClient(client('c1', now, null))
    const got = await store.oauth.getClient('c1')
    expect(got).toEqual(client('c1', now, null))
    expect(await store.oauth.getClient('nope')).toBeNull()
  })

  it('exchanges a code once, storing its tokens in the same step', async () => {
    await store.oauth.insertClient(client('c1', now, null))
    await store.oauth.insertCode(code('k1', 'c1', now + 60_000))
    expect(await store.oauth.exchangeCode('k1', iso(now), [token('t1', 'c1', 'g-k1', now + 3600_000)])).toBe(true)
    expect(await store.oauth.exchangeCode('k1', iso(now), [token('t2', 'c1', 'g-k1', now + 3600_000)])).toBe(false)
    expect(await store.oauth.findToken('t1')).not.toBeNull()
    expect(await store.oauth.findToken('t2')).toBeNull()
    expect((await store.oauth.findCode('k1'))!.used_at).not.toBeNull()
    expect(await store.oauth.revokeGrant('g-k1', iso(now))).toBe(1)
    expect((await store.oauth.findToken('t1'))!.revoked_at).not.toBeNull()
  })

  it('rotates a refresh token once, and never a revoked one', async () => {
    await store.oauth.insertClient(client('c1', now, null))
    await store.oauth.insertCode(code('k1', 'c1', now + 60_000))
    await store.oauth.exchangeCode('k1', iso(now), [token('r1', 'c1', 'g', now + DAY, 'refresh')])
    expect(await store.oauth.rotateRefreshToken('r1', iso(now), [token('r2', 'c1', 'g', now + DAY, 'refresh')])).toBe(true)
    expect(await store.oauth.rotateRefreshToken('r1', iso(now), [token('r3', 'c1', 'g', now + DAY, 'refresh')])).toBe(false)
    expect(await store.oauth.revokeToken('r2', iso(now))).toBe(true)
    expect(await store.oauth.revokeToken('r2', iso(now))).toBe(false)
    expect(await store.oauth.rotateRefreshToken('r2', iso(now), [token('r4', 'c1', 'g', now + DAY, 'refresh')])).toBe(false)
    expect(await store.oauth.findToken('r3')).toBeNull()
    expect(await store.oauth.findToken('r4')).toBeNull()
  })

  it('sweeps what expired and idle clients, and keeps live records and the clients that hold them', async () => {
    await store.oauth.insertClient(client('fresh-unused', now - DAY, null))
    await store.oauth.insertClient(client('old-unused', now - 10 * DAY, null))
    await store.oauth.insertClient(client('idle', now - 200 * DAY, now - 100 * DAY))
    await store.oauth.insertClient(client('idle-with-token', now - 200 * DAY, now - 100 * DAY))
    await store.oauth.insertClient(client('recent', now - 200 * DAY, now - DAY))
    await store.oauth.insertCode(code('live-code', 'recent', now + 60_000))
    await store.oauth.insertCode(code('expired-code', 'recent', now - 2 * DAY))
    await store.oauth.insertCode(code('just-expired-code', 'recent', now - 60_000))
    await store.oauth.exchangeCode('live-code', iso(now), [
      token('live', 'idle-with-token', 'g1', now + DAY),
      token('dead', 'recent', 'g1', now - 1000),
    ])
    await store.oauth.insertRequest({
      id: 'rq-live',
      csrf_hash: 'h',
      client_id: 'recent',
      redirect_uri: 'http://127.0.0.1/cb',
      redirect_uri_given: true,
      code_challenge: 'c'.repeat(43),
      resource: 'r',
      scope: null,
      state: null,
      attempts: 0,
      created_at: iso(now),
      expires_at: iso(now + 600_000),
    })
    await store.oauth.insertRequest({
      id: 'rq-dead',
      csrf_hash: 'h',
      client_id: 'recent',
      redirect_uri: 'http://127.0.0.1/cb',
      redirect_uri_given: true,
      code_challenge: 'c'.repeat(43),
      resource: 'r',
      scope: null,
      state: null,
      attempts: 0,
      created_at: iso(now),
      expires_at: iso(now - 1),
    })

    const removed = await store.oauth.purgeExpired({
      now: iso(now),
      codes: iso(now - DAY),
      unusedClients: iso(now - 7 * DAY),
      idleClients: iso(now - 90 * DAY),
    })
    // dead token, expired code, dead request, old-unused and idle clients.
    expect(removed).toBe(5)
    for (const id of ['fresh-unused', 'idle-with-token', 'recent']) expect(await store.oauth.getClient(id), id).not.toBeNull()
    for (const id of ['old-unused', 'idle']) expect(await store.oauth.getClient(id), id).toBeNull()
    expect(await store.oauth.findToken('live')).not.toBeNull()
    expect(await store.oauth.findToken('dead')).toBeNull()
    expect(await store.oauth.findCode('just-expired-code')).not.toBeNull()
    expect(await store.oauth.findCode('expired-code')).toBeNull()
    expect(await store.oauth.getRequest('rq-live')).not.toBeNull()
    expect(await store.oauth.getRequest('rq-dead')).toBeNull()
  })

  it("keeps grants with their key's state and client name; lists live ones newest first; revoking one revokes its tokens; sweeps ended ones", async () => {
    await store.insertApiKey({
      id: 'k1',
      principal_id: 'p1',
      name: 'k',
      prefix: 'kb_xxxxxxxx',
      hash: 'kh',
      project_id: null,
      created_at: iso(now),
      expires_at: iso(now + DAY),
      last_used_at: null,
      revoked_at: null,
    })
    await store.oauth.insertClient({...client('c1', now, null), metadata: {...client('c1', now, null).metadata, client_name: 'Editor'}})
    const grant = (id: string, created: number, expires: number): Parameters<typeof store.oauth.insertGrant>[0] => ({
      id,
      client_id: 'c1',
      principal_id: 'p1',
      api_key_id: 'k1',
      project_id: null,
      scope: null,
      created_at: iso(created),
      expires_at: iso(expires),
      last_used_at: null,
      revoked_at: null,
    })
    await store.oauth.insertGrant(grant('g-old', now - 2000, now + DAY))
    await store.oauth.insertGrant(grant('g-new', now - 1000, now + DAY))
    await store.oauth.insertGrant(grant('g-ended', now - 3000, now - 1))
    expect(await store.oauth.getGrant('g-new')).toEqual({
      ...grant('g-new', now - 1000, now + DAY),
      client_name: 'Editor',
      key_revoked_at: null,
      key_expires_at: iso(now + DAY),
    })
    expect(await store.oauth.getGrant('nope')).toBeNull()
    expect((await store.oauth.listGrants('p1', iso(now))).map((g) => g.id)).toEqual(['g-new', 'g-old'])
    await store.oauth.touchGrant('g-old', iso(now))
    expect((await store.oauth.getGrant('g-old'))!.last_used_at).toBe(iso(now))

    await store.oauth.insertCode({...code('k-old', 'c1', now + 60_000), grant_id: 'g-old'})
    await store.oauth.exchangeCode('k-old', iso(now), [
      token('t-old', 'c1', 'g-old', now + DAY),
      token('t-old-r', 'c1', 'g-old', now + DAY, 'refresh'),
    ])
    expect(await store.oauth.revokeGrant('g-old', iso(now))).toBe(2)
    expect((await store.oauth.getGrant('g-old'))!.revoked_at).toBe(iso(now))
    expect((await store.oauth.findToken('t-old'))!.revoked_at).toBe(iso(now))
    expect((await store.oauth.listGrants('p1', iso(now))).map((g) => g.id)).toEqual(['g-new'])

    await store.revokeApiKey('k1', 'p1', iso(now))
    expect((await store.oauth.getGrant('g-new'))!.key_revoked_at).toBe(iso(now))
    await store.oauth.purgeExpired({
      now: iso(now),
      codes: iso(now - DAY),
      unusedClients: iso(now - 7 * DAY),
      idleClients: iso(now - 90 * DAY),
    })
    expect(await store.oauth.getGrant('g-ended')).toBeNull()
    expect(await store.oauth.getGrant('g-new')).not.toBeNull()
  })

  it('counts failed consent attempts and deletes a request once', async () => {
    await store.oauth.insertClient(client('c1', now, null))
    await store.oauth.insertRequest({
      id: 'rq',
      csrf_hash: 'h',
      client_id: 'c1',
      redirect_uri: 'x',
      redirect_uri_given: false,
      code_challenge: 'c',
      resource: 'r',
      scope: 's',
      state: 'st',
      attempts: 0,
      created_at: iso(now),
      expires_at: iso(now + 1000),
    })
    expect(await store.oauth.addRequestAttempt('rq')).toBe(1)
    expect(await store.oauth.addRequestAttempt('rq')).toBe(2)
    expect((await store.oauth.getRequest('rq'))!.redirect_uri_given).toBe(false)
    expect(await store.oauth.deleteRequest('rq')).toBe(true)
    expect(await store.oauth.deleteRequest('rq')).toBe(false)
  })
})
