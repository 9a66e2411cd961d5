/**
 * The token endpoint's rules and the API's side of OAuth, over real HTTP: PKCE, single-use codes whose
 * replay revokes their tokens, refresh rotation with family revocation, client authentication, audience
 * binding, the 401 challenge for bad tokens, revocation, and the sweep of expired records.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {alterLast, newPrincipal, queryStore, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {
  approve,
  authorizeUrl,
  expectOAuthError,
  obtainTokens,
  pkcePair,
  registerOk,
  sha256Hex,
  tokenRequest,
  type Registered,
} from './support.js'

let d: TestDaemon
const REDIRECT = 'http://127.0.0.1:41000/cb'

beforeAll(async () => {
  d = await startInProcessDaemon()
})
afterAll(async () => {
  await d?.stop()
})

/** A fresh code for `client` (public unless secret given), with its verifier. */
async function codeFor(client: Registered, over: Record<string, string> = {}): Promise<{code: string; verifier: string}> {
  const {verifier, challenge} = pkcePair()
  const back = await approve(
    d,
    authorizeUrl(d, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...over,
    }),
    d.ownerKey,
  )
  return {code: back.searchParams.get('code')!, verifier}
}

function exchange(
  client: Registered,
  code: string,
  verifier: string | undefined,
  over: Record<string, string> = {},
): ReturnType<typeof tokenRequest> {
  return tokenRequest(d, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: client.client_id,
    ...(verifier === undefined ? {} : {code_verifier: verifier}),
    ...over,
  })
}

async function apiStatus(token: string, path = '/knowledge', via = d.url): Promise<{status: number; challenge: string | null}> {
  const res = await fetch(`${via}${path}`, {headers: {authorization: `Bearer ${token}`}})
  await res.arrayBuffer()
  return {status: res.status, challenge: res.headers.get('www-authenticate')}
}

let client: Registered
beforeAll(async () => {
  client = await registerOk(d, {redirect_uris: [REDIRECT], client_name: 'token tests'})
})

