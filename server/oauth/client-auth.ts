/**
 * @module Client authentication at the token and revocation endpoints (RFC 6749 §2.3): a confidential
 * client proves itself with its secret, a public one only names itself.
 */
import {sameHash, sha256Hex} from '../lib/ids.js'
import type {OAuthClientRow} from '../store/oauth-store.js'
import type {Store} from '../store/store.js'
import {oauthError, type OAuthFailure} from './result.js'

/**
 * The client of a request, authenticated by `client_secret_basic` (RFC 6749 §2.3.1, id and secret
 * form-urlencoded inside the Basic credentials), `client_secret_post`, or `none` for public clients.
 */
export async function authenticateClient(
  store: Store,
  form: URLSearchParams,
  authorization: string | undefined,
): Promise<OAuthClientRow | OAuthFailure> {
  let id = form.get('client_id')
  let secret = form.get('client_secret')
  let basic = false
  if (authorization !== undefined && authorization.trim() !== '') {
    const m = /^Basic +([A-Za-z0-9+/=_-]+) *$/i.exec(authorization)
    const decoded = m ? decodeBasic(m[1]!) : null
    if (!decoded)
      return oauthError(401, 'invalid_client', 'the Authorization header must be Basic client credentials', {
        'WWW-Authenticate': 'Basic realm="kb"',
      })
    if (secret !== null)
      return oauthError(400, 'invalid_request', 'use one client authentication method, not Basic and client_secret together')
    if (id !== null && id !== decoded.id)
      return oauthError(400, 'invalid_request', 'client_id in the body differs from the Basic credentials')
    id = decoded.id
    secret = decoded.secret
    basic = true
  }
  const challenge = basic ? {'WWW-Authenticate': 'Basic realm="kb"'} : undefined
  if (!id)
    return oauthError(
      401,
      'invalid_client',
      'client authentication is required: send client_id (public clients) or client credentials',
      challenge,
    )
  const client = await store.oauth.getClient(id)
  if (!client) return oauthError(401, 'invalid_client', `no client is registered as "${id}"; register again`, challenge)
  if (client.secret_hash !== null) {
    if (!secret || !sameHash(sha256Hex(secret), client.secret_hash))
      return oauthError(401, 'invalid_client', 'the client secret is missing or wrong', challenge)
  } else if (secret) {
    return oauthError(401, 'invalid_client', 'this client is public (token_endpoint_auth_method none) and has no secret', challenge)
  }
  return client
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
