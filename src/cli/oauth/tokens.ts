/**
 * @module Refreshing and revoking the OAuth tokens of `kb auth login --web`. Loaded only when a token
 * has to be refreshed or revoked: oauth4webapi and fetch cost start-up time every command would pay.
 * A refresh holds a lock file, because refresh tokens rotate: two kb processes refreshing with the same
 * token would look like a stolen token to the server, which then revokes the whole sign-in. Tokens of the
 * local daemon travel only through `daemon` (pinned-fetch.ts): to the daemon that proved it owns the data
 * directory, at the address it proved itself on.
 */
import {closeSync, openSync, statSync, unlinkSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import * as oauth from 'oauth4webapi'
import {KbError} from '../../shared/errors.js'
import {configDir} from '../config/config.js'
import {
  oauthExpired,
  readStoredCredential,
  storeOAuthCredential,
  type OAuthCredential,
  type ResolvedCredential,
} from '../credentials/credentials.js'
import {describeOAuthError, RELOGIN, unreachable} from './errors.js'
import {pinnedFetch, type ProvenDaemon} from './pinned-fetch.js'

const LOCK_STALE_MS = 30_000
const LOCK_WAIT_MS = 15_000

function serverOf(c: OAuthCredential): oauth.AuthorizationServer {
  return {
    issuer: c.issuer,
    token_endpoint: c.token_endpoint,
    ...(c.revocation_endpoint ? {revocation_endpoint: c.revocation_endpoint} : {}),
  }
}

type RequestOptions = {[oauth.allowInsecureRequests]?: boolean; [oauth.customFetch]?: typeof fetch; headers: Record<string, string>}

function requestOptions(c: OAuthCredential, userAgent: string, daemon: ProvenDaemon | null): RequestOptions {
  // Plain http is what the person chose as base URL (the local daemon is always http); the tokens travel
  // exactly where the API calls already go.
  return {
    headers: {'user-agent': userAgent},
    ...(new URL(c.token_endpoint).protocol === 'http:' ? {[oauth.allowInsecureRequests]: true} : {}),
    ...(daemon ? {[oauth.customFetch]: pinnedFetch(daemon) as typeof fetch} : {}),
  }
}

/** The tokens of a token endpoint answer, as the credential kb stores. */
export function credentialFrom(
  tokens: oauth.TokenEndpointResponse,
  base: Omit<OAuthCredential, 'access_token' | 'refresh_token' | 'expires_at' | 'obtained_at'>,
  previousRefresh: string | null = null,
): OAuthCredential {
  const now = Date.now()
  return {
    ...base,
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token ?? previousRefresh,
    expires_at: typeof tokens.expires_in === 'number' ? new Date(now + tokens.expires_in * 1000).toISOString() : null,
    obtained_at: new Date(now).toISOString(),
  }
}

async function withLock<T>(fn: () => Promise<T>, env: NodeJS.ProcessEnv): Promise<T> {
  const path = join(configDir(env), 'oauth-refresh.lock')
  const deadline = Date.now() + LOCK_WAIT_MS
  let fd: number | null = null
  while (fd === null) {
    try {
      fd = openSync(path, 'wx', 0o600)
      writeSync(fd, String(process.pid))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      let age: number
      try {
        age = Date.now() - statSync(path).mtimeMs
      } catch {
        continue // released in between
      }
      // A holder that died (or hung) must not block every later command.
      if (age > LOCK_STALE_MS || Date.now() > deadline) {
        try {
          unlinkSync(path)
        } catch {
          // someone else removed it first
        }
        continue
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  try {
    return await fn()
  } finally {
    closeSync(fd)
    try {
      unlinkSync(path)
    } catch {
      // already taken over as stale
    }
  }
}

/**
 * Fresh tokens for `baseUrl`, given the credential in hand (expired, or just refused with
 * invalid_token): another kb process may have refreshed already, in which case its tokens are used.
 * `daemon`: the local daemon that proved itself, the only place a local refresh token may go.
 */
export async function refreshOAuthCredential(
  baseUrl: string,
  current: ResolvedCredential,
  userAgent: string,
  daemon: ProvenDaemon | null,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ResolvedCredential> {
  return withLock(async () => {
    const latest = await readStoredCredential(baseUrl, env)
    if (latest && 'source' in latest && latest.oauth && latest.key !== current.key && !oauthExpired(latest.oauth)) return latest
    const c = latest && 'source' in latest && latest.oauth ? latest.oauth : current.oauth
    if (!c) throw new KbError('unauthenticated', `no OAuth sign-in is stored for ${baseUrl}; ${RELOGIN}`)
    if (!c.refresh_token)
      throw new KbError('unauthenticated', `the OAuth sign-in for ${baseUrl} has expired and cannot be refreshed; ${RELOGIN}`)
    const as = serverOf(c)
    const client: oauth.Client = {client_id: c.client_id, token_endpoint_auth_method: 'none'}
    let tokens: oauth.TokenEndpointResponse
    try {
      const res = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), c.refresh_token, {
        ...requestOptions(c, userAgent, daemon),
        additionalParameters: {resource: c.resource},
      })
      tokens = await oauth.processRefreshTokenResponse(as, client, res)
    } catch (e) {
      if (e instanceof KbError) throw e
      const down = unreachable(e, c.token_endpoint)
      if (down) throw down
      throw new KbError(
        'unauthenticated',
        `the OAuth sign-in for ${baseUrl} could not be refreshed (${describeOAuthError(e)}); ${RELOGIN}`,
        {cause: e},
      )
    }
    const next = credentialFrom(tokens, c, c.refresh_token)
    const where = latest && 'source' in latest ? latest.source : current.source
    const boundTo = (latest && 'source' in latest ? latest : current).daemonDataDir ?? null
    const stored = await storeOAuthCredential(baseUrl, next, boundTo, where === 'file' ? 'file' : 'keychain', env)
    return {
      key: next.access_token,
      source: stored.store,
      kind: 'oauth',
      location: stored.location,
      oauth: next,
      ...(boundTo ? {daemonDataDir: boundTo} : {}),
    }
  }, env)
}

/**
 * Revokes the refresh token (which ends the whole grant on kb servers) and the access token (RFC 7009).
 * Returns what could not be revoked; an empty list means both are dead.
 */
export async function revokeOAuthCredential(c: OAuthCredential, userAgent: string, daemon: ProvenDaemon | null): Promise<string[]> {
  if (!c.revocation_endpoint) return ['the server has no revocation endpoint']
  const as = serverOf(c)
  const client: oauth.Client = {client_id: c.client_id, token_endpoint_auth_method: 'none'}
  const problems: string[] = []
  for (const [token, hint] of [
    [c.refresh_token, 'refresh_token'],
    [c.access_token, 'access_token'],
  ] as const) {
    if (!token) continue
    try {
      const res = await oauth.revocationRequest(as, client, oauth.None(), token, {
        ...requestOptions(c, userAgent, daemon),
        additionalParameters: {token_type_hint: hint},
      })
      await oauth.processRevocationResponse(res)
    } catch (e) {
      const down = e instanceof KbError ? e : unreachable(e, c.revocation_endpoint)
      problems.push(`the ${hint.replace('_', ' ')} was not revoked: ${down ? down.message : describeOAuthError(e)}`)
    }
  }
  return problems
}
