/**
 * @module The SQLite side of the OAuth records (`Store.oauth`): clients, pending consent requests, codes
 * and tokens. Single-use steps (code exchange, refresh rotation) are one transaction each.
 */
import type Database from 'better-sqlite3'
import {StatementCache} from './sqlite-rows.js'
import {SQLITE} from './sql/dialect.js'
import {GRANT_BY_ID, GRANTS_LIVE, grantStateSql, OAUTH_SQL as SQL, OAUTH_SWEEP} from './sql/oauth.js'
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

const GRANT_STATE = grantStateSql(SQLITE)
/** SQLite stores `redirect_uri_given` as 1 or 0. */
const given = <T extends {redirect_uri_given: boolean}>(r: T): T & {redirect_uri_given: unknown} => ({
  ...r,
  redirect_uri_given: SQLITE.bool(r.redirect_uri_given),
})

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
    this.stmt(SQL.insertClient).run({...c, metadata: JSON.stringify(c.metadata)})
  }

  async getClient(id: string): Promise<OAuthClientRow | null> {
    const row = this.stmt(SQL.client).get({id}) as Row | undefined
    return row ? {...(row as unknown as OAuthClientRow), metadata: JSON.parse(row.metadata as string)} : null
  }

  async touchClient(id: string, at: string): Promise<void> {
    // Bookkeeping only: skipped while an import holds the write lock.
    if (this.gate.busy) return
    this.stmt(SQL.touchClient).run({id, at})
  }

  // ---- pending consent requests ----

  async insertRequest(r: OAuthRequestRow): Promise<void> {
    await this.gate.wait()
    this.stmt(SQL.insertRequest).run(given(r))
  }

  async getRequest(id: string): Promise<OAuthRequestRow | null> {
    const row = this.stmt(SQL.request).get({id}) as Row | undefined
    return row ? {...(row as unknown as OAuthRequestRow), redirect_uri_given: SQLITE.fromBool(row.redirect_uri_given)} : null
  }

  async addRequestAttempt(id: string): Promise<number> {
    await this.gate.wait()
    const row = this.stmt(SQL.addRequestAttempt).get({id}) as {attempts: number} | undefined
    return row?.attempts ?? Number.POSITIVE_INFINITY
  }

  async deleteRequest(id: string): Promise<boolean> {
    await this.gate.wait()
    return this.stmt(SQL.deleteRequest).run({id}).changes === 1
  }

  // ---- codes ----

  async insertCode(c: OAuthCodeRow): Promise<void> {
    await this.gate.wait()
    this.stmt(SQL.insertCode).run(given(c))
  }

  async findCode(hash: string): Promise<OAuthCodeRow | null> {
    const row = this.stmt(SQL.code).get({hash}) as Row | undefined
    return row ? {...(row as unknown as OAuthCodeRow), redirect_uri_given: SQLITE.fromBool(row.redirect_uri_given)} : null
  }

  async exchangeCode(hash: string, at: string, tokens: OAuthTokenRow[]): Promise<boolean> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        if (this.stmt(SQL.useCode).run({at, hash}).changes !== 1) return false
        this.insertTokensSync(tokens)
        return true
      })
      .immediate()
  }

  // ---- tokens ----

  private insertTokensSync(tokens: OAuthTokenRow[]): void {
    for (const t of tokens) this.stmt(SQL.insertToken).run(t)
  }

  async findToken(hash: string): Promise<OAuthTokenRow | null> {
    return (this.stmt(SQL.token).get({hash}) as OAuthTokenRow | undefined) ?? null
  }

  async rotateRefreshToken(hash: string, at: string, tokens: OAuthTokenRow[]): Promise<boolean> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        if (this.stmt(SQL.useRefreshToken).run({at, hash}).changes !== 1) return false
        this.insertTokensSync(tokens)
        return true
      })
      .immediate()
  }

  // ---- grants ----

  async insertGrant(g: OAuthGrantRow): Promise<void> {
    await this.gate.wait()
    this.stmt(SQL.insertGrant).run(g)
  }

  async getGrant(id: string): Promise<OAuthGrantState | null> {
    return (this.stmt(`${GRANT_STATE} ${GRANT_BY_ID}`).get({id}) as OAuthGrantState | undefined) ?? null
  }

  async listGrants(principalId: string, now: string): Promise<OAuthGrantState[]> {
    return this.stmt(`${GRANT_STATE} ${GRANTS_LIVE}`).all({principal_id: principalId, now}) as OAuthGrantState[]
  }

  async touchGrant(id: string, at: string): Promise<void> {
    // Bookkeeping only: skipped while an import holds the write lock.
    if (this.gate.busy) return
    this.stmt(SQL.touchGrant).run({id, at})
  }

  async revokeGrant(grantId: string, at: string): Promise<number> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        this.stmt(SQL.revokeGrant).run({at, id: grantId})
        return this.stmt(SQL.revokeGrantTokens).run({at, id: grantId}).changes
      })
      .immediate()
  }

  async revokeToken(hash: string, at: string): Promise<boolean> {
    await this.gate.wait()
    return this.stmt(SQL.revokeToken).run({at, hash}).changes === 1
  }

  async purgeExpired(c: OAuthPurgeCutoffs): Promise<number> {
    await this.gate.wait()
    return this.db.transaction(() => OAUTH_SWEEP.reduce((n, sql) => n + this.stmt(sql).run(c).changes, 0)).immediate()
  }
}
