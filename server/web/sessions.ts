/**
 * @module The web view's sessions (docs/web.md, "Sessions"): a session is made with an API key — pasted on the
 * sign-in page, or through a one-time link that `kb open` asks for with its own key — and acts as that key. Its
 * secret is the cookie's value, stored hashed; the form token (CSRF) is derived from it. A session stands while
 * it is not revoked, not past its end, and its key is neither revoked nor expired: checked on every request.
 */
import {createHash} from 'node:crypto'
import {KbError} from '../../src/shared/errors.js'
import type {Grant} from '../../src/shared/types.js'
import {randomBase62, sha256Hex, uuidv7} from '../lib/ids.js'
import type {Caller} from '../services/context.js'
import type {Store} from '../store/store.js'
import type {WebSessionState} from '../store/web-session-store.js'

/** A session's absolute lifetime. */
export const SESSION_TTL_MS = 7 * 86_400_000
/** A one-time sign-in link: this short, and single use. */
export const LINK_TTL_MS = 60_000
const TOUCH_EVERY_MS = 60_000
/** Secret prefixes, told apart from API keys (`kb_`) and OAuth secrets at a glance. */
const PREFIX = {session: 'kbws_', link: 'kbwl_'} as const
const SECRET_RE = /^kbw[sl]_[0-9A-Za-z]{43}$/
const USER_AGENT_MAX = 120
/** How sessions appear among the grants (`kb auth grants`): a client of their own. */
const WEB_CLIENT = {id: 'kb-web', name: 'kb web view'} as const

/** A standing session, and who it acts as. */
export interface WebSession {
  id: string
  caller: Caller
  /** The token every form of this session carries. */
  csrf: string
}

/** The form token of a session: derived from its secret, so only a holder of the cookie can know it. */
function csrfOf(secret: string): string {
  return createHash('sha256').update(`kb-web-csrf:${secret}`).digest('base64url')
}

function stands(s: WebSessionState | null, now: number): s is WebSessionState {
  return (
    s !== null &&
    s.revoked_at === null &&
    Date.parse(s.expires_at) > now &&
    s.key_revoked_at === null &&
    (s.key_expires_at === null || Date.parse(s.key_expires_at) > now)
  )
}

export class WebSessions {
  constructor(private readonly store: Store) {}

  /** A new session acting as `caller`'s API key; returns the cookie's secret. */
  async create(caller: Caller, userAgent: string | undefined): Promise<string> {
    if (caller.credential.kind !== 'api_key')
      throw new KbError('forbidden', 'a web session is made with an API key; sign in with one (`kb api-key create`)')
    const now = Date.now()
    await this.store.web.purgeExpired(new Date(now).toISOString())
    const secret = PREFIX.session + randomBase62(43)
    await this.store.web.insert({
      id: uuidv7(now),
      kind: 'session',
      hash: sha256Hex(secret),
      principal_id: caller.principal.id,
      api_key_id: caller.credential.id,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + SESSION_TTL_MS).toISOString(),
      last_used_at: null,
      used_at: null,
      revoked_at: null,
      user_agent: userAgent ? userAgent.slice(0, USER_AGENT_MAX) : null,
    })
    return secret
  }

  /** The session a cookie's secret stands for, or null (unknown, ended, or its key revoked or expired). */
  async find(secret: string | undefined): Promise<WebSession | null> {
    if (!secret || !SECRET_RE.test(secret) || !secret.startsWith(PREFIX.session)) return null
    const now = Date.now()
    const s = await this.store.web.findSession(sha256Hex(secret))
    if (!stands(s, now)) return null
    const principal = await this.store.getPrincipal(s.principal_id)
    if (!principal) return null
    if (s.last_used_at === null || now - Date.parse(s.last_used_at) > TOUCH_EVERY_MS)
      await this.store.web.touch(s.id, new Date(now).toISOString())
    return {
      id: s.id,
      csrf: csrfOf(secret),
      caller: {principal, credential: {kind: 'api_key', id: s.api_key_id, projectId: s.key_project_id, name: s.key_name}},
    }
  }

  /** Ends the session a cookie's secret stands for (sign-out); nothing when there is none. */
  async end(secret: string | undefined): Promise<void> {
    if (!secret || !SECRET_RE.test(secret)) return
    const s = await this.store.web.findSession(sha256Hex(secret))
    if (s) await this.store.web.revoke(s.id, new Date().toISOString())
  }

  /** A one-time sign-in link's code for `caller`'s API key (`kb open`): single use, LINK_TTL_MS long. */
  async createLink(caller: Caller): Promise<{code: string; expires_at: string}> {
    if (caller.credential.kind !== 'api_key')
      throw new KbError('forbidden', 'a sign-in link is made with an API key, not an OAuth token (docs/web.md)')
    const now = Date.now()
    const code = PREFIX.link + randomBase62(43)
    const expires = new Date(now + LINK_TTL_MS).toISOString()
    await this.store.web.insert({
      id: uuidv7(now),
      kind: 'link',
      hash: sha256Hex(code),
      principal_id: caller.principal.id,
      api_key_id: caller.credential.id,
      created_at: new Date(now).toISOString(),
      expires_at: expires,
      last_used_at: null,
      used_at: null,
      revoked_at: null,
      user_agent: null,
    })
    return {code, expires_at: expires}
  }

  /** Redeems a link's code once: a new session's secret for the link's key, or null (unknown, used, expired, key gone). */
  async redeemLink(code: string | undefined, userAgent: string | undefined): Promise<string | null> {
    if (!code || !SECRET_RE.test(code) || !code.startsWith(PREFIX.link)) return null
    const now = Date.now()
    const link = await this.store.web.redeemLink(sha256Hex(code), new Date(now).toISOString())
    if (!link) return null
    const state = await this.store.web.get(link.id)
    if (!stands(state, now)) return null
    const principal = await this.store.getPrincipal(link.principal_id)
    if (!principal) return null
    return this.create(
      {principal, credential: {kind: 'api_key', id: link.api_key_id, projectId: state.key_project_id, name: state.key_name}},
      userAgent,
    )
  }

  /** The caller's standing sessions, as grants of the web view's client (`GET /oauth/grants`). */
  async listAsGrants(caller: Caller): Promise<Grant[]> {
    const now = Date.now()
    const rows = await this.store.web.listSessions(caller.principal.id, new Date(now).toISOString())
    return rows
      .filter((s) => stands(s, now))
      .map((s) => ({
        id: s.id,
        client_id: WEB_CLIENT.id,
        client_name: s.user_agent ? `${WEB_CLIENT.name} (${s.user_agent})` : WEB_CLIENT.name,
        api_key_id: s.api_key_id,
        project_id: s.key_project_id,
        created_at: s.created_at,
        last_used_at: s.last_used_at,
        expires_at: s.expires_at,
      }))
  }

  /** Ends one of the caller's sessions by id; false when it is not a standing session of the caller's. */
  async revoke(caller: Caller, id: string): Promise<boolean> {
    const s = await this.store.web.get(id.toLowerCase())
    if (!s || s.kind !== 'session' || s.principal_id !== caller.principal.id || !stands(s, Date.now())) return false
    return this.store.web.revoke(s.id, new Date().toISOString())
  }
}
