/**
 * @module The revocation endpoint (RFC 7009): a client revokes one of its tokens; a refresh token takes its
 * whole grant with it.
 */
import {sha256Hex} from '../lib/ids.js'
import type {Store} from '../store/store.js'
import {authenticateClient} from './client-auth.js'
import {repeatedParam} from './endpoint.js'
import {isFailure, oauthError, type OAuthFailure} from './result.js'

export async function revoke(store: Store, form: URLSearchParams, authorization: string | undefined): Promise<null | OAuthFailure> {
  const repeated = repeatedParam(form)
  if (repeated) return oauthError(400, 'invalid_request', `parameter ${repeated} was given more than once`)
  const client = await authenticateClient(store, form, authorization)
  if (isFailure(client)) return client
  const token = form.get('token')
  if (!token) return oauthError(400, 'invalid_request', 'token is required')
  const hash = sha256Hex(token)
  const row = await store.oauth.findToken(hash)
  // Unknown tokens and other clients' tokens get the same 200 (RFC 7009 §2.2): nothing to learn here.
  if (!row || row.client_id !== client.id) return null
  const at = new Date().toISOString()
  // A refresh token stands for the whole grant, so its access tokens go too (RFC 7009 §2.1).
  if (row.kind === 'refresh') await store.oauth.revokeGrant(row.grant_id, at)
  else await store.oauth.revokeToken(hash, at)
  return null
}
