/**
 * @module The PostgreSQL side of the OAuth records (`Store.oauth`): clients, pending consent requests, codes
 * and tokens. Single-use steps are conditional updates in one transaction with what they issue: two daemons
 * exchanging one code (or rotating one refresh token) at once both try `UPDATE … WHERE used_at IS NULL`;
 * the second waits on the first's row lock, then finds the row used and changes nothing.
 */
import {LOCKS, type PostgresDb, type Queryable, type Row} from './postgres-db.js'
import {bindPostgres as bind} from './sql/bind.js'
import {POSTGRES} from './sql/dialect.js'
import {GRANT_BY_ID, GRANTS_LIVE, grantStateSql, OAUTH_SQL as SQL, OAUTH_SWEEP} from './sql/oauth.js'
import type * as O from './oauth-store.js'

const GRANT_STATE = grantStateSql(POSTGRES)

export class PostgresOAuthStore implements O.OAuthStore {
  constructor(private readonly db: PostgresDb) {}

  // ---- clients ----

  async insertClient(c: O.OAuthClientRow): Promise<void> {
    await this.db.run(...bind(SQL.insertClient, {...c, metadata: JSON.stringify(c.metadata)}))
  }

  async getClient(id: string): Promise<O.OAuthClientRow | null> {
    const [row] = await this.db.query<Row>(...bind(SQL.client, {id}))
    return row ? {...(row as unknown as O.OAuthClientRow), metadata: JSON.parse(row.metadata as string)} : null
  }

  async touchClient(id: string, at: string): Promise<void> {
    await this.db.run(...bind(SQL.touchClient, {id, at}))
  }

  // ---- pending consent requests ----

  async insertRequest(r: O.OAuthRequestRow): Promise<void> {
    await this.db.run(...bind(SQL.insertRequest, {...r}))
  }

  async getRequest(id: string): Promise<O.OAuthRequestRow | null> {
    return (await this.db.query<O.OAuthRequestRow>(...bind(SQL.request, {id})))[0] ?? null
  }

  async addRequestAttempt(id: string): Promise<number> {
    const [row] = await this.db.query<{attempts: number}>(...bind(SQL.addRequestAttempt, {id}))
    return row?.attempts ?? Number.POSITIVE_INFINITY
  }

  async deleteRequest(id: string): Promise<boolean> {
    return (await this.db.run(...bind(SQL.deleteRequest, {id}))) === 1
  }

  // ---- codes ----

  async insertCode(c: O.OAuthCodeRow): Promise<void> {
    await this.db.run(...bind(SQL.insertCode, {...c}))
  }

  async findCode(hash: string): Promise<O.OAuthCodeRow | null> {
    return (await this.db.query<O.OAuthCodeRow>(...bind(SQL.code, {hash})))[0] ?? null
  }

  async exchangeCode(hash: string, at: string, tokens: O.OAuthTokenRow[]): Promise<boolean> {
    return this.db.tx(async (q) => {
      if ((await q.run(...bind(SQL.useCode, {at, hash}))) !== 1) return false
      await insertTokens(q, tokens)
      return true
    })
  }

  // ---- tokens ----

  async findToken(hash: string): Promise<O.OAuthTokenRow | null> {
    return (await this.db.query<O.OAuthTokenRow>(...bind(SQL.token, {hash})))[0] ?? null
  }

  async rotateRefreshToken(hash: string, at: string, tokens: O.OAuthTokenRow[]): Promise<boolean> {
    return this.db.tx(async (q) => {
      if ((await q.run(...bind(SQL.useRefreshToken, {at, hash}))) !== 1) return false
      await insertTokens(q, tokens)
      return true
    })
  }

  // ---- grants ----

  async insertGrant(g: O.OAuthGrantRow): Promise<void> {
    await this.db.run(...bind(SQL.insertGrant, {...g}))
  }

  async getGrant(id: string): Promise<O.OAuthGrantState | null> {
    return (await this.db.query<O.OAuthGrantState>(...bind(`${GRANT_STATE} ${GRANT_BY_ID}`, {id})))[0] ?? null
  }

  async listGrants(principalId: string, now: string): Promise<O.OAuthGrantState[]> {
    return this.db.query<O.OAuthGrantState>(...bind(`${GRANT_STATE} ${GRANTS_LIVE}`, {principal_id: principalId, now}))
  }

  async touchGrant(id: string, at: string): Promise<void> {
    await this.db.run(...bind(SQL.touchGrant, {id, at}))
  }

  async revokeGrant(grantId: string, at: string): Promise<number> {
    return this.db.tx(async (q) => {
      await q.run(...bind(SQL.revokeGrant, {at, id: grantId}))
      return q.run(...bind(SQL.revokeGrantTokens, {at, id: grantId}))
    })
  }

  async revokeToken(hash: string, at: string): Promise<boolean> {
    return (await this.db.run(...bind(SQL.revokeToken, {at, hash}))) === 1
  }

  /** One daemon sweeps at a time (a try-lock: the others skip, finding it taken), so sweeps never wait on each other. */
  async purgeExpired(c: O.OAuthPurgeCutoffs): Promise<number> {
    return this.db.tx(async (q) => {
      const [lock] = await q.query<{got: boolean}>('SELECT pg_try_advisory_xact_lock($1) AS got', [LOCKS.sweep])
      if (!lock?.got) return 0
      let n = 0
      for (const sql of OAUTH_SWEEP) n += await q.run(...bind(sql, {...c}))
      return n
    })
  }
}

async function insertTokens(q: Queryable, tokens: O.OAuthTokenRow[]): Promise<void> {
  for (const t of tokens) await q.run(...bind(SQL.insertToken, {...t}))
}
