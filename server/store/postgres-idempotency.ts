/**
 * @module The PostgreSQL side of `Store.idempotency` (table `idempotency_keys`): a claim is one upsert that takes
 * the key only when it is free, expired or abandoned, so of two daemons claiming one key at once exactly one
 * gets it; the loser reads the record that holds it. A claim names the backend of its daemon's lease session
 * (server/store/postgres-lease.ts): once that backend is gone from `pg_stat_activity` the claim is abandoned.
 */
import type {ClaimOutcome, IdempotencyClaim, IdempotencyResponse, IdempotencyStore} from './idempotency.js'
import type {PostgresDb, Row} from './postgres-db.js'
import type {PostgresLease} from './postgres-lease.js'
import {idempotencyRecordFromRow} from './rows.js'

/**
 * Abandoned: unanswered and made before $7 (five minutes ago), or unanswered and its daemon's session is gone
 * (docs/api.md, "Idempotency"). A claim without a holder (written before migration 10, or while the lease
 * session could not be opened) has only the first rule.
 */
const CLAIM_SQL = `INSERT INTO idempotency_keys AS k
    (principal_id, key, fingerprint, claim, created_at, expires_at, holder_pid, holder_started)
  VALUES ($1, $2, $3, $4, $5, $6, $8, $9::timestamptz)
  ON CONFLICT (principal_id, key) DO UPDATE SET
    fingerprint = EXCLUDED.fingerprint, claim = EXCLUDED.claim, status = NULL, headers = NULL, body = NULL,
    created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
    holder_pid = EXCLUDED.holder_pid, holder_started = EXCLUDED.holder_started
  WHERE k.expires_at <= EXCLUDED.created_at
    OR (k.status IS NULL AND k.created_at < $7)
    OR (k.status IS NULL AND k.holder_pid IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM pg_stat_activity a WHERE a.pid = k.holder_pid AND a.backend_start = k.holder_started))
  RETURNING claim`

export class PostgresIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly db: PostgresDb,
    private readonly lease: PostgresLease,
  ) {}

  async claim(c: IdempotencyClaim, abandonedBefore: string): Promise<ClaimOutcome> {
    const holder = await this.lease.holder()
    const [won] = await this.db.query<{claim: string}>(CLAIM_SQL, [
      c.principal_id,
      c.key,
      c.fingerprint,
      c.claim,
      c.created_at,
      c.expires_at,
      abandonedBefore,
      holder?.pid ?? null,
      holder?.started ?? null,
    ])
    if (won?.claim === c.claim) return {claimed: true}
    const [row] = await this.db.query<Row>('SELECT * FROM idempotency_keys WHERE principal_id = $1 AND key = $2', [c.principal_id, c.key])
    // Released between the two statements: the key is free again, so claim it anew.
    if (!row) return this.claim(c, abandonedBefore)
    return {claimed: false, record: idempotencyRecordFromRow(row)}
  }

  async complete(principalId: string, key: string, claim: string, fingerprint: string, r: IdempotencyResponse): Promise<boolean> {
    return (
      (await this.db.run(
        'UPDATE idempotency_keys SET fingerprint = $1, status = $2, headers = $3, body = $4 WHERE principal_id = $5 AND key = $6 AND claim = $7',
        [fingerprint, r.status, JSON.stringify(r.headers), r.body, principalId, key, claim],
      )) === 1
    )
  }

  async release(principalId: string, key: string, claim: string): Promise<void> {
    await this.db.run('DELETE FROM idempotency_keys WHERE principal_id = $1 AND key = $2 AND claim = $3', [principalId, key, claim])
  }

  async purgeExpired(now: string): Promise<number> {
    return this.db.run('DELETE FROM idempotency_keys WHERE expires_at <= $1', [now])
  }
}
