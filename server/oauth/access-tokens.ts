/**
 * @module The API's side of OAuth: the caller an access token stands for, when it is live and its audience
 * is this API or its MCP endpoint (RFC 8707, docs/oauth.md) and its grant still stands.
 */
import {sha256Hex} from '../lib/ids.js'
import type {Caller} from '../services/context.js'
import type {Store} from '../store/store.js'
import {PREFIX} from './config.js'
import {liveGrant} from './grants.js'
import {allowedResources} from './metadata.js'

/** The caller an access token stands for, if it is live and meant for this API (or its MCP endpoint). */
export async function verifyAccessToken(store: Store, token: string, baseUrl: string | undefined): Promise<Caller | null> {
  if (!token.startsWith(PREFIX.accessToken) || baseUrl === undefined) return null
  const row = await store.oauth.findToken(sha256Hex(token))
  if (!row || row.kind !== 'access' || row.revoked_at !== null || Date.parse(row.expires_at) <= Date.now()) return null
  if (!allowedResources(baseUrl).includes(row.resource)) return null
  // The grant stands only while the API key that approved it does (docs/oauth.md, "Grants").
  if (!(await liveGrant(store, row.grant_id, Date.now()))) return null
  const principal = await store.getPrincipal(row.principal_id)
  if (!principal) return null
  return {principal, credential: {kind: 'oauth', id: row.id, projectId: row.project_id, clientId: row.client_id}}
}
