/**
 * @module The PostgreSQL side of the OAuth records (`Store.oauth`): clients, pending consent requests, codes
 * and tokens. Single-use steps are conditional updates in one transaction with what they issue: two daemons
 * exchanging one code (or rotating one refresh token) at once both try `UPDATE … WHERE used_at IS NULL`;
 * the second waits on the first's row lock, then finds the row used and changes nothing.
 */
import {LOCKS, type PostgresDb, type Queryable, type Row} from './postgres-db.js'
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

const TOKEN_COLUMNS = [
  'hash',
  'id',
  'kind',
  'grant_id',
  'client_id',
  'principal_id',
  'project_id',
  'resource',
  'scope',
  'created_at',
  'expires_at',
  'used_at',
  'revoked_at',
] as const
const REQUEST_COLUMNS = [
  'id',
  'csrf_hash',
  'client_id',
  'redirect_uri',
  'redirect_uri_given',
  'code_challenge',
  'resource',
  'scope',
  'state',
  'attempts',
  'created_at',
  'expires_at',
] as const
const GRANT_COLUMNS = [
  'id',
  'client_id',
  'principal_id',
  'api_key_id',
  'project_id',
  'scope',
  'created_at',
  'expires_at',
  'last_used_at',
  'revoked_at',
] as const
/** A grant with its key's state and its client's name. */
const GRANT_STATE = `SELECT g.*, (c.metadata::json ->> 'client_name') AS client_name, k.revoked_at AS key_revoked_at, k.expires_at AS key_expires_at
  FROM oauth_grants g JOIN api_keys k ON k.id = g.api_key_id LEFT JOIN oauth_clients c ON c.id = g.client_id`
const CODE_COLUMNS = [
  'hash',
  'grant_id',
  'client_id',
  'principal_id',
  'project_id',
  'redirect_uri',
  'redirect_uri_given',
  'code_challenge',
  'resource',
  'scope',
  'created_at',
  'expires_at',
  'used_at',
] as const

