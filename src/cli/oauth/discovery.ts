/**
 * @module The first steps of `kb auth login --web`: how its requests are sent (pinned to the proven local daemon,
 * or plain fetch to a remote server; docs/security.md), and discovery as MCP clients do it — the API's 401 names
 * the RFC 9728 resource metadata, which names the RFC 8414 authorization server, checked for what kb needs.
 */
import * as oauth from 'oauth4webapi'
import {KbError} from '../../shared/errors.js'
import {describeOAuthError, unreachable} from './errors.js'
import {pinnedFetch, type OAuthFetch, type ProvenDaemon} from './pinned-fetch.js'

type Insecure = {[oauth.allowInsecureRequests]?: boolean; [oauth.customFetch]?: typeof fetch}

/** What every request of one login shares: where it goes, how it is sent and with which headers. */
export interface OAuthSession {
  /** Ends in /api/v1, no trailing slash. */
  baseUrl: string
  get: OAuthFetch
  /** oauth4webapi's options: plain http allowed for an http base URL, the pinned fetch for the local daemon. */
  insecure: Insecure
  headers: Record<string, string>
  daemon: ProvenDaemon | null
}

/** The authorization server kb signs in with, and the resource (RFC 8707) its tokens are for. */
export interface Discovered {
  as: oauth.AuthorizationServer & {authorization_endpoint: string; token_endpoint: string}
  resource: string
}

export function oauthSession(baseUrl: string, userAgent: string, daemon: ProvenDaemon | null): OAuthSession {
  const get: OAuthFetch = daemon ? pinnedFetch(daemon) : fetch
  const insecure: Insecure = {
    ...(new URL(baseUrl).protocol === 'http:' ? {[oauth.allowInsecureRequests]: true} : {}),
    ...(daemon ? {[oauth.customFetch]: get as typeof fetch} : {}),
  }
  return {baseUrl, get, insecure, headers: {'user-agent': userAgent}, daemon}
}

/** Runs one step; a failure that is not already a `KbError` becomes "unreachable" or "`what` failed at `url`". */
export async function guard<T>(s: OAuthSession, url: string, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (e) {
    if (e instanceof KbError) throw e
    throw (
      unreachable(e, url) ??
      new KbError(
        'unauthenticated',
        `${what} failed at ${url} (${describeOAuthError(e)}); is ${s.baseUrl} a kb server that supports OAuth?`,
        {
          cause: e,
        },
      )
    )
  }
}

/** The resource metadata, then its authorization server, refused unless it can do what kb needs of it. */
export async function discover(s: OAuthSession): Promise<Discovered> {
  const prm = await guard(s, s.baseUrl, 'discovery', () => resourceMetadata(s))
  const issuerUrl = prm.authorization_servers?.[0]
  if (!issuerUrl)
    throw new KbError(
      'unauthenticated',
      `${s.baseUrl} names no OAuth authorization server; log in with an API key instead (\`kb auth login --with-token\`)`,
    )
  const issuer = new URL(issuerUrl)
  const as = await guard(s, issuerUrl, 'authorization server discovery', async () =>
    oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, {algorithm: 'oauth2', ...s.insecure, headers: s.headers})),
  )
  const {authorization_endpoint: authorize, token_endpoint: token} = as
  if (!authorize || !token)
    throw new KbError('unauthenticated', `the authorization server ${as.issuer} has no authorization or token endpoint`)
  // The browser is not pinned: it must at least be sent to the proven daemon's origin (login.ts in commands checks every address of it).
  if (s.daemon && new URL(authorize).origin !== s.daemon.origin)
    throw new KbError(
      'conflict',
      `the local daemon names a consent page at ${new URL(authorize).origin}, not ${s.daemon.origin}; no browser was opened`,
    )
  if (!as.code_challenge_methods_supported?.includes('S256'))
    throw new KbError('unauthenticated', `the authorization server ${as.issuer} does not support PKCE with S256, which kb requires`)
  return {as: {...as, authorization_endpoint: authorize, token_endpoint: token}, resource: prm.resource}
}

/** Discovery, as MCP clients do it: the API's 401 names the resource metadata; the well-known URL otherwise. */
async function resourceMetadata(s: OAuthSession): Promise<oauth.ResourceServer> {
  const base = new URL(s.baseUrl)
  const probe = await s.get(`${s.baseUrl}/knowledge`, {headers: {...s.headers, accept: 'application/json'}, redirect: 'manual'})
  await probe.body?.cancel()
  const pointer = /resource_metadata="([^"]+)"/.exec(probe.headers.get('www-authenticate') ?? '')?.[1]
  const res = pointer
    ? await s.get(pointer, {headers: s.headers, redirect: 'manual'})
    : await oauth.resourceDiscoveryRequest(base, {...s.insecure, headers: s.headers})
  try {
    return await oauth.processResourceDiscoveryResponse(base, res)
  } catch (e) {
    if (e instanceof oauth.OperationProcessingError && e.code === oauth.JSON_ATTRIBUTE_COMPARISON) {
      const resource = (e.cause as {body?: {resource?: unknown}})?.body?.resource
      throw new KbError(
        'usage',
        `the server calls itself ${String(resource)}, not ${s.baseUrl}; log in with --base-url ${String(resource)}`,
      )
    }
    throw e
  }
}
