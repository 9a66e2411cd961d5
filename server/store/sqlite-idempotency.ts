/**
 * @module The SQLite side of `Store.idempotency` (table `idempotency_keys`, migration 5): a claim is one
 * upsert that takes the key only when it is free, expired or abandoned, read back in the same transaction.
 */
import type Database from 'better-sqlite3'
import type {ClaimOutcome, IdempotencyClaim, IdempotencyResponse, IdempotencyStore} from './idempotency.js'
import {StatementCache} from './sqlite-rows.js'
import {idempotencyRecordFromRow, type Row} from './rows.js'
import type {WriteGate} from './write-gate.js'

const CLAIM_SQL = `INSERT INTO idempotency_keys (principal_id, key, fingerprint, claim, created_at, expires_at)
  VALUES (@principal_id, @key, @fingerprint, @claim, @created_at, @expires_at)
  ON CONFLICT (principal_id, key) DO UPDATE SET
    fingerprint = excluded.fingerprint, claim = excluded.claim, status = NULL, headers = NULL, body = NULL,
    created_at = excluded.created_at, expires_at = excluded.expires_at
  WHERE idempotency_keys.expires_at <= excluded.created_at
    OR (idempotency_keys.status IS NULL AND idempotency_keys.created_at < @abandoned_before)
  RETURNING claim`

export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly statements: StatementCache
  private readonly claimTx: (c: IdempotencyClaim, abandonedBefore: string) => ClaimOutcome

  constructor(
    db: Database.Database,
    private readonly gate: WriteGate,
  ) {
    this.statements = new StatementCache(db)
    this.claimTx = db.transaction((c: IdempotencyClaim, abandonedBefore: string): ClaimOutcome => {
      const won = this.stmt(CLAIM_SQL).get({...c, abandoned_before: abandonedBefore}) as {claim: string} | undefined
      if (won?.claim === c.claim) return {claimed: true}
      const row = this.stmt('SELECT * FROM idempotency_keys WHERE principal_id = ? AND key = ?').get(c.principal_id, c.key) as Row
      return {claimed: false, record: idempotencyRecordFromRow(row)}
    })
  }

  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql)
  }

  async claim(c: IdempotencyClaim, abandonedBefore: string): Promise<ClaimOutcome> {
    await this.gate.wait()
    return this.claimTx(c, abandonedBefore)
  }

  async complete(principalId: string, key: string, claim: string, fingerprint: string, r: IdempotencyResponse): Promise<boolean> {
    await this.gate.wait()
    const sql =
      'UPDATE idempotency_keys SET fingerprint = ?, status = ?, headers = ?, body = ? WHERE principal_id = ? AND key = ? AND claim = ?'
    return this.stmt(sql).run(fingerprint, r.status, JSON.stringify(r.headers), r.body, principalId, key, claim).changes === 1
  }

  async release(principalId: string, key: string, claim: string): Promise<void> {
    await this.gate.wait()
    this.stmt('DELETE FROM idempotency_keys WHERE principal_id = ? AND key = ? AND claim = ?').run(principalId, key, claim)
  }

  async purgeExpired(now: string): Promise<number> {
    await this.gate.wait()
    return this.stmt('DELETE FROM idempotency_keys WHERE expires_at <= ?').run(now).changes
  }
}
