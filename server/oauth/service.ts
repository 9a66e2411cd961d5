/**
 * @module The OAuth 2.1 authorization server (docs/oauth.md): client registration, the authorization request and
 * its consent decision, the token endpoint (authorization code + PKCE S256, rotating refresh tokens),
 * revocation, access-token verification for the API, and the sweep of expired records. HTTP-free: the
 * routes in server/routes/oauth.ts translate requests and outcomes.
 */
import {createHash, randomBytes, randomUUID, timingSafeEqual} from 'node:crypto'
import {trimTrailingSlashes} from '../../src/shared/chars.js'
import {randomBase62, sha256Hex, uuidv7} from '../lib/ids.js'
import type {Caller} from '../services/context.js'
import type {OAuthClientMetadata, OAuthClientRow, OAuthCodeRow, OAuthTokenRow, Store} from '../store/store.js'
import {
  ACCESS_TOKEN_TTL_S, CODE_RETENTION_MS, CODE_TTL_MS, CONSENT_BURST, CONSENT_PER_MINUTE, CONSENT_TTL_MS, IDLE_CLIENT_TTL_MS, MAX_CONSENT_ATTEMPTS, PREFIX,
  PURGE_INTERVAL_MS, REFRESH_TOKEN_TTL_MS, REGISTRATION_BURST, REGISTRATION_PER_MINUTE, UNUSED_CLIENT_TTL_MS,
} from './config.js'
import type {ConsentView} from './consent-page.js'
import {allowedResources} from './metadata.js'
import {RateLimiter} from './rate-limit.js'
import {matchRedirectUri, redirectDisplay} from './redirect-uris.js'
import {parseClientMetadata} from './registration.js'
import {errorDescription, isFailure, oauthError, type OAuthFailure} from './result.js'

/** Checks a pasted API key; returns the caller it stands for, or null. */
export type KeyCheck = (apiKey: string) => Promise<Caller | null>

export interface Logger {
  warn(obj: object, msg: string): void
  debug(obj: object, msg: string): void
}

/** What the authorization endpoint answers. */
export type AuthorizeOutcome =
  | {kind: 'error_page'; status: 400 | 403 | 429; title: string; message: string; headers?: Record<string, string>}
  | {kind: 'redirect'; location: string; clearCookie?: string}
  | {kind: 'consent'; status: 200 | 400; view: Omit<ConsentView, 'action'>; setCookie?: {name: string; value: string}}

export interface TokenResponse {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  refresh_token?: string
  scope?: string
}

/** The cookie that binds a consent form to the browser that loaded it (double-submit CSRF protection). */
export function csrfCookieName(requestId: string): string {
  return `kb_oauth_${requestId}`
}

const VERIFIER_RE = /^[A-Za-z0-9._~-]{43,128}$/
const CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/
const MAX_STATE = 2000
const MAX_SCOPE = 1000

export class OAuthService {
  private readonly registrations = new RateLimiter(REGISTRATION_BURST, REGISTRATION_PER_MINUTE)
  private readonly consents = new RateLimiter(CONSENT_BURST, CONSENT_PER_MINUTE)
  private timer: NodeJS.Timeout | null = null
  private lastPurge = 0

  constructor(private readonly store: Store, private readonly checkKey: KeyCheck, private readonly log?: Logger) {}

  // ---- registration (RFC 7591) ----

  async register(body: unknown, clientAddress: string): Promise<{client: Record<string, unknown>} | OAuthFailure> {
    const metadata = parseClientMetadata(body)
    if (isFailure(metadata)) return metadata
    // Only registrations that would be stored count: the limit is there to keep the store small.
    const wait = this.registrations.take(clientAddress)
    if (wait > 0) return oauthError(429, 'too_many_requests', `too many client registrations from this address; retry in ${wait} s`, {'Retry-After': String(wait)})
    const now = Date.now()
    const secret = metadata.token_endpoint_auth_method === 'none' ? null : PREFIX.clientSecret + randomBase62(43)
    const row: OAuthClientRow = {id: randomUUID(), secret_hash: secret ? sha256Hex(secret) : null, metadata, created_at: new Date(now).toISOString(), last_used_at: null}
    await this.store.oauth.insertClient(row)
    this.maybePurge()
    return {
      client: {
        client_id: row.id,
        client_id_issued_at: Math.floor(now / 1000),
        ...(secret ? {client_secret: secret, client_secret_expires_at: 0} : {}),
        ...metadata,
      },
    }
  }

