/**
 * @module Grants (docs/oauth.md, "Grants"): one approval of a client, made with an API key. A grant stands
 * while it is not revoked, not past its absolute end, and the key that approved it is neither revoked nor
 * expired; every code and token of it is checked against that on use. A principal lists and revokes its own.
 */
import {KbError} from '../../src/shared/errors.js'
import type {Grant} from '../../src/shared/types.js'
import type {Caller} from '../services/context.js'
import type {OAuthGrantState} from '../store/oauth-store.js'
import type {Store} from '../store/store.js'
import {GRANT_TOUCH_EVERY_MS} from './config.js'

/** Whether a grant still stands at `now` (ms): the rule every code exchange, refresh and API request applies. */
function grantLive(g: OAuthGrantState | null, now: number): g is OAuthGrantState {
  return (
    g !== null &&
    g.revoked_at === null &&
    Date.parse(g.expires_at) > now &&
    g.key_revoked_at === null &&
    (g.key_expires_at === null || Date.parse(g.key_expires_at) > now)
  )
}

/** The grant a code or token descends from, when it still stands; its last use is written down at most once a minute. */
export async function liveGrant(store: Store, grantId: string, now: number): Promise<OAuthGrantState | null> {
  const g = await store.oauth.getGrant(grantId)
  if (!grantLive(g, now)) return null
  if (g.last_used_at === null || now - Date.parse(g.last_used_at) > GRANT_TOUCH_EVERY_MS)
    await store.oauth.touchGrant(g.id, new Date(now).toISOString())
  return g
}

/** An expiry time capped at the grant's end. */
export function withinGrant(expiresAtMs: number, g: OAuthGrantState): string {
  return new Date(Math.min(expiresAtMs, Date.parse(g.expires_at))).toISOString()
}

function toGrant(g: OAuthGrantState): Grant {
  return {
    id: g.id,
    client_id: g.client_id,
    client_name: g.client_name,
    api_key_id: g.api_key_id,
    project_id: g.project_id,
    created_at: g.created_at,
    last_used_at: g.last_used_at,
    expires_at: g.expires_at,
  }
}

export class GrantService {
  constructor(private readonly store: Store) {}

  /** The caller's standing grants, newest first. */
  async list(caller: Caller): Promise<Grant[]> {
    const now = Date.now()
    const rows = await this.store.oauth.listGrants(caller.principal.id, new Date(now).toISOString())
    return rows.filter((g) => grantLive(g, now)).map(toGrant)
  }

  /** Ends one of the caller's grants and every token of it; another principal's grant is 404, like a missing one. */
  async revoke(caller: Caller, id: string): Promise<void> {
    const g = await this.store.oauth.getGrant(id.toLowerCase())
    if (!g || g.principal_id !== caller.principal.id || !grantLive(g, Date.now()))
      throw new KbError('not_found', `grant ${id} does not exist or is not yours`)
    await this.store.oauth.revokeGrant(g.id, new Date().toISOString())
  }
}
