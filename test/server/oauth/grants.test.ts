/**
 * Grants with limits (docs/oauth.md, "Grants"), over real HTTP: a grant lives only while the API key that
 * approved it does; an access token mints no API key and holds none of the owner's powers; the consent page
 * says so; a principal lists and revokes its own grants; a grant has an absolute end that caps its tokens.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, queryStore, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {authorizeUrl, expectOAuthError, obtainTokens, openConsent, registerOk, tokenRequest} from './support.js'

let d: TestDaemon

beforeAll(async () => {
  d = await startInProcessDaemon()
})
afterAll(async () => {
  await d?.stop()
})

const DAY_MS = 86_400_000

/** The export as text (JSON Lines, which the test client would try to parse as one JSON document). */
async function exportText(token: string): Promise<{status: number; text: string}> {
  const res = await fetch(`${d.url}/export`, {headers: {authorization: `Bearer ${token}`}})
  return {status: res.status, text: await res.text()}
}

async function api(token: string, method: string, path: string, body?: unknown): Promise<{status: number; body: any; text: string}> {
  const res = await d.request(method, path, {key: token, ...(body === undefined ? {} : {body})})
  return {status: res.status, body: res.body, text: res.text}
}

function refresh(tokens: {refresh_token: string}, clientId: string): ReturnType<typeof tokenRequest> {
  return tokenRequest(d, {grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId})
}

/** A second key of the owner principal, so that revoking it leaves the daemon's owner.key working. */
async function ownerKey2(name: string): Promise<{key: string; id: string}> {
  const res = await d.request('POST', '/api-keys', {body: {name}})
  expect(res.status).toBe(201)
  return {key: res.body.key, id: res.body.id}
}

describe('a grant is tied to the API key that approved it', () => {
  it('revoking the key ends the access token and the refresh token; a grant approved with another key stays', async () => {
    const k = await ownerKey2('approves a grant')
    const {tokens, client} = await obtainTokens(d, k.key)
    const other = await obtainTokens(d, d.ownerKey)
    expect((await api(tokens.access_token, 'GET', '/knowledge')).status).toBe(200)

    expect((await d.request('DELETE', '/api-keys', {body: {id: k.id}})).status).toBe(204)
    expect((await api(tokens.access_token, 'GET', '/knowledge')).status).toBe(401)
    expectOAuthError(await refresh(tokens, client.client_id), 400, 'invalid_grant')
    // Not a blanket logout: the grant approved with owner.key is untouched.
    expect((await api(other.tokens.access_token, 'GET', '/knowledge')).status).toBe(200)
    expect((await refresh(other.tokens, other.client.client_id)).status).toBe(200)
  })

  it('the key expiring ends the grant too', async () => {
    const k = await ownerKey2('expires')
    const {tokens, client} = await obtainTokens(d, k.key)
    expect((await api(tokens.access_token, 'GET', '/knowledge')).status).toBe(200)
    await queryStore(d, 'UPDATE api_keys SET expires_at = ? WHERE id = ?', [new Date(Date.now() - 1000).toISOString(), k.id])
    expect((await api(tokens.access_token, 'GET', '/knowledge')).status).toBe(401)
    expectOAuthError(await refresh(tokens, client.client_id), 400, 'invalid_grant')
  })
})

describe('an access token has no more power than a grant should', () => {
  it('cannot mint API keys, for itself or anyone', async () => {
    const {tokens} = await obtainTokens(d, d.ownerKey)
    for (const body of [{}, {name: 'forever'}, {principal: 'mallory'}]) {
      const res = await api(tokens.access_token, 'POST', '/api-keys', body)
      expect(res.status, res.text).toBe(403)
      expect(res.body.code).toBe('forbidden')
    }
    const names = (await d.request('GET', '/api-keys')).body.items.map((k: {name: string}) => k.name)
    expect(names).not.toContain('forever')
  })

  it("the owner's token holds none of the owner's powers: no backup, no export of others' private entries, no moderation", async () => {
    const bob = await newPrincipal(d, 'bob-grants')
    const secret = await d.request('POST', '/knowledge', {
      key: bob,
      body: {title: 'Bob private grant test', body: 'only bob', scope: 'private'},
    })
    const shared = await d.request('POST', '/knowledge', {
      key: bob,
      body: {title: 'Bob global grant test', body: 'everyone', scope: 'global'},
    })
    const {tokens} = await obtainTokens(d, d.ownerKey)

    const backup = await api(tokens.access_token, 'GET', '/backup')
    expect(backup.status).toBe(403)
    // With the owner's API key the same export holds bob's private entry; with the token only what the owner may see.
    expect((await exportText(d.ownerKey)).text).toContain(secret.body.id)
    const exported = await exportText(tokens.access_token)
    expect(exported.status).toBe(200)
    expect(exported.text).toContain(shared.body.id)
    expect(exported.text).not.toContain(secret.body.id)
    expect((await api(tokens.access_token, 'DELETE', `/knowledge/${shared.body.id}`)).status).toBe(403)
    expect((await d.request('GET', `/knowledge/${shared.body.id}`)).status).toBe(200)
  })

  it('the consent page says what the application will and will not be able to do', async () => {
    const c = await registerOk(d, {redirect_uris: ['http://127.0.0.1:41001/cb'], client_name: 'Consent wording'})
    const form = await openConsent(
      authorizeUrl(d, {
        response_type: 'code',
        client_id: c.client_id,
        code_challenge: 'A'.repeat(43),
        code_challenge_method: 'S256',
      }),
    )
    const text = form.html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ')
    expect(text).toContain('search and read the knowledge you can see')
    expect(text).toContain("It cannot create API keys, take a backup, export everything, or use the owner's powers.")
    expect(text).toContain('at most 90 days')
    expect(text).toContain('kb auth revoke-grant')
  })
})