  // ---- authorization endpoint ----

  /** Validates an authorization request; on success records it and returns the consent page. */
  async authorize(q: URLSearchParams, base: string, clientAddress: string): Promise<AuthorizeOutcome> {
    const repeated = repeatedParam(q)
    const clientId = q.get('client_id')
    if (!clientId || repeated === 'client_id') return errorPage(400, 'Unknown application', 'The request does not name a client (client_id is missing).')
    const client = await this.store.oauth.getClient(clientId)
    if (!client) return errorPage(400, 'Unknown application', `No application is registered as "${clientId}". It may have been removed; the application should register again.`)

    const registered = client.metadata.redirect_uris
    const requested = q.get('redirect_uri')
    if (repeated === 'redirect_uri') return errorPage(400, 'Invalid redirect', 'redirect_uri was given more than once.')
    let redirectUri: string
    if (requested === null) {
      if (registered.length !== 1) return errorPage(400, 'Invalid redirect', 'redirect_uri is required: the application registered more than one.')
      redirectUri = registered[0]!
    } else {
      if (matchRedirectUri(requested, registered) === null) {
        return errorPage(400, 'Invalid redirect', `The redirect URI ${requested} is not registered for this application, so kb will not send you there.`)
      }
      redirectUri = requested
    }

    const state = q.get('state')
    const fail = (error: string, description: string): AuthorizeOutcome => ({kind: 'redirect', location: redirectWith(redirectUri, {error, error_description: description, state, iss: base})})
    if (repeated) return fail('invalid_request', `parameter ${repeated} was given more than once`)
    const responseType = q.get('response_type')
    if (responseType === null) return fail('invalid_request', 'response_type is required (use code)')
    if (responseType !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported')
    if (!client.metadata.response_types.includes('code')) return fail('unauthorized_client', 'the client did not register the code response type')
    const method = q.get('code_challenge_method')
    const challenge = q.get('code_challenge')
    if (challenge === null) return fail('invalid_request', 'code_challenge is required (PKCE with S256)')
    if (method !== 'S256') return fail('invalid_request', method === null ? 'code_challenge_method=S256 is required' : `code_challenge_method ${method} is not supported; use S256`)
    if (!CHALLENGE_RE.test(challenge)) return fail('invalid_request', 'code_challenge must be the 43-character base64url SHA-256 of the code verifier')
    if (state !== null && state.length > MAX_STATE) return fail('invalid_request', `state is longer than ${MAX_STATE} characters`)
    const scope = q.get('scope')
    if (scope !== null && scope.length > MAX_SCOPE) return fail('invalid_scope', `scope is longer than ${MAX_SCOPE} characters`)
    const resource = resolveResource(q.get('resource'), base)
    if (resource === null) return fail('invalid_target', `resource must be ${allowedResources(base).join(' or ')}`)

    // Every consent page is a stored pending request, so opening them is rate-limited like registration.
    const wait = this.consents.take(clientAddress)
    if (wait > 0) return {kind: 'error_page', status: 429, title: 'Too many sign-in attempts', message: `Too many sign-in pages were opened from this address; try again in ${wait} s.`, headers: {'Retry-After': String(wait)}}
    const csrf = randomBytes(32).toString('base64url')
    const now = Date.now()
    const request = {
      id: randomUUID(), csrf_hash: sha256Hex(csrf), client_id: client.id, redirect_uri: redirectUri, redirect_uri_given: requested !== null,
      code_challenge: challenge, resource, scope, state, attempts: 0,
      created_at: new Date(now).toISOString(), expires_at: new Date(now + CONSENT_TTL_MS).toISOString(),
    }
    await this.store.oauth.insertRequest(request)
    return {kind: 'consent', status: 200, view: consentView(client, request.id, csrf, redirectUri, resource), setCookie: {name: csrfCookieName(request.id), value: csrf}}
  }

  /** The consent form's POST: checks the CSRF binding, then approves (with a valid API key) or denies. */
  async decide(form: URLSearchParams, cookies: Record<string, string>, base: string): Promise<AuthorizeOutcome> {
    const requestId = form.get('request_id')
    const csrf = form.get('csrf_token')
    const request = requestId ? await this.store.oauth.getRequest(requestId) : null
    if (!request || Date.parse(request.expires_at) <= Date.now()) {
      return errorPage(400, 'Sign-in expired', 'This sign-in request is unknown, was already answered, or has expired.')
    }
    const cookie = cookies[csrfCookieName(request.id)]
    if (!csrf || !sameHash(sha256Hex(csrf), request.csrf_hash) || cookie !== csrf) {
      return errorPage(403, 'Request not verified', 'The form could not be verified as coming from this page in this browser (its security token or cookie is missing or wrong).')
    }
    const client = await this.store.oauth.getClient(request.client_id)
    if (!client) return errorPage(400, 'Unknown application', 'The application was removed while you were signing in.')
    const cookieName = csrfCookieName(request.id)
    const finish = (params: Record<string, string | null>): AuthorizeOutcome =>
      ({kind: 'redirect', location: redirectWith(request.redirect_uri, {...params, state: request.state, iss: base}), clearCookie: cookieName})

    const decision = form.get('decision')
    if (decision === 'deny') {
      await this.store.oauth.deleteRequest(request.id)
      return finish({error: 'access_denied', error_description: 'the person denied the request'})
    }
    const view = consentView(client, request.id, csrf, request.redirect_uri, request.resource)
    if (decision !== 'approve') return {kind: 'consent', status: 400, view: {...view, error: 'Choose Approve or Deny.'}}

    const key = form.get('api_key')?.trim() ?? ''
    const caller = key === '' ? null : await this.checkKey(key)
    if (!caller || caller.credential.kind !== 'api_key') {
      const attempts = await this.store.oauth.addRequestAttempt(request.id)
      if (attempts >= MAX_CONSENT_ATTEMPTS) {
        await this.store.oauth.deleteRequest(request.id)
        return finish({error: 'access_denied', error_description: 'too many failed sign-in attempts'})
      }
      const error = key === '' ? 'Paste your API key to approve.' : 'That API key is unknown, revoked or expired. Try another one.'
      return {kind: 'consent', status: 400, view: {...view, error}}
    }
    // Deleting the request is what makes an approval happen once, even if the form is sent twice.
    if (!(await this.store.oauth.deleteRequest(request.id))) return errorPage(400, 'Sign-in expired', 'This sign-in request was already answered.')

    const code = PREFIX.code + randomBase62(43)
    const now = Date.now()
    const row: OAuthCodeRow = {
      hash: sha256Hex(code), grant_id: uuidv7(now), client_id: client.id, principal_id: caller.principal.id, project_id: caller.credential.projectId,
      redirect_uri: request.redirect_uri, redirect_uri_given: request.redirect_uri_given, code_challenge: request.code_challenge,
      resource: request.resource, scope: request.scope, created_at: new Date(now).toISOString(), expires_at: new Date(now + CODE_TTL_MS).toISOString(), used_at: null,
    }
    await this.store.oauth.insertCode(row)
    this.log?.debug({client: client.id, principal: caller.principal.name}, 'oauth: authorization approved')
    return finish({code})
  }

  // ---- token endpoint ----

  async token(form: URLSearchParams, authorization: string | undefined): Promise<TokenResponse | OAuthFailure> {
    const repeated = repeatedParam(form)
    if (repeated) return oauthError(400, 'invalid_request', `parameter ${repeated} was given more than once`)
    const grantType = form.get('grant_type')
    if (!grantType) return oauthError(400, 'invalid_request', 'grant_type is required')
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') return oauthError(400, 'unsupported_grant_type', `grant_type ${grantType} is not supported`)
    const client = await this.authenticateClient(form, authorization)
    if (isFailure(client)) return client
    if (!client.metadata.grant_types.includes(grantType)) return oauthError(400, 'unauthorized_client', `the client did not register the ${grantType} grant type`)
    const result = grantType === 'authorization_code' ? await this.exchangeCode(form, client) : await this.refresh(form, client)
    if (!isFailure(result)) {
      await this.store.oauth.touchClient(client.id, new Date().toISOString())
      this.maybePurge()
    }
    return result
  }

  private async exchangeCode(form: URLSearchParams, client: OAuthClientRow): Promise<TokenResponse | OAuthFailure> {
    const code = form.get('code')
    const verifier = form.get('code_verifier')
    if (!code) return oauthError(400, 'invalid_request', 'code is required')
    if (!verifier) return oauthError(400, 'invalid_request', 'code_verifier is required (PKCE)')
    if (!VERIFIER_RE.test(verifier)) return oauthError(400, 'invalid_request', 'code_verifier must be 43–128 characters of A-Z a-z 0-9 - . _ ~')
    const hash = sha256Hex(code)
    const row = await this.store.oauth.findCode(hash)
    if (!row) return oauthError(400, 'invalid_grant', 'the authorization code is unknown or expired')
    if (row.used_at !== null) return this.replayedCode(row)
    if (row.client_id !== client.id) return oauthError(400, 'invalid_grant', 'the authorization code was issued to another client')
    if (Date.parse(row.expires_at) <= Date.now()) return oauthError(400, 'invalid_grant', 'the authorization code has expired')
    const redirectUri = form.get('redirect_uri')
    if (row.redirect_uri_given ? redirectUri !== row.redirect_uri : redirectUri !== null && redirectUri !== row.redirect_uri) {
      return oauthError(400, 'invalid_grant', 'redirect_uri differs from the one in the authorization request')
    }
    if (!sameHash(pkceChallenge(verifier), row.code_challenge)) return oauthError(400, 'invalid_grant', 'code_verifier does not match the code_challenge')
    const resource = grantResource(form.get('resource'), row.resource)
    if (resource === null) return oauthError(400, 'invalid_target', `resource must be ${allowedResources(resourceBase(row.resource)).join(' or ')}`)
    const issued = this.issue(client, row, resource, row.resource)
    if (!(await this.store.oauth.exchangeCode(hash, new Date().toISOString(), issued.rows))) return this.replayedCode(row)
    return issued.response
  }

  /** A code presented twice: someone else may hold it, so everything issued from it is revoked. */
  private async replayedCode(row: OAuthCodeRow): Promise<OAuthFailure> {
    const revoked = await this.store.oauth.revokeGrant(row.grant_id, new Date().toISOString())
    this.log?.warn({client: row.client_id, revoked}, 'oauth: authorization code replayed; its tokens are revoked')
    return oauthError(400, 'invalid_grant', 'the authorization code was already used; the tokens issued from it are revoked')
  }

  private async refresh(form: URLSearchParams, client: OAuthClientRow): Promise<TokenResponse | OAuthFailure> {
    const token = form.get('refresh_token')
    if (!token) return oauthError(400, 'invalid_request', 'refresh_token is required')
    const hash = sha256Hex(token)
    const row = await this.store.oauth.findToken(hash)
    if (!row || row.kind !== 'refresh') return oauthError(400, 'invalid_grant', 'the refresh token is unknown or expired')
    if (row.client_id !== client.id) return oauthError(400, 'invalid_grant', 'the refresh token was issued to another client')
    if (row.revoked_at !== null) return oauthError(400, 'invalid_grant', 'the refresh token was revoked')
    if (row.used_at !== null) return this.reusedRefreshToken(row)
    if (Date.parse(row.expires_at) <= Date.now()) return oauthError(400, 'invalid_grant', 'the refresh token has expired')
    const resource = grantResource(form.get('resource'), row.resource)
    if (resource === null) return oauthError(400, 'invalid_target', `resource must be ${allowedResources(resourceBase(row.resource)).join(' or ')}`)
    const issued = this.issue(client, row, resource, row.resource)
    if (!(await this.store.oauth.rotateRefreshToken(hash, new Date().toISOString(), issued.rows))) return this.reusedRefreshToken(row)
    return issued.response
  }

  /** A rotated refresh token used again: the family is compromised, so all of it is revoked. */
  private async reusedRefreshToken(row: OAuthTokenRow): Promise<OAuthFailure> {
    const revoked = await this.store.oauth.revokeGrant(row.grant_id, new Date().toISOString())
    this.log?.warn({client: row.client_id, revoked}, 'oauth: refresh token reused; its whole grant is revoked')
    return oauthError(400, 'invalid_grant', 'the refresh token was already used; every token of this grant is revoked')
  }

  /** A new access token (and refresh token, if the client uses them) for a grant. */
  private issue(client: OAuthClientRow, grant: {grant_id: string; principal_id: string; project_id: string | null; scope: string | null}, resource: string, refreshResource: string): {rows: OAuthTokenRow[]; response: TokenResponse} {
    const now = Date.now()
    const at = new Date(now).toISOString()
    const base = {grant_id: grant.grant_id, client_id: client.id, principal_id: grant.principal_id, project_id: grant.project_id, scope: grant.scope, created_at: at, used_at: null, revoked_at: null}
    const access = PREFIX.accessToken + randomBase62(43)
    const rows: OAuthTokenRow[] = [{...base, hash: sha256Hex(access), id: uuidv7(now), kind: 'access', resource, expires_at: new Date(now + ACCESS_TOKEN_TTL_S * 1000).toISOString()}]
    const response: TokenResponse = {access_token: access, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_S}
    if (client.metadata.grant_types.includes('refresh_token')) {
      const refresh = PREFIX.refreshToken + randomBase62(43)
      rows.push({...base, hash: sha256Hex(refresh), id: uuidv7(now), kind: 'refresh', resource: refreshResource, expires_at: new Date(now + REFRESH_TOKEN_TTL_MS).toISOString()})
      response.refresh_token = refresh
    }
    if (grant.scope) response.scope = grant.scope
    return {rows, response}
  }

  /**
   * Client authentication at the token and revocation endpoints: `client_secret_basic` (RFC 6749 §2.3.1,
   * id and secret form-urlencoded inside the Basic credentials), `client_secret_post`, or `none` for public
   * clients, which only name themselves.
   */
  private async authenticateClient(form: URLSearchParams, authorization: string | undefined): Promise<OAuthClientRow | OAuthFailure> {
    let id = form.get('client_id')
    let secret = form.get('client_secret')
    let basic = false
    if (authorization !== undefined && authorization.trim() !== '') {
      const m = /^Basic +([A-Za-z0-9+/=_-]+) *$/i.exec(authorization)
      const decoded = m ? decodeBasic(m[1]!) : null
      if (!decoded) return oauthError(401, 'invalid_client', 'the Authorization header must be Basic client credentials', {'WWW-Authenticate': 'Basic realm="kb"'})
      if (secret !== null) return oauthError(400, 'invalid_request', 'use one client authentication method, not Basic and client_secret together')
      if (id !== null && id !== decoded.id) return oauthError(400, 'invalid_request', 'client_id in the body differs from the Basic credentials')
      id = decoded.id
      secret = decoded.secret
      basic = true
    }
    const challenge = basic ? {'WWW-Authenticate': 'Basic realm="kb"'} : undefined
    if (!id) return oauthError(401, 'invalid_client', 'client authentication is required: send client_id (public clients) or client credentials', challenge)
    const client = await this.store.oauth.getClient(id)
    if (!client) return oauthError(401, 'invalid_client', `no client is registered as "${id}"; register again`, challenge)
    if (client.secret_hash !== null) {
      if (!secret || !sameHash(sha256Hex(secret), client.secret_hash)) return oauthError(401, 'invalid_client', 'the client secret is missing or wrong', challenge)
    } else if (secret) {
      return oauthError(401, 'invalid_client', 'this client is public (token_endpoint_auth_method none) and has no secret', challenge)
    }
    return client
  }

  // ---- revocation (RFC 7009) ----

  async revoke(form: URLSearchParams, authorization: string | undefined): Promise<null | OAuthFailure> {
    const repeated = repeatedParam(form)
    if (repeated) return oauthError(400, 'invalid_request', `parameter ${repeated} was given more than once`)
    const client = await this.authenticateClient(form, authorization)
    if (isFailure(client)) return client
    const token = form.get('token')
    if (!token) return oauthError(400, 'invalid_request', 'token is required')
    const hash = sha256Hex(token)
    const row = await this.store.oauth.findToken(hash)
    // Unknown tokens and other clients' tokens get the same 200 (RFC 7009 §2.2): nothing to learn here.
    if (!row || row.client_id !== client.id) return null
    const at = new Date().toISOString()
    // A refresh token stands for the whole grant, so its access tokens go too (RFC 7009 §2.1).
    if (row.kind === 'refresh') await this.store.oauth.revokeGrant(row.grant_id, at)
    else await this.store.oauth.revokeToken(hash, at)
    return null
  }

  // ---- the API's side ----

  /** The caller an access token stands for, if it is live and meant for this API (or its MCP endpoint). */
  async verifyAccessToken(token: string, baseUrl: string | undefined): Promise<Caller | null> {
    if (!token.startsWith(PREFIX.accessToken) || baseUrl === undefined) return null
    const row = await this.store.oauth.findToken(sha256Hex(token))
    if (!row || row.kind !== 'access' || row.revoked_at !== null || Date.parse(row.expires_at) <= Date.now()) return null
    if (!allowedResources(baseUrl).includes(row.resource)) return null
    const principal = await this.store.getPrincipal(row.principal_id)
    if (!principal) return null
    return {principal, credential: {kind: 'oauth', id: row.id, projectId: row.project_id}}
  }

  // ---- clean-up ----

  /** Deletes expired codes, tokens, consent requests and long-idle clients. */
  async purge(now: number = Date.now()): Promise<number> {
    this.lastPurge = now
    return this.store.oauth.purgeExpired({
      now: new Date(now).toISOString(),
      codes: new Date(now - CODE_RETENTION_MS).toISOString(),
      unusedClients: new Date(now - UNUSED_CLIENT_TTL_MS).toISOString(),
      idleClients: new Date(now - IDLE_CLIENT_TTL_MS).toISOString(),
    })
  }

  /** Sweeps now and then every PURGE_INTERVAL_MS until `stop`; the timer does not keep the process alive. */
  start(): void {
    if (this.timer) return
    this.maybePurge(true)
    this.timer = setInterval(() => this.maybePurge(true), PURGE_INTERVAL_MS)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  /** Also sweeps on writes, at most once a minute, so a busy server without the timer still stays small. */
  private maybePurge(force = false): void {
    if (!force && Date.now() - this.lastPurge < 60_000) return
    this.lastPurge = Date.now()
    this.purge().catch((e: unknown) => this.log?.warn({err: e}, 'oauth: purging expired records failed'))
  }
}

function errorPage(status: 400 | 403 | 429, title: string, message: string): AuthorizeOutcome {
  return {kind: 'error_page', status, title, message}
}

function consentView(client: OAuthClientRow, requestId: string, csrf: string, redirectUri: string, resource: string): Omit<ConsentView, 'action'> {
  const m: OAuthClientMetadata = client.metadata
  return {requestId, csrfToken: csrf, clientId: client.id, clientName: m.client_name, clientUri: m.client_uri, redirectTo: redirectDisplay(redirectUri), resource}
}

/** The first parameter that appears more than once (RFC 6749 §3.1 forbids repeats), if any. */
function repeatedParam(q: URLSearchParams): string | null {
  const seen = new Set<string>()
  for (const k of q.keys()) {
    if (seen.has(k)) return k
    seen.add(k)
  }
  return null
}

/** The redirect URI with response parameters added to its query (nulls left out). */
function redirectWith(uri: string, params: Record<string, string | null>): string {
  const url = new URL(uri)
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.append(k, k === 'error_description' ? errorDescription(v) : v)
  return url.toString()
}

/** The resource a request asked for, normalised, if it is one of ours; `base` when none was asked for. */
function resolveResource(requested: string | null, base: string): string | null {
  if (requested === null || requested === '') return base
  const r = trimTrailingSlashes(requested)
  return allowedResources(base).includes(r) ? r : null
}

/**
 * The audience for tokens of a grant bound to `granted`: that one unless the request names the other
 * resource of the same server (a token for the API or its MCP endpoint works on both anyway).
 */
function grantResource(requested: string | null, granted: string): string | null {
  return requested === null || requested === '' ? granted : resolveResource(requested, resourceBase(granted))
}

/** The API base a resource belongs to (`{base}/mcp` → `{base}`). */
function resourceBase(resource: string): string {
  return resource.endsWith('/mcp') ? resource.slice(0, -'/mcp'.length) : resource
}

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url')
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** Basic credentials: base64 of `urlencode(id):urlencode(secret)` (RFC 6749 §2.3.1). */
function decodeBasic(b64: string): {id: string; secret: string} | null {
  const text = Buffer.from(b64, 'base64').toString('utf8')
  const colon = text.indexOf(':')
  if (colon <= 0) return null
  try {
    const dec = (s: string): string => decodeURIComponent(s.replace(/\+/g, ' '))
    return {id: dec(text.slice(0, colon)), secret: dec(text.slice(colon + 1))}
  } catch {
    return null
  }
}
