/**
 * @module The SQLite side of the OAuth records (`Store.oauth`): clients, pending consent requests, codes
 * and tokens. Single-use steps (code exchange, refresh rotation) are one transaction each.
 */
import type Database from 'better-sqlite3'
import {StatementCache} from './sqlite-rows.js'
import type {Row} from './rows.js'
import type {WriteGate} from './write-gate.js'
import type {
  OAuthClientRow,
  OAuthCodeRow,
  OAuthGrantRow,
  OAuthGrantState,
  OAuthPurgeCutoffs,
  OAuthRequestRow,
  OAuthStore,
  OAuthTokenRow,
} from './oauth-store.js'

/** A grant with its key's state and its client's name. */
const GRANT_STATE = `SELECT g.*, json_extract(c.metadata, '$.client_name') AS client_name, k.revoked_at AS key_revoked_at, k.expires_at AS key_expires_at
  FROM oauth_grants g JOIN api_keys k ON k.id = g.api_key_id LEFT JOIN oauth_clients c ON c.id = g.client_id`

export class SqliteOAuthStore implements OAuthStore {
  private readonly statements: StatementCache

  constructor(
    private readonly db: Database.Database,
    private readonly gate: WriteGate,
  ) {
    this.statements = new StatementCache(db)
  }

  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql)
  }

  // ---- clients ----

  async insertClient(c: OAuthClientRow): Promise<void> {
    await this.gate.wait()
    this.stmt('INSERT INTO oauth_clients (id, secret_hash, metadata, created_at, last_used_at) VALUES (?, ?, ?, ?, ?)').run(
      c.id,
      c.secret_hash,
      JSON.stringify(c.metadata),
      c.created_at,
      c.last_used_at,
    )
  }

  async getClient(id: string): Promise<OAuthClientRow | null> {
    const row = this.stmt('SELECT * FROM oauth_clients WHERE id = ?').get(id) as Row | undefined
    return row ? {...(row as unknown as OAuthClientRow), metadata: JSON.parse(row.metadata as string)} : null
  }

  async touchClient(id: string, at: string): Promise<void> {
    // Bookkeeping only: skipped while an import holds the write lock.
    if (this.gate.busy) return
    this.stmt('UPDATE oauth_clients SET last_used_at = ? WHERE id = ?').run(at, id)
  }

  // ---- pending consent requests ----

  async insertRequest(r: OAuthRequestRow): Promise<void> {
    await this.gate.wait()
    this.stmt(
      `INSERT INTO oauth_requests (id, csrf_hash, client_id, redirect_uri, redirect_uri_given, code_challenge, resource, scope, state, attempts, created_at, expires_at)
      VALUES (@id, @csrf_hash, @client_id, @redirect_uri, @redirect_uri_given, @code_challenge, @resource, @scope, @state, @attempts, @created_at, @expires_at)`,
    ).run({...r, redirect_uri_given: r.redirect_uri_given ? 1 : 0})
  }

  async getRequest(id: string): Promise<OAuthRequestRow | null> {
    const row = this.stmt('SELECT * FROM oauth_requests WHERE id = ?').get(id) as Row | undefined
    return row ? {...(row as unknown as OAuthRequestRow), redirect_uri_given: row.redirect_uri_given === 1} : null
  }

  async addRequestAttempt(id: string): Promise<number> {
    await this.gate.wait()
    const row = this.stmt('UPDATE oauth_requests SET attempts = attempts + 1 WHERE id = ? RETURNING attempts').get(id) as
      {attempts: number} | undefined
    return row?.attempts ?? Number.POSITIVE_INFINITY
  }

  async deleteRequest(id: string): Promise<boolean> {
    await this.gate.wait()
    return this.stmt('DELETE FROM oauth_requests WHERE id = ?').run(id).changes === 1
  }

  // ---- codes ----

  async insertCode(c: OAuthCodeRow): Promise<void> {
    await this.gate.wait()
    this.stmt(
      `INSERT INTO oauth_codes (hash, grant_id, client_id, principal_id, project_id, redirect_uri, redirect_uri_given, code_challenge, resource, scope, created_at, expires_at, used_at)
      VALUES (@hash, @grant_id, @client_id, @principal_id, @project_id, @redirect_uri, @redirect_uri_given, @code_challenge, @resource, @scope, @created_at, @expires_at, @used_at)`,
    ).run({...c, redirect_uri_given: c.redirect_uri_given ? 1 : 0})
  }

  async findCode(hash: string): Promise<OAuthCodeRow | null> {
    const row = this.stmt('SELECT * FROM oauth_codes WHERE hash = ?').get(hash) as Row | undefined
    return row ? {...(row as unknown as OAuthCodeRow), redirect_uri_given: row.redirect_uri_given === 1} : null
  }

  async exchangeCode(hash: string, at: string, tokens: OAuthTokenRow[]): Promise<boolean> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        if (this.stmt('UPDATE oauth_codes SET used_at = ? WHERE hash = ? AND used_at IS NULL').run(at, hash).changes !== 1) return false
        this.insertTokensSync(tokens)
        return true
      })
      .immediate()
  }

  // ---- tokens ----

  private insertTokensSync(tokens: OAuthTokenRow[]): void {
    const insert = this
      .stmt(`INSERT INTO oauth_tokens (hash, id, kind, grant_id, client_id, principal_id, project_id, resource, scope, created_at, expires_at, used_at, revoked_at)
      VALUES (@hash, @id, @kind, @grant_id, @client_id, @principal_id, @project_id, @resource, @scope, @created_at, @expires_at, @used_at, @revoked_at)`)
    for (const t of tokens) insert.run(t)
  }

  async findToken(hash: string): Promise<OAuthTokenRow | null> {
    return (this.stmt('SELECT * FROM oauth_tokens WHERE hash = ?').get(hash) as OAuthTokenRow | undefined) ?? null
  }

  async rotateRefreshToken(hash: string, at: string, tokens: OAuthTokenRow[]): Promise<boolean> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        const done = this.stmt(
          `UPDATE oauth_tokens SET used_at = ? WHERE hash = ? AND kind = 'refresh' AND used_at IS NULL AND revoked_at IS NULL`,
        ).run(at, hash)
        if (done.changes !== 1) return false
        this.insertTokensSync(tokens)
        return true
      })
      .immediate()
  }

  // ---- grants ----

  async insertGrant(g: OAuthGrantRow): Promise<void> {
    await this.gate.wait()
    this.stmt(
      `INSERT INTO oauth_grants (id, client_id, principal_id, api_key_id, project_id, scope, created_at, expires_at, last_used_at, revoked_at)
      VALUES (@id, @client_id, @principal_id, @api_key_id, @project_id, @scope, @created_at, @expires_at, @last_used_at, @revoked_at)`,
    ).run(g)
  }

  async getGrant(id: string): Promise<OAuthGrantState | null> {
    return (this.stmt(`${GRANT_STATE} WHERE g.id = ?`).get(id) as OAuthGrantState | undefined) ?? null
  }

  async listGrants(principalId: string, now: string): Promise<OAuthGrantState[]> {
    return this.stmt(
      `${GRANT_STATE} WHERE g.principal_id = ? AND g.revoked_at IS NULL AND g.expires_at > ? ORDER BY g.created_at DESC, g.id DESC`,
    ).all(principalId, now) as OAuthGrantState[]
  }

  async touchGrant(id: string, at: string): Promise<void> {
    // Bookkeeping only: skipped while an import holds the write lock.
    if (this.gate.busy) return
    this.stmt('UPDATE oauth_grants SET last_used_at = ? WHERE id = ?').run(at, id)
  }

  async revokeGrant(grantId: string, at: string): Promise<number> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        this.stmt('UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, grantId)
        return this.stmt('UPDATE oauth_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL').run(at, grantId).changes
      })
      .immediate()
  }

  async revokeToken(hash: string, at: string): Promise<boolean> {
    await this.gate.wait()
    return this.stmt('UPDATE oauth_tokens SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL').run(at, hash).changes === 1
  }

  async purgeExpired(c: OAuthPurgeCutoffs): Promise<number> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        let n = 0
        n += this.stmt('DELETE FROM oauth_tokens WHERE expires_at < ?').run(c.now).changes
        n += this.stmt('DELETE FROM oauth_requests WHERE expires_at < ?').run(c.now).changes
        n += this.stmt('DELETE FROM oauth_codes WHERE expires_at < ?').run(c.codes).changes
        // A grant's tokens never outlive it, so one past its end holds none.
        n += this.stmt('DELETE FROM oauth_grants WHERE expires_at < ?').run(c.now).changes
        n += this.stmt(
          `DELETE FROM oauth_clients WHERE
          ((last_used_at IS NULL AND created_at < @unused) OR (last_used_at IS NOT NULL AND last_used_at < @idle))
          AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.client_id = oauth_clients.id)
          AND NOT EXISTS (SELECT 1 FROM oauth_codes k WHERE k.client_id = oauth_clients.id)`,
        ).run({unused: c.unusedClients, idle: c.idleClients}).changes
        return n
      })
      .immediate()
  }
}