describe('authorization_code', () => {
  it('accepts the form with and without a charset, and answers no-store', async () => {
    for (const type of [
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded;charset=UTF-8',
      'application/x-www-form-urlencoded; charset=utf-8',
    ]) {
      const {code, verifier} = await codeFor(client)
      const r = await tokenRequest(
        d,
        {grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id},
        {'content-type': type},
      )
      expect(r.status, `${type}: ${JSON.stringify(r.body)}`).toBe(200)
      expect(r.headers.get('cache-control')).toBe('no-store')
      expect(r.body).toMatchObject({token_type: 'Bearer', expires_in: 3600})
    }
  })

  it('refuses a JSON body or none with invalid_request, never a problem document', async () => {
    const res = await fetch(`${d.url}/oauth/token`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({grant_type: 'authorization_code'}),
    })
    expectOAuthError({status: res.status, headers: res.headers, body: await res.json()}, 400, 'invalid_request')
    const none = await fetch(`${d.url}/oauth/token`, {method: 'POST'})
    expectOAuthError({status: none.status, headers: none.headers, body: await none.json()}, 400, 'invalid_request')
  })

  it('checks grant_type', async () => {
    expectOAuthError(await tokenRequest(d, {client_id: client.client_id}), 400, 'invalid_request')
    expectOAuthError(await tokenRequest(d, {grant_type: 'client_credentials', client_id: client.client_id}), 400, 'unsupported_grant_type')
    expectOAuthError(await tokenRequest(d, {grant_type: 'password', client_id: client.client_id}), 400, 'unsupported_grant_type')
  })

  it('refuses a wrong or missing code_verifier', async () => {
    const {code, verifier} = await codeFor(client)
    expectOAuthError(await exchange(client, code, pkcePair().verifier), 400, 'invalid_grant')
    expectOAuthError(await exchange(client, code, undefined), 400, 'invalid_request')
    expectOAuthError(await exchange(client, code, 'short'), 400, 'invalid_request')
    // The plain method would send the challenge itself as the verifier.
    expectOAuthError(await exchange(client, code, alterLast(verifier)), 400, 'invalid_grant')
  })

  it('refuses a redirect_uri that differs from the authorization request, or is left out', async () => {
    const {code, verifier} = await codeFor(client)
    expectOAuthError(await exchange(client, code, verifier, {redirect_uri: 'http://127.0.0.1:41001/cb'}), 400, 'invalid_grant')
    const res = await tokenRequest(d, {grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id})
    expectOAuthError(res, 400, 'invalid_grant')
  })

  it('refuses a code issued to another client, an unknown code, and an expired one', async () => {
    const other = await registerOk(d, {redirect_uris: [REDIRECT]})
    const {code, verifier} = await codeFor(client)
    expectOAuthError(await exchange(other, code, verifier), 400, 'invalid_grant')
    expectOAuthError(await exchange(client, 'kbac_nothing', verifier), 400, 'invalid_grant')

    const expired = await codeFor(client)
    await queryStore(d, 'UPDATE oauth_codes SET expires_at = ? WHERE hash = ?', [
      new Date(Date.now() - 1000).toISOString(),
      sha256Hex(expired.code),
    ])
    expectOAuthError(await exchange(client, expired.code, expired.verifier), 400, 'invalid_grant')
  })

  it('makes codes single use: a replay is invalid_grant and revokes the tokens issued from the code', async () => {
    const {code, verifier} = await codeFor(client)
    const first = await exchange(client, code, verifier)
    expect(first.status).toBe(200)
    expect((await apiStatus(first.body.access_token)).status).toBe(200)
    expectOAuthError(await exchange(client, code, verifier), 400, 'invalid_grant')
    expect((await apiStatus(first.body.access_token)).status).toBe(401)
    expectOAuthError(
      await tokenRequest(d, {grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: client.client_id}),
      400,
      'invalid_grant',
    )
  })

  it('lets only one of two simultaneous exchanges of a code win, and then revokes what it got', async () => {
    const {code, verifier} = await codeFor(client)
    const results = await Promise.all([exchange(client, code, verifier), exchange(client, code, verifier)])
    const won = results.filter((r) => r.status === 200)
    expect(won).toHaveLength(1)
    expectOAuthError(
      results.find((r) => r.status !== 200)!,
      400,
      'invalid_grant',
    )
    expect((await apiStatus(won[0]!.body.access_token)).status).toBe(401)
  })

  it('binds the token to the requested resource and refuses another', async () => {
    const {code, verifier} = await codeFor(client, {resource: `${d.url}/mcp`})
    expectOAuthError(await exchange(client, code, verifier, {resource: 'https://other.example/api/v1'}), 400, 'invalid_target')
    const ok = await exchange(client, code, verifier, {resource: `${d.url}/mcp`})
    expect(ok.status).toBe(200)
  })
})