describe('GET /oauth/grants and DELETE /oauth/grants/:id', () => {
  it("lists the caller's grants with client name, times and end; another principal sees none of them", async () => {
    const carol = await newPrincipal(d, 'carol-grants')
    const started = Date.now()
    const {tokens, client} = await obtainTokens(d, carol)
    const list = await d.request('GET', '/oauth/grants', {key: carol})
    expect(list.status).toBe(200)
    expect(list.body.next_cursor).toBeNull()
    expect(list.body.items).toHaveLength(1)
    const g = list.body.items[0]
    expect(Object.keys(g).sort()).toEqual([
      'api_key_id',
      'client_id',
      'client_name',
      'created_at',
      'expires_at',
      'id',
      'last_used_at',
      'project_id',
    ])
    expect(g).toMatchObject({client_id: client.client_id, client_name: 'test client', project_id: null})
    expect(Date.parse(g.created_at)).toBeGreaterThanOrEqual(started - 1000)
    expect(Date.parse(g.expires_at) - Date.parse(g.created_at)).toBe(90 * DAY_MS)
    // The code exchange used it.
    expect(Date.parse(g.last_used_at)).toBeGreaterThanOrEqual(Date.parse(g.created_at))
    // Listed with the token too; another principal does not see it and cannot revoke it.
    expect((await api(tokens.access_token, 'GET', '/oauth/grants')).body.items.map((x: {id: string}) => x.id)).toEqual([g.id])
    const dave = await newPrincipal(d, 'dave-grants')
    expect((await d.request('GET', '/oauth/grants', {key: dave})).body.items).toEqual([])
    expect((await d.request('DELETE', `/oauth/grants/${g.id}`, {key: dave})).status).toBe(404)
    expect((await api(tokens.access_token, 'GET', '/knowledge')).status).toBe(200)
  })

  it('revoking a grant ends its access and refresh tokens; a second revoke, an unknown id and a malformed one are refused', async () => {
    const erin = await newPrincipal(d, 'erin-grants')
    const {tokens, client} = await obtainTokens(d, erin)
    const [g] = (await d.request('GET', '/oauth/grants', {key: erin})).body.items
    expect((await d.request('DELETE', `/oauth/grants/${g.id}`, {key: erin})).status).toBe(204)
    expect((await api(tokens.access_token, 'GET', '/knowledge')).status).toBe(401)
    expectOAuthError(await refresh(tokens, client.client_id), 400, 'invalid_grant')
    expect((await d.request('GET', '/oauth/grants', {key: erin})).body.items).toEqual([])
    expect((await d.request('DELETE', `/oauth/grants/${g.id}`, {key: erin})).status).toBe(404)
    expect((await d.request('DELETE', '/oauth/grants/00000000-0000-4000-8000-000000000000', {key: erin})).status).toBe(404)
    expect((await d.request('DELETE', '/oauth/grants/not-a-uuid', {key: erin})).status).toBe(400)
  })
})

describe('a grant has an absolute end', () => {
  it('refreshes issue tokens that end with the grant, and none once it has ended', async () => {
    const {tokens, client} = await obtainTokens(d, d.ownerKey)
    const grantId = (await d.request('GET', '/oauth/grants')).body.items.find(
      (g: {client_id: string}) => g.client_id === client.client_id,
    ).id
    // Ten minutes left: a refresh now gets tokens that end with the grant, not an hour or 30 days later.
    await queryStore(d, 'UPDATE oauth_grants SET expires_at = ? WHERE id = ?', [new Date(Date.now() + 600_000).toISOString(), grantId])
    const r = await refresh(tokens, client.client_id)
    expect(r.status).toBe(200)
    expect(r.body.expires_in).toBeLessThanOrEqual(600)
    const live = "SELECT max(expires_at) AS e FROM oauth_tokens WHERE grant_id = ? AND kind = 'refresh' AND used_at IS NULL"
    const [ends] = await queryStore<{e: string}>(d, live, [grantId])
    expect(Date.parse(ends!.e)).toBeLessThanOrEqual(Date.now() + 600_000)
    expect((await api(r.body.access_token, 'GET', '/knowledge')).status).toBe(200)

    await queryStore(d, 'UPDATE oauth_grants SET expires_at = ? WHERE id = ?', [new Date(Date.now() - 1000).toISOString(), grantId])
    expect((await api(r.body.access_token, 'GET', '/knowledge')).status).toBe(401)
    expectOAuthError(await refresh(r.body, client.client_id), 400, 'invalid_grant')
  })
})
