/**
 * @module Trust writes of the SQLite store (docs/api.md, "Anchors, freshness, verify and flags"): a verification,
 * a flag opened, replaced or withdrawn, anchors re-based or checked, and flags closed by an author's edit. Each runs
 * inside the caller's transaction; postgres-trust.ts is the same in PostgreSQL's SQL.
 */
import type Database from 'better-sqlite3'
import type {StatementCache} from './sqlite-rows.js'
import type {EntryRow, FlagRow, TrustChange} from './store.js'
import {flagSummary, NO_FLAGS, withVerification} from './trust.js'

const FLAG_COUNTS = 'SELECT reason, count(*) AS n, max(created_at) AS newest FROM flags WHERE entry_id = ? GROUP BY reason'

export class SqliteTrustWriter {
  constructor(private readonly statements: StatementCache) {}

  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql)
  }

  /** Applies the change to entry `e` (read inside the transaction); whether the principal had an open flag before. */
  apply(seq: number, e: EntryRow, change: TrustChange): boolean {
    const sets: string[] = []
    const params: Record<string, unknown> = {seq}
    if (change.anchors) {
      sets.push('anchors = @anchors')
      params.anchors = JSON.stringify(change.anchors)
    }
    if (change.verified) {
      sets.push('verified_at = @verified_at', 'verified_by = @verified_by', 'verifications = @verifications', 'corrections = 0')
      params.verified_at = change.verified.at
      params.verified_by = JSON.stringify(change.verified.by)
      params.verifications = JSON.stringify(withVerification(e.verifications, change.verified.by.id, change.verified.at))
    }
    let replaced = false
    const who = change.flag?.principal_id ?? change.withdraw
    if (who !== undefined) {
      replaced = this.stmt('DELETE FROM flags WHERE entry_id = ? AND principal_id = ?').run(e.id, who).changes > 0
      if (change.flag) this.insertFlag(change.flag)
      const counted = flagSummary(this.stmt(FLAG_COUNTS).all(e.id) as Array<{reason: string; n: number; newest: string}>)
      sets.push('flags = @flags', 'flagged_at = @flagged_at')
      params.flags = JSON.stringify(counted.flags)
      params.flagged_at = counted.flagged_at
    }
    if (sets.length > 0) this.stmt(`UPDATE entries SET ${sets.join(', ')} WHERE seq = @seq`).run(params)
    return replaced
  }

  insertFlag(f: FlagRow): void {
    this.stmt(
      `INSERT INTO flags (entry_id, principal_id, reason, note, duplicate_of, created_at)
      VALUES (@entry_id, @principal_id, @reason, @note, @duplicate_of, @created_at)`,
    ).run(f)
  }

  /** An author's edit of the content: every open flag closes, corrections restart (docs/api.md, "Flags"). */
  closeFlags(seq: number, entryId: string): void {
    this.stmt('DELETE FROM flags WHERE entry_id = ?').run(entryId)
    this.stmt('UPDATE entries SET flags = ?, flagged_at = NULL, corrections = 0 WHERE seq = ?').run(JSON.stringify(NO_FLAGS), seq)
  }

  /** Corrections counted in: `correction` comments since the last verification or edit. */
  countCorrections(seq: number, comments: Array<{type: string}>): void {
    const n = comments.filter((c) => c.type === 'correction').length
    if (n > 0) this.stmt('UPDATE entries SET corrections = corrections + ? WHERE seq = ?').run(n, seq)
  }

  list(entryId: string): FlagRow[] {
    return this.stmt(
      'SELECT entry_id, principal_id, reason, note, duplicate_of, created_at FROM flags WHERE entry_id = ? ORDER BY created_at, principal_id',
    ).all(entryId) as FlagRow[]
  }
}