describe('client authentication', () => {
  it('refuses unknown and missing clients with invalid_client (401)', async () => {
    const {code, verifier} = await codeFor(client)
    expectOAuthError(await exchange({client_id: 'no-such-client'}, code, verifier), 401, 'invalid_client')
    expectOAuthError(
      await tokenRequest(d, {grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT}),
      401,
      'invalid_client',
    )
  })

  it('refuses a secret from a public client, and a missing secret from a confidential one', async () => {
    const {code, verifier} = await codeFor(client)
    expectOAuthError(await exchange(client, code, verifier, {client_secret: 'kbcs_whatever'}), 401, 'invalid_client')
    const conf = await registerOk(d, {redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic'})
    const c2 = await codeFor(conf)
    expectOAuthError(await exchange(conf, c2.code, c2.verifier), 401, 'invalid_client')
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(conf.client_id)}:${encodeURIComponent('kbcs_wrong')}`).toString('base64')}`
    const wrong = await tokenRequest(
      d,
      {grant_type: 'authorization_code', code: c2.code, code_verifier: c2.verifier, redirect_uri: REDIRECT},
      {authorization: basic},
    )
    expectOAuthError(wrong, 401, 'invalid_client')
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic/)
    // Form-urlencoded inside Basic, as RFC 6749 §2.3.1 says; then the same code still works.
    const good = `Basic ${Buffer.from(`${encodeURIComponent(conf.client_id)}:${encodeURIComponent(conf.client_secret!)}`).toString('base64')}`
    const ok = await tokenRequest(
      d,
      {grant_type: 'authorization_code', code: c2.code, code_verifier: c2.verifier, redirect_uri: REDIRECT},
      {authorization: good},
    )
    expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    // Two methods at once is a malformed request.
    const c3 = await codeFor(conf)
    expectOAuthError(
      await tokenRequest(
        d,
        {
          grant_type: 'authorization_code',
          code: c3.code,
          code_verifier: c3.verifier,
          redirect_uri: REDIRECT,
          client_secret: conf.client_secret!,
        },
        {authorization: good},
      ),
      400,
      'invalid_request',
    )
  })

  it('refuses repeated parameters', async () => {
    const body = `grant_type=authorization_code&grant_type=refresh_token&client_id=${client.client_id}`
    const res = await fetch(`${d.url}/oauth/token`, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body})
    expectOAuthError({status: res.status, headers: res.headers, body: await res.json()}, 400, 'invalid_request')
  })
})

describe('refresh_token', () => {
  it('rotates on every use; the old one is then invalid_grant and its reuse revokes the whole family', async () => {
    const {tokens, client: c} = await obtainTokens(d, d.ownerKey)
    const r1 = await tokenRequest(d, {grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: c.client_id})
    expect(r1.status, JSON.stringify(r1.body)).toBe(200)
    expect(r1.body.refresh_token).not.toBe(tokens.refresh_token)
    const r2 = await tokenRequest(d, {grant_type: 'refresh_token', refresh_token: r1.body.refresh_token, client_id: c.client_id})
    expect(r2.status).toBe(200)
    expect((await apiStatus(r2.body.access_token)).status).toBe(200)

    // The first refresh token again: a thief or a confused client. Everything of the grant goes.
    expectOAuthError(
      await tokenRequest(d, {grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: c.client_id}),
      400,
      'invalid_grant',
    )
    expect((await apiStatus(r2.body.access_token)).status).toBe(401)
    expect((await apiStatus(tokens.access_token)).status).toBe(401)
    expectOAuthError(
      await tokenRequest(d, {grant_type: 'refresh_token', refresh_token: r2.body.refresh_token, client_id: c.client_id}),
      400,
      'invalid_grant',
    )
  })

  it('lets only one of two simultaneous refreshes win, and treats the other as reuse', async () => {
    const {tokens, client: c} = await obtainTokens(d, d.ownerKey)
    const refresh = (): ReturnType<typeof tokenRequest> =>
      tokenRequest(d, {grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: c.client_id})
    const results = await Promise.all([refresh(), refresh()])
    const won = results.filter((r) => r.status === 200)
    expect(won).toHaveLength(1)
    expectOAuthError(
      results.find((r) => r.status !== 200)!,
      400,
      'invalid_grant',
    )
    expect((await apiStatus(won[0]!.body.access_token)).status).toBe(401)
  })

  it('belongs to its client', async () => {
    const {tokens} = await obtainTokens(d, d.ownerKey)
    const other = await registerOk(d, {redirect_uris: [REDIRECT]})
    expectOAuthError(
      await tokenRequest(d, {grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: other.client_id}),
      400,
      'invalid_grant',
    )
    expectOAuthError(
      await tokenRequest(d, {grant_type: 'refresh_token', refresh_token: 'kbrt_unknown', client_id: other.client_id}),
      400,
      'invalid_grant',
    )
    expectOAuthError(await tokenRequest(d, {grant_type: 'refresh_token', client_id: other.client_id}), 400, 'invalid_request')
    // An access token is not a refresh token.
    expectOAuthError(
      await tokenRequest(d, {grant_type: 'refresh_token', refresh_token: tokens.access_token, client_id: other.client_id}),
      400,
      'invalid_grant',
    )
  })

  it('is refused once expired', async () => {
    const {
      tokens,
      client: {client_id: clientId},
    } = await obtainTokens(d, d.ownerKey)
    await queryStore(d, 'UPDATE oauth_tokens SET expires_at = ? WHERE hash = ?', [
      new Date(Date.now() - 1000).toISOString(),
      sha256Hex(tokens.refresh_token),
    ])
    expectOAuthError(
      await tokenRequest(d, {grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId}),
      400,
      'invalid_grant',
    )
  })
})

