/**
 * @module The PostgreSQL side of `Store.idempotency` (table `idempotency_keys`): a claim is one upsert that takes
 * the key only when it is free, expired or abandoned, so of two daemons claiming one key at once exactly one
 * gets it; the loser reads the record that holds it.
 */
import type {ClaimOutcome, IdempotencyClaim, IdempotencyResponse, IdempotencyStore} from './idempotency.js'
import type {PostgresDb, Row} from './postgres-db.js'
import {idempotencyRecordFromRow} from './rows.js'

const CLAIM_SQL = `INSERT INTO idempotency_keys AS k (principal_id, key, fingerprint, claim, created_at, expires_at)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (principal_id, key) DO UPDATE SET
    fingerprint = EXCLUDED.fingerprint, claim = EXCLUDED.claim, status = NULL, headers = NULL, body = NULL,
    created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
  WHERE k.expires_at <= EXCLUDED.created_at OR (k.status IS NULL AND k.created_at < $7)
  RETURNING claim`

export class PostgresIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: PostgresDb) {}

  async claim(c: IdempotencyClaim, abandonedBefore: string): Promise<ClaimOutcome> {
    const [won] = await this.db.query<{claim: string}>(CLAIM_SQL, [
      c.principal_id,
      c.key,
      c.fingerprint,
      c.claim,
      c.created_at,
      c.expires_at,
      abandonedBefore,
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
