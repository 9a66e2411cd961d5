/**
 * @module The web view's sessions and one-time sign-in links (docs/web.md, "Sessions"), `Store.web`: one table,
 * `web_sessions`, each row a session or a link made with an API key, stored by the SHA-256 of its secret. The
 * statements are written once with `?` placeholders; the PostgreSQL driver numbers them.
 */

type WebSessionKind = 'session' | 'link'

export interface WebSessionRow {
  id: string
  kind: WebSessionKind
  /** SHA-256 (hex) of the secret: the session cookie's value, or the link's code. */
  hash: string
  principal_id: string
  /** The API key the session or link was made with: its revocation or expiry ends them. */
  api_key_id: string
  created_at: string
  expires_at: string
  last_used_at: string | null
  /** A link: when it was redeemed (once). */
  used_at: string | null
  revoked_at: string | null
  /** What the browser said it is, cut short, for the list of sessions. */
  user_agent: string | null
}

/** A row with the state of its key and its key's name: what decides whether it stands, and how it is listed. */
export interface WebSessionState extends WebSessionRow {
  key_name: string
  key_project_id: string | null
  key_revoked_at: string | null
  key_expires_at: string | null
}

export interface WebSessionStore {
  insert(row: WebSessionRow): Promise<void>
  /** A session (not a link) by the hash of its cookie, with its key's state. */
  findSession(hash: string): Promise<WebSessionState | null>
  /** Marks an unused, unexpired link used at `at`; the row if this call redeemed it, else null (single use). */
  redeemLink(hash: string, at: string): Promise<WebSessionRow | null>
  get(id: string): Promise<WebSessionState | null>
  /** A principal's sessions neither revoked nor past `expires_at` at `now`, newest first. */
  listSessions(principalId: string, now: string): Promise<WebSessionState[]>
  touch(id: string, at: string): Promise<void>
  /** Ends a session or link; true if this call ended it. */
  revoke(id: string, at: string): Promise<boolean>
  /** Deletes rows past their end before `at`; returns how many. */
  purgeExpired(at: string): Promise<number>
}

const COLUMNS = 'id, kind, hash, principal_id, api_key_id, created_at, expires_at, last_used_at, used_at, revoked_at, user_agent'
const STATE = `SELECT s.*, k.name AS key_name, k.project_id AS key_project_id, k.revoked_at AS key_revoked_at, k.expires_at AS key_expires_at
  FROM web_sessions s JOIN api_keys k ON k.id = s.api_key_id`

/** The statements both drivers run (`?` placeholders, in the order of the arguments). */
export const WEB_SESSION_SQL = {
  insert: `INSERT INTO web_sessions (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  findSession: `${STATE} WHERE s.hash = ? AND s.kind = 'session'`,
  redeemLink: `UPDATE web_sessions SET used_at = ? WHERE hash = ? AND kind = 'link' AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ? RETURNING ${COLUMNS}`,
  get: `${STATE} WHERE s.id = ?`,
  list: `${STATE} WHERE s.principal_id = ? AND s.kind = 'session' AND s.revoked_at IS NULL AND s.expires_at > ? ORDER BY s.created_at DESC, s.id DESC`,
  touch: 'UPDATE web_sessions SET last_used_at = ? WHERE id = ?',
  revoke: 'UPDATE web_sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
  purge: 'DELETE FROM web_sessions WHERE expires_at < ?',
}

export function insertArgs(r: WebSessionRow): unknown[] {
  return [
    r.id,
    r.kind,
    r.hash,
    r.principal_id,
    r.api_key_id,
    r.created_at,
    r.expires_at,
    r.last_used_at,
    r.used_at,
    r.revoked_at,
    r.user_agent,
  ]
}
