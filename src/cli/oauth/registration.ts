/**
 * @module The OAuth client `kb auth login --web` signs in as: the one registered earlier for this base URL
 * (client-cache.ts) while the server still knows it, else a new public client registered (RFC 7591) with a
 * portless loopback redirect.
 */
import {hostname} from 'node:os'
import * as oauth from 'oauth4webapi'
import {KbError} from '../../shared/errors.js'
import {cachedClient, saveClient} from './client-cache.js'
import {guard, type Discovered, type OAuthSession} from './discovery.js'
import {unreachable} from './errors.js'
import type {OAuthFetch} from './pinned-fetch.js'

/** Registered without a port: RFC 8252 §7.3 lets a loopback redirect use whatever port is free at login. */
const REGISTERED_REDIRECT = 'http://127.0.0.1/callback'

/** The client id to sign in with, and whether this login registered it (none cached, or the cached one was gone). */
export async function clientFor(
  s: OAuthSession,
  {as}: Discovered,
  redirectUri: string,
  env: NodeJS.ProcessEnv,
): Promise<{clientId: string; registered: boolean}> {
  const cached = cachedClient(s.baseUrl, as.issuer, env)?.client_id ?? null
  // A cached client may have been swept by the server (unused for 90 days). The authorization endpoint
  // would then show an error page in the browser and never come back here, so ask it first: a known
  // client with a valid redirect is *redirected* (with invalid_request, as no PKCE was sent).
  if (cached && (await clientKnown(s.get, as.authorization_endpoint, cached, redirectUri, s.headers)))
    return {clientId: cached, registered: false}
  const registration = as.registration_endpoint
  if (!registration)
    throw new KbError(
      'unauthenticated',
      `the authorization server ${as.issuer} offers no client registration; log in with an API key (\`kb auth login --with-token\`)`,
    )
  const reg = await guard(s, registration, 'client registration', async () =>
    oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: `kb CLI on ${hostname()}`,
          redirect_uris: [REGISTERED_REDIRECT],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          software_id: 'kb-cli',
        },
        {...s.insecure, headers: s.headers},
      ),
    ),
  )
  saveClient(s.baseUrl, {client_id: reg.client_id, issuer: as.issuer, registered_at: new Date().toISOString()}, env)
  return {clientId: reg.client_id, registered: true}
}

/** Whether the authorization endpoint knows this client and accepts the redirect (a redirect back, not an error page). */
async function clientKnown(
  get: OAuthFetch,
  authorizationEndpoint: string,
  clientId: string,
  redirectUri: string,
  headers: Record<string, string>,
): Promise<boolean> {
  const u = new URL(authorizationEndpoint)
  u.searchParams.set('response_type', 'code')
  u.searchParams.set('client_id', clientId)
  u.searchParams.set('redirect_uri', redirectUri)
  try {
    const res = await get(u, {headers, redirect: 'manual'})
    await res.body?.cancel()
    const location = res.headers.get('location')
    return res.status >= 300 && res.status < 400 && location !== null && location.startsWith(redirectUri)
  } catch (e) {
    throw (e instanceof KbError ? null : unreachable(e, authorizationEndpoint)) ?? e
  }
}