describe('the API with OAuth access tokens', () => {
  const challengeRe = (base: string, invalid: boolean): RegExp =>
    new RegExp(
      `^Bearer resource_metadata="${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.well-known/oauth-protected-resource"${invalid ? ', error="invalid_token"' : '$'}`,
    )

  it('answers garbage tokens with 401, the resource_metadata challenge and invalid_token', async () => {
    for (const token of ['garbage', 'kbat_garbage', `kbat_${'A'.repeat(43)}`, 'kbrt_x']) {
      const r = await apiStatus(token)
      expect(r.status).toBe(401)
      expect(r.challenge).toMatch(challengeRe(d.url, true))
    }
    const none = await fetch(`${d.url}/knowledge`)
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toMatch(challengeRe(d.url, false))
    expect(none.headers.get('www-authenticate')).not.toContain('error=')
  })

  it('refuses an expired access token, and sends no challenge on success', async () => {
    const {tokens} = await obtainTokens(d, d.ownerKey)
    const ok = await apiStatus(tokens.access_token)
    expect(ok).toEqual({status: 200, challenge: null})
    await queryStore(d, 'UPDATE oauth_tokens SET expires_at = ? WHERE hash = ?', [
      new Date(Date.now() - 1000).toISOString(),
      sha256Hex(tokens.access_token),
    ])
    const r = await apiStatus(tokens.access_token)
    expect(r.status).toBe(401)
    expect(r.challenge).toMatch(challengeRe(d.url, true))
  })

  it('refuses a token issued for another resource', async () => {
    // Signed in through http://localhost:…: the token's audience is that base URL, not 127.0.0.1's.
    const viaLocalhost = d.url.replace('127.0.0.1', 'localhost')
    const local = {...d, url: viaLocalhost}
    const {tokens} = await obtainTokens(local, d.ownerKey)
    expect((await apiStatus(tokens.access_token, '/knowledge', viaLocalhost)).status).toBe(200)
    const r = await apiStatus(tokens.access_token, '/knowledge', d.url)
    expect(r.status).toBe(401)
    expect(r.challenge).toContain('error="invalid_token"')
  })

  it('keeps the project binding of the API key that approved', async () => {
    const joined = await d.request('POST', '/projects/join', {body: {remote: 'https://github.com/acme/oauth-bound.git'}})
    expect(joined.status).toBe(201)
    const projectId = joined.body.project.id as string
    const boundKey = await newPrincipal(d, 'bound-oauth', projectId)
    const {tokens} = await obtainTokens(d, boundKey)
    const created = await d.request('POST', '/knowledge', {key: tokens.access_token, body: {title: 'from a bound token', body: 'x'}})
    expect(created.status).toBe(201)
    expect(created.body.project_id).toBe(projectId)
    expect(created.body.scope).toBe('project')
  })

  it('is not an API key: it cannot be revoked through DELETE /api-keys without an id', async () => {
    const {tokens} = await obtainTokens(d, d.ownerKey)
    const res = await d.request('DELETE', '/api-keys', {key: tokens.access_token})
    expect(res.status).toBe(422)
  })
})

