/**
 * The whole flow driven by oauth4webapi, a strict RFC client: discovery with its issuer check, the
 * authorization response with its `iss` and `state` checks, the code exchange with PKCE, a real API call
 * with the access token, refresh with rotation, and revocation — for public and confidential clients.
 * The consent form is submitted over plain HTTP here; browser.test.ts does it in chromium.
 */
import * as oauth from 'oauth4webapi'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {approve, registerOk} from './support.js'

let d: TestDaemon
let as: oauth.AuthorizationServer
const insecure = {[oauth.allowInsecureRequests]: true}
const redirectUri = 'http://127.0.0.1:47123/callback'

beforeAll(async () => {
  d = await startInProcessDaemon()
  const issuer = new URL(d.url)
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, {algorithm: 'oauth2', ...insecure}))
})
afterAll(async () => {
  await d?.stop()
})

interface Flow {
  client: oauth.Client
  clientAuth: oauth.ClientAuth
  tokens: oauth.TokenEndpointResponse
}

/** Registration (plain fetch: oauth4webapi has no RFC 7591 helper), authorization and code exchange. */
async function signIn(apiKey: string, method: 'none' | 'client_secret_basic' | 'client_secret_post', resource?: string): Promise<Flow> {
  const reg = await registerOk(d, {
    redirect_uris: [redirectUri],
    client_name: `oauth4webapi ${method}`,
    token_endpoint_auth_method: method,
    grant_types: ['authorization_code', 'refresh_token'],
  })
  const client: oauth.Client = {client_id: reg.client_id, token_endpoint_auth_method: method}
  const clientAuth =
    method === 'none'
      ? oauth.None()
      : method === 'client_secret_basic'
        ? oauth.ClientSecretBasic(reg.client_secret!)
        : oauth.ClientSecretPost(reg.client_secret!)

  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const url = new URL(as.authorization_endpoint!)
  url.searchParams.set('client_id', client.client_id)
  url.searchParams.set('redirect_uri', redirectUri)
  url.searchParams.set('response_type', 'code')
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier))
  url.searchParams.set('code_challenge_method', 'S256')
  url.searchParams.set('state', state)
  if (resource) url.searchParams.set('resource', resource)

  const callback = await approve(d, url.toString(), apiKey)
  // Checks state, and iss against the issuer (the metadata says every response carries it).
  const params = oauth.validateAuthResponse(as, client, callback, state)
  const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, verifier, {
    ...insecure,
    ...(resource ? {additionalParameters: {resource}} : {}),
  })
  expect(response.headers.get('cache-control')).toBe('no-store')
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response)
  return {client, clientAuth, tokens}
}

async function apiStatus(token: string, path = '/knowledge'): Promise<number> {
  return (await d.request('GET', path, {key: token})).status
}

describe('oauth4webapi', () => {
  it('discovers the server with its strict issuer check', () => {
    expect(as.issuer).toBe(d.url)
    expect(as.authorization_response_iss_parameter_supported).toBe(true)
  })

  it('signs in a public client, calls the API, refreshes with rotation and revokes', async () => {
    const {client, clientAuth, tokens} = await signIn(d.ownerKey, 'none')
    expect(tokens.token_type).toBe('bearer')
    expect(tokens.expires_in).toBe(3600)
    expect(tokens.access_token).toMatch(/^kbat_[0-9A-Za-z]{43}$/)
    expect(tokens.refresh_token).toMatch(/^kbrt_[0-9A-Za-z]{43}$/)
    expect(await apiStatus(tokens.access_token)).toBe(200)

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure),
    )
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
    expect(refreshed.access_token).not.toBe(tokens.access_token)
    expect(await apiStatus(refreshed.access_token)).toBe(200)

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, refreshed.access_token, insecure))
    expect(await apiStatus(refreshed.access_token)).toBe(401)
    // Revoking the refresh token ends the grant: its tokens stop working and it cannot be used again.
    const again = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshed.refresh_token!, insecure),
    )
    expect(await apiStatus(again.access_token)).toBe(200)
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, again.refresh_token!, insecure))
    expect(await apiStatus(again.access_token)).toBe(401)
    const err = await oauth
      .refreshTokenGrantRequest(as, client, clientAuth, again.refresh_token!, insecure)
      .then((r) => oauth.processRefreshTokenResponse(as, client, r))
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(oauth.ResponseBodyError)
    expect((err as oauth.ResponseBodyError).error).toBe('invalid_grant')
  })

  it('signs in confidential clients with client_secret_basic and client_secret_post', async () => {
    for (const method of ['client_secret_basic', 'client_secret_post'] as const) {
      const {client, clientAuth, tokens} = await signIn(d.ownerKey, method)
      expect(await apiStatus(tokens.access_token)).toBe(200)
      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure),
      )
      expect(await apiStatus(refreshed.access_token)).toBe(200)
      // The wrong secret is invalid_client, 401.
      const wrong = method === 'client_secret_basic' ? oauth.ClientSecretBasic('kbcs_wrong') : oauth.ClientSecretPost('kbcs_wrong')
      const err = await oauth
        .refreshTokenGrantRequest(as, client, wrong, refreshed.refresh_token!, insecure)
        .then((r) => oauth.processRefreshTokenResponse(as, client, r))
        .catch((e: unknown) => e)
      if (method === 'client_secret_basic') {
        // A failed Basic authentication also carries a Basic challenge (RFC 6749 §5.2), which oauth4webapi surfaces.
        expect(err).toBeInstanceOf(oauth.WWWAuthenticateChallengeError)
        const e = err as oauth.WWWAuthenticateChallengeError
        expect(e.status).toBe(401)
        expect(e.cause[0]!.scheme).toBe('basic')
        expect(await e.response.json()).toMatchObject({error: 'invalid_client'})
      } else {
        expect(err).toBeInstanceOf(oauth.ResponseBodyError)
        expect((err as oauth.ResponseBodyError).error).toBe('invalid_client')
        expect((err as oauth.ResponseBodyError).status).toBe(401)
      }
    }
  })

  it('acts as the principal who approved, with what that principal may see', async () => {
    const aliceKey = await newPrincipal(d, 'alice-oauth')
    const {tokens} = await signIn(aliceKey, 'none')
    const created = await d.request('POST', '/knowledge', {
      key: tokens.access_token,
      body: {title: 'Written through OAuth', body: 'by alice'},
    })
    expect(created.status).toBe(201)
    expect(created.body.author.name).toBe('alice-oauth')
    const ownerPrivate = await d.request('POST', '/knowledge', {body: {title: 'owner only', body: 'private', scope: 'private'}})
    expect((await d.request('GET', `/knowledge/${ownerPrivate.body.id}`, {key: tokens.access_token})).status).toBe(404)
    expect((await d.request('GET', `/knowledge/${created.body.id}`, {key: tokens.access_token})).status).toBe(200)
  })

  it('binds tokens to the MCP resource too, and either works on the whole API', async () => {
    const {tokens} = await signIn(d.ownerKey, 'none', `${d.url}/mcp`)
    expect(await apiStatus(tokens.access_token)).toBe(200)
    const {tokens: apiTokens} = await signIn(d.ownerKey, 'none', d.url)
    expect(await apiStatus(apiTokens.access_token)).toBe(200)
  })
})
