/**
 * @module The authorization endpoint (OAuth 2.1 §4.1): the authorization request, checked and recorded as a
 * pending consent, and the consent form's decision — approved with an API key, which issues a single-use
 * code, or denied. Redirect-URI errors are shown, never redirected (docs/oauth.md).
 */
import {randomBytes, randomUUID} from 'node:crypto'
import {randomBase62, sameHash, sha256Hex, uuidv7} from '../lib/ids.js'
import type {OAuthClientMetadata, OAuthClientRow, OAuthCodeRow, OAuthGrantRow} from '../store/oauth-store.js'
import type {Store} from '../store/store.js'
import {CODE_TTL_MS, CONSENT_BURST, CONSENT_PER_MINUTE, CONSENT_TTL_MS, GRANT_TTL_MS, MAX_CONSENT_ATTEMPTS, PREFIX} from './config.js'
import type {ConsentView} from './consent-page.js'
import {repeatedParam, type KeyCheck, type Logger} from './endpoint.js'
import {allowedResources} from './metadata.js'
import {RateLimiter} from './rate-limit.js'
import {matchRedirectUri, redirectDisplay} from './redirect-uris.js'
import {resolveResource} from './resources.js'
import {errorDescription} from './result.js'

/** What the authorization endpoint answers. */
export type AuthorizeOutcome =
  | {kind: 'error_page'; status: 400 | 403 | 429; title: string; message: string; headers?: Record<string, string>}
  | {kind: 'redirect'; location: string; clearCookie?: string}
  | {kind: 'consent'; status: 200 | 400; view: Omit<ConsentView, 'action'>; setCookie?: {name: string; value: string}}

/** The cookie that binds a consent form to the browser that loaded it (double-submit CSRF protection). */
function csrfCookieName(requestId: string): string {
  return `kb_oauth_${requestId}`
}

/** A PKCE S256 challenge: the base64url SHA-256 of the verifier. */
const CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/
const MAX_STATE = 2000
const MAX_SCOPE = 1000

export class AuthorizationEndpoint {
  /** Consent pages opened per client address. */
  private readonly limiter = new RateLimiter(CONSENT_BURST, CONSENT_PER_MINUTE)

  constructor(
    private readonly store: Store,
    private readonly checkKey: KeyCheck,
    private readonly log?: Logger,
  ) {}

  /** Validates an authorization request; on success records it and returns the consent page. */
  async authorize(q: URLSearchParams, base: string, clientAddress: string): Promise<AuthorizeOutcome> {
    const repeated = repeatedParam(q)
    const clientId = q.get('client_id')
    if (!clientId || repeated === 'client_id')
      return errorPage(400, 'Unknown application', 'The request does not name a client (client_id is missing).')
    const client = await this.store.oauth.getClient(clientId)
    if (!client)
      return errorPage(
        400,
        'Unknown application',
        `No application is registered as "${clientId}". It may have been removed; the application should register again.`,
      )

    const requested = q.get('redirect_uri')
    if (repeated === 'redirect_uri') return errorPage(400, 'Invalid redirect', 'redirect_uri was given more than once.')
    const redirectUri = redirectUriOf(requested, client.metadata.redirect_uris)
    if (typeof redirectUri !== 'string') return redirectUri

    const state = q.get('state')
    const fail = (error: string, description: string): AuthorizeOutcome => ({
      kind: 'redirect',
      location: redirectWith(redirectUri, {error, error_description: description, state, iss: base}),
    })
    if (repeated) return fail('invalid_request', `parameter ${repeated} was given more than once`)
    const responseType = q.get('response_type')
    if (responseType === null) return fail('invalid_request', 'response_type is required (use code)')
    if (responseType !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported')
    if (!client.metadata.response_types.includes('code'))
      return fail('unauthorized_client', 'the client did not register the code response type')
    const method = q.get('code_challenge_method')
    const challenge = q.get('code_challenge')
    if (challenge === null) return fail('invalid_request', 'code_challenge is required (PKCE with S256)')
    if (method !== 'S256')
      return fail(
        'invalid_request',
        method === null ? 'code_challenge_method=S256 is required' : `code_challenge_method ${method} is not supported; use S256`,
      )
    if (!CHALLENGE_RE.test(challenge))
      return fail('invalid_request', 'code_challenge must be the 43-character base64url SHA-256 of the code verifier')
    if (state !== null && state.length > MAX_STATE) return fail('invalid_request', `state is longer than ${MAX_STATE} characters`)
    const scope = q.get('scope')
    if (scope !== null && scope.length > MAX_SCOPE) return fail('invalid_scope', `scope is longer than ${MAX_SCOPE} characters`)
    const resource = resolveResource(q.get('resource'), base)
    if (resource === null) return fail('invalid_target', `resource must be ${allowedResources(base).join(' or ')}`)

    // Every consent page is a stored pending request, so opening them is rate-limited like registration.
    const wait = this.limiter.take(clientAddress)
    if (wait > 0)
      return {
        kind: 'error_page',
        status: 429,
        title: 'Too many sign-in attempts',
        message: `Too many sign-in pages were opened from this address; try again in ${wait} s.`,
        headers: {'Retry-After': String(wait)},
      }
    const csrf = randomBytes(32).toString('base64url')
    const now = Date.now()
    const request = {
      id: randomUUID(),
      csrf_hash: sha256Hex(csrf),
      client_id: client.id,
      redirect_uri: redirectUri,
      redirect_uri_given: requested !== null,
      code_challenge: challenge,
      resource,
      scope,
      state,
      attempts: 0,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + CONSENT_TTL_MS).toISOString(),
    }
    await this.store.oauth.insertRequest(request)
    return {
      kind: 'consent',
      status: 200,
      view: consentView(client, request.id, csrf, redirectUri, resource),
      setCookie: {name: csrfCookieName(request.id), value: csrf},
    }
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
      return errorPage(
        403,
        'Request not verified',
        'The form could not be verified as coming from this page in this browser (its security token or cookie is missing or wrong).',
      )
    }
    const client = await this.store.oauth.getClient(request.client_id)
    if (!client) return errorPage(400, 'Unknown application', 'The application was removed while you were signing in.')
    const cookieName = csrfCookieName(request.id)
    const finish = (params: Record<string, string | null>): AuthorizeOutcome => ({
      kind: 'redirect',
      location: redirectWith(request.redirect_uri, {...params, state: request.state, iss: base}),
      clearCookie: cookieName,
    })

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
    if (!(await this.store.oauth.deleteRequest(request.id)))
      return errorPage(400, 'Sign-in expired', 'This sign-in request was already answered.')