describe('revocation (RFC 7009)', () => {
  it("answers 200 for unknown tokens and for other clients' tokens, revoking nothing of theirs", async () => {
    const {tokens} = await obtainTokens(d, d.ownerKey)
    const other = await registerOk(d, {redirect_uris: [REDIRECT]})
    const revoke = (token: string, clientId: string): Promise<Response> =>
      fetch(`${d.url}/oauth/revoke`, {
        method: 'POST',
        headers: {'content-type': 'application/x-www-form-urlencoded'},
        body: new URLSearchParams({token, client_id: clientId}),
      })
    expect((await revoke('kbat_nothing', other.client_id)).status).toBe(200)
    expect((await revoke(tokens.access_token, other.client_id)).status).toBe(200)
    expect((await apiStatus(tokens.access_token)).status).toBe(200)
    const missing = await fetch(`${d.url}/oauth/revoke`, {
      method: 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: 'token=x',
    })
    expect(missing.status).toBe(401)
    expect(await missing.json()).toMatchObject({error: 'invalid_client'})
  })
})

describe('clean-up of expired records', () => {
  it('sweeps expired codes, tokens and consent requests when the daemon starts', async () => {
    const dataDir = (await import('../../helpers/daemon.js')).tempDir()
    let daemon = await startInProcessDaemon({dataDir})
    try {
      const {tokens} = await obtainTokens(daemon, daemon.ownerKey)
      await fetch(
        authorizeUrl(daemon, {
          response_type: 'code',
          client_id: (await registerOk(daemon, {redirect_uris: [REDIRECT]})).client_id,
          redirect_uri: REDIRECT,
          code_challenge: pkcePair().challenge,
          code_challenge_method: 'S256',
        }),
      )
      const count = async (): Promise<Record<string, number>> => {
        const tables = ['oauth_tokens', 'oauth_codes', 'oauth_requests', 'oauth_clients']
        const counts = await Promise.all(
          tables.map(async (t) => (await queryStore<{n: number}>(daemon, `SELECT count(*) AS n FROM ${t}`))[0]!.n),
        )
        return Object.fromEntries(tables.map((t, i) => [t, counts[i]!]))
      }
      expect(await count()).toEqual({oauth_tokens: 2, oauth_codes: 1, oauth_requests: 1, oauth_clients: 2})
      const longAgo = new Date(Date.now() - 100 * 86_400_000).toISOString()
      await queryStore(daemon, 'UPDATE oauth_tokens SET expires_at = ?', [longAgo])
      await queryStore(daemon, 'UPDATE oauth_codes SET expires_at = ?', [longAgo])
      await queryStore(daemon, 'UPDATE oauth_requests SET expires_at = ?', [longAgo])
      const clients = 'UPDATE oauth_clients SET created_at = ?, last_used_at = CASE WHEN last_used_at IS NULL THEN NULL ELSE ? END'
      await queryStore(daemon, clients, [longAgo, longAgo])
      await daemon.stop()
      daemon = await startInProcessDaemon({dataDir, ...(daemon.storeUrl ? {storeUrl: daemon.storeUrl} : {})})
      let left = await count()
      for (let i = 0; i < 50 && Object.values(left).some((n) => n > 0); i++) {
        await new Promise((r) => setTimeout(r, 50))
        left = await count()
      }
      expect(left).toEqual({oauth_tokens: 0, oauth_codes: 0, oauth_requests: 0, oauth_clients: 0})
      expect((await apiStatus(tokens.access_token, '/knowledge', daemon.url)).status).toBe(401)
    } finally {
      await daemon.stop()
      const {rmSync} = await import('node:fs')
      rmSync(dataDir, {recursive: true, force: true})
    }
  })
})