/** `INSERT INTO table (columns) VALUES ($1 … $n)`. */
function insertSql(table: string, columns: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`
}

export class PostgresOAuthStore implements OAuthStore {
  constructor(private readonly db: PostgresDb) {}

  // ---- clients ----

  async insertClient(c: OAuthClientRow): Promise<void> {
    await this.db.run('INSERT INTO oauth_clients (id, secret_hash, metadata, created_at, last_used_at) VALUES ($1, $2, $3, $4, $5)', [
      c.id,
      c.secret_hash,
      JSON.stringify(c.metadata),
      c.created_at,
      c.last_used_at,
    ])
  }

  async getClient(id: string): Promise<OAuthClientRow | null> {
    const [row] = await this.db.query<Row>('SELECT * FROM oauth_clients WHERE id = $1', [id])
    return row ? {...(row as unknown as OAuthClientRow), metadata: JSON.parse(row.metadata as string)} : null
  }

  async touchClient(id: string, at: string): Promise<void> {
    await this.db.run('UPDATE oauth_clients SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)', [at, id])
  }

  // ---- pending consent requests ----

  async insertRequest(r: OAuthRequestRow): Promise<void> {
    await this.db.run(
      insertSql('oauth_requests', REQUEST_COLUMNS),
      REQUEST_COLUMNS.map((k) => r[k]),
    )
  }

  async getRequest(id: string): Promise<OAuthRequestRow | null> {
    return (await this.db.query<OAuthRequestRow>('SELECT * FROM oauth_requests WHERE id = $1', [id]))[0] ?? null
  }

  async addRequestAttempt(id: string): Promise<number> {
    const [row] = await this.db.query<{attempts: number}>(
      'UPDATE oauth_requests SET attempts = attempts + 1 WHERE id = $1 RETURNING attempts',
      [id],
    )
    return row?.attempts ?? Number.POSITIVE_INFINITY
  }

  async deleteRequest(id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM oauth_requests WHERE id = $1', [id])) === 1
  }

  // ---- codes ----

  async insertCode(c: OAuthCodeRow): Promise<void> {
    await this.db.run(
      insertSql('oauth_codes', CODE_COLUMNS),
      CODE_COLUMNS.map((k) => c[k]),
    )
  }

  async findCode(hash: string): Promise<OAuthCodeRow | null> {
    return (await this.db.query<OAuthCodeRow>('SELECT * FROM oauth_codes WHERE hash = $1', [hash]))[0] ?? null
  }

  async exchangeCode(hash: string, at: string, tokens: OAuthTokenRow[]): Promise<boolean> {
    return this.db.tx(async (q) => {
      if ((await q.run('UPDATE oauth_codes SET used_at = $1 WHERE hash = $2 AND used_at IS NULL', [at, hash])) !== 1) return false
      await insertTokens(q, tokens)
      return true
    })
  }

  // ---- tokens ----

  async findToken(hash: string): Promise<OAuthTokenRow | null> {
    return (await this.db.query<OAuthTokenRow>('SELECT * FROM oauth_tokens WHERE hash = $1', [hash]))[0] ?? null
  }

  async rotateRefreshToken(hash: string, at: string, tokens: OAuthTokenRow[]): Promise<boolean> {
    return this.db.tx(async (q) => {
      const done = await q.run(
        `UPDATE oauth_tokens SET used_at = $1 WHERE hash = $2 AND kind = 'refresh' AND used_at IS NULL AND revoked_at IS NULL`,
        [at, hash],
      )
      if (done !== 1) return false
      await insertTokens(q, tokens)
      return true
    })
  }

  // ---- grants ----

  async insertGrant(g: OAuthGrantRow): Promise<void> {
    await this.db.run(
      insertSql('oauth_grants', GRANT_COLUMNS),
      GRANT_COLUMNS.map((k) => g[k]),
    )
  }

  async getGrant(id: string): Promise<OAuthGrantState | null> {
    return (await this.db.query<OAuthGrantState>(`${GRANT_STATE} WHERE g.id = $1`, [id]))[0] ?? null
  }

  async listGrants(principalId: string, now: string): Promise<OAuthGrantState[]> {
    return this.db.query<OAuthGrantState>(
      `${GRANT_STATE} WHERE g.principal_id = $1 AND g.revoked_at IS NULL AND g.expires_at > $2
      ORDER BY g.created_at DESC, g.id DESC`,
      [principalId, now],
    )
  }

  /** Only ever moves last_used_at forward, whichever daemon commits last. */
  async touchGrant(id: string, at: string): Promise<void> {
    await this.db.run('UPDATE oauth_grants SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)', [at, id])
  }

  async revokeGrant(grantId: string, at: string): Promise<number> {
    return this.db.tx(async (q) => {
      await q.run('UPDATE oauth_grants SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, grantId])
      return q.run('UPDATE oauth_tokens SET revoked_at = $1 WHERE grant_id = $2 AND revoked_at IS NULL', [at, grantId])
    })
  }

  async revokeToken(hash: string, at: string): Promise<boolean> {
    return (await this.db.run('UPDATE oauth_tokens SET revoked_at = $1 WHERE hash = $2 AND revoked_at IS NULL', [at, hash])) === 1
  }

  /** One daemon sweeps at a time (a try-lock: the others skip, finding it taken), so sweeps never wait on each other. */
  async purgeExpired(c: OAuthPurgeCutoffs): Promise<number> {
    return this.db.tx(async (q) => {
      const [lock] = await q.query<{got: boolean}>('SELECT pg_try_advisory_xact_lock($1) AS got', [LOCKS.sweep])
      if (!lock?.got) return 0
      let n = 0
      n += await q.run('DELETE FROM oauth_tokens WHERE expires_at < $1', [c.now])
      n += await q.run('DELETE FROM oauth_requests WHERE expires_at < $1', [c.now])
      n += await q.run('DELETE FROM oauth_codes WHERE expires_at < $1', [c.codes])
      // A grant's tokens never outlive it, so one past its end holds none.
      n += await q.run('DELETE FROM oauth_grants WHERE expires_at < $1', [c.now])
      n += await q.run(
        `DELETE FROM oauth_clients WHERE
          ((last_used_at IS NULL AND created_at < $1) OR (last_used_at IS NOT NULL AND last_used_at < $2))
          AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.client_id = oauth_clients.id)
          AND NOT EXISTS (SELECT 1 FROM oauth_codes k WHERE k.client_id = oauth_clients.id)`,
        [c.unusedClients, c.idleClients],
      )
      return n
    })
  }
}

async function insertTokens(q: Queryable, tokens: OAuthTokenRow[]): Promise<void> {
  for (const t of tokens)
    await q.run(
      insertSql('oauth_tokens', TOKEN_COLUMNS),
      TOKEN_COLUMNS.map((k) => t[k]),
    )
}