    const code = PREFIX.code + randomBase62(43)
    const now = Date.now()
    // The grant is tied to the key that approved it: revoking that key ends every token issued under it.
    const grant: OAuthGrantRow = {
      id: uuidv7(now),
      client_id: client.id,
      principal_id: caller.principal.id,
      api_key_id: caller.credential.id,
      project_id: caller.credential.projectId,
      scope: request.scope,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + GRANT_TTL_MS).toISOString(),
      last_used_at: null,
      revoked_at: null,
    }
    await this.store.oauth.insertGrant(grant)
    const row: OAuthCodeRow = {
      hash: sha256Hex(code),
      grant_id: grant.id,
      client_id: client.id,
      principal_id: caller.principal.id,
      project_id: caller.credential.projectId,
      redirect_uri: request.redirect_uri,
      redirect_uri_given: request.redirect_uri_given,
      code_challenge: request.code_challenge,
      resource: request.resource,
      scope: request.scope,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + CODE_TTL_MS).toISOString(),
      used_at: null,
    }
    await this.store.oauth.insertCode(row)
    this.log?.debug({client: client.id, principal: caller.principal.name}, 'oauth: authorization approved')
    return finish({code})
  }
}

function errorPage(status: 400 | 403 | 429, title: string, message: string): AuthorizeOutcome {
  return {kind: 'error_page', status, title, message}
}

function consentView(
  client: OAuthClientRow,
  requestId: string,
  csrf: string,
  redirectUri: string,
  resource: string,
): Omit<ConsentView, 'action'> {
  const m: OAuthClientMetadata = client.metadata
  return {
    requestId,
    csrfToken: csrf,
    clientId: client.id,
    clientName: m.client_name,
    clientUri: m.client_uri,
    redirectTo: redirectDisplay(redirectUri),
    resource,
  }
}

/** The redirect URI with response parameters added to its query (nulls left out). */
function redirectWith(uri: string, params: Record<string, string | null>): string {
  const url = new URL(uri)
  for (const [k, v] of Object.entries(params))
    if (v !== null) url.searchParams.append(k, k === 'error_description' ? errorDescription(v) : v)
  return url.toString()
}

/** The redirect URI the request names, or the one the client registered; an error page when it cannot be trusted. */
function redirectUriOf(requested: string | null, registered: string[]): string | AuthorizeOutcome {
  if (requested === null) {
    if (registered.length !== 1)
      return errorPage(400, 'Invalid redirect', 'redirect_uri is required: the application registered more than one.')
    return registered[0]!
  }
  if (matchRedirectUri(requested, registered) === null)
    return errorPage(
      400,
      'Invalid redirect',
      `The redirect URI ${requested} is not registered for this application, so kb will not send you there.`,
    )
  return requested
}
