/**
 * @module Dynamic client registration (RFC 7591): turning a request body into the metadata kb keeps, or
 * into the OAuth error that says what is wrong, and storing the client, rate-limited per address. Fields
 * kb does not understand are ignored, as §2 asks.
 */
import {randomUUID} from 'node:crypto'
import {randomBase62, sha256Hex} from '../lib/ids.js'
import type {OAuthClientMetadata, OAuthClientRow} from '../store/oauth-store.js'
import type {Store} from '../store/store.js'
import {PREFIX, REGISTRATION_BURST, REGISTRATION_PER_MINUTE} from './config.js'
import {RateLimiter} from './rate-limit.js'
import {isFailure, oauthError, type OAuthFailure} from './result.js'
import {redirectUriProblem} from './redirect-uris.js'
import type {OAuthSweeper} from './sweep.js'

const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const
const GRANT_TYPES = ['authorization_code', 'refresh_token']
const MAX_REDIRECT_URIS = 20
const MAX_TEXT = 2000
const TEXT_FIELDS = ['client_name', 'scope', 'software_id', 'software_version'] as const
const URL_FIELDS = ['client_uri', 'logo_uri', 'tos_uri', 'policy_uri'] as const

/** The registration endpoint. */
export class RegistrationEndpoint {
  private readonly limiter = new RateLimiter(REGISTRATION_BURST, REGISTRATION_PER_MINUTE)

  constructor(
    private readonly store: Store,
    private readonly sweeper: OAuthSweeper,
  ) {}

  async register(body: unknown, clientAddress: string): Promise<{client: Record<string, unknown>} | OAuthFailure> {
    const metadata = parseClientMetadata(body)
    if (isFailure(metadata)) return metadata
    // Only registrations that would be stored count: the limit is there to keep the store small.
    const wait = this.limiter.take(clientAddress)
    if (wait > 0)
      return oauthError(429, 'too_many_requests', `too many client registrations from this address; retry in ${wait} s`, {
        'Retry-After': String(wait),
      })
    const now = Date.now()
    const secret = metadata.token_endpoint_auth_method === 'none' ? null : PREFIX.clientSecret + randomBase62(43)
    const row: OAuthClientRow = {
      id: randomUUID(),
      secret_hash: secret ? sha256Hex(secret) : null,
      metadata,
      created_at: new Date(now).toISOString(),
      last_used_at: null,
    }
    await this.store.oauth.insertClient(row)
    this.sweeper.afterWrite()
    return {
      client: {
        client_id: row.id,
        client_id_issued_at: Math.floor(now / 1000),
        ...(secret ? {client_secret: secret, client_secret_expires_at: 0} : {}),
        ...metadata,
      },
    }
  }
}

function parseClientMetadata(body: unknown): OAuthClientMetadata | OAuthFailure {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return oauthError(400, 'invalid_client_metadata', 'the body must be a JSON object of client metadata (RFC 7591)')
  }
  const b = body as Record<string, unknown>

  const uris = b.redirect_uris
  if (!Array.isArray(uris) || uris.length === 0)
    return oauthError(400, 'invalid_redirect_uri', 'redirect_uris: a non-empty array of URIs is required')
  if (uris.length > MAX_REDIRECT_URIS) return oauthError(400, 'invalid_redirect_uri', `redirect_uris: at most ${MAX_REDIRECT_URIS}`)
  for (const [i, uri] of uris.entries()) {
    if (typeof uri !== 'string') return oauthError(400, 'invalid_redirect_uri', `redirect_uris[${i}] must be a string`)
    const problem = redirectUriProblem(uri)
    if (problem) return oauthError(400, 'invalid_redirect_uri', `redirect_uris[${i}] ${problem}`)
  }

  const method = b.token_endpoint_auth_method ?? 'none'
  if (typeof method !== 'string' || !(AUTH_METHODS as readonly string[]).includes(method)) {
    return oauthError(400, 'invalid_client_metadata', `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`)
  }

  // Clients that leave grant_types out still get refresh tokens: every real MCP client wants them.
  const grantTypes = b.grant_types ?? ['authorization_code', 'refresh_token']
  if (!isStringArray(grantTypes) || grantTypes.length === 0)
    return oauthError(400, 'invalid_client_metadata', 'grant_types must be a non-empty array of strings')
  const badGrant = grantTypes.find((g) => !GRANT_TYPES.includes(g))
  if (badGrant !== undefined)
    return oauthError(400, 'invalid_client_metadata', `grant type "${badGrant}" is not supported; use ${GRANT_TYPES.join(' and ')}`)
  if (!grantTypes.includes('authorization_code'))
    return oauthError(400, 'invalid_client_metadata', 'grant_types must include authorization_code')

  const responseTypes = b.response_types ?? ['code']
  if (!isStringArray(responseTypes) || responseTypes.length === 0 || responseTypes.some((r) => r !== 'code')) {
    return oauthError(400, 'invalid_client_metadata', 'response_types: only "code" is supported')
  }

  const metadata: OAuthClientMetadata = {
    redirect_uris: [...new Set(uris as string[])],
    token_endpoint_auth_method: method as OAuthClientMetadata['token_endpoint_auth_method'],
    grant_types: [...new Set(grantTypes)],
    response_types: ['code'],
  }
  for (const field of TEXT_FIELDS) {
    const v = b[field]
    if (v === undefined || v === null) continue
    if (typeof v !== 'string' || v.length > MAX_TEXT)
      return oauthError(400, 'invalid_client_metadata', `${field} must be a string of at most ${MAX_TEXT} characters`)
    metadata[field] = v
  }
  for (const field of URL_FIELDS) {
    const v = b[field]
    if (v === undefined || v === null) continue
    if (typeof v !== 'string') return oauthError(400, 'invalid_client_metadata', `${field} must be a string`)
    // Only web links are kept (RFC 7591 lets the server drop what it will not use); a data: logo is no reason to fail.
    if (v.length <= MAX_TEXT && isWebUrl(v)) metadata[field] = v
  }
  if (b.contacts !== undefined && b.contacts !== null) {
    if (!isStringArray(b.contacts) || b.contacts.length > 20 || b.contacts.some((c) => c.length > 320)) {
      return oauthError(400, 'invalid_client_metadata', 'contacts must be an array of at most 20 strings')
    }
    metadata.contacts = b.contacts
  }
  return metadata
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string')
}

function isWebUrl(v: string): boolean {
  try {
    const u = new URL(v)
    return u.protocol === 'https:' || u.protocol === 'http:'
  } catch {
    return false
  }
}
