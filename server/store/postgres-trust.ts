/**
 * @module Trust writes of the PostgreSQL store (docs/api.md, "Anchors, freshness, verify and flags"): a verification,
 * a flag opened, replaced or withdrawn, anchors re-based or checked, and flags closed by an author's edit. Each runs
 * inside the caller's transaction, the entry's row locked; sqlite-trust.ts is the same in SQLite's SQL.
 */
import type {Queryable} from './postgres-db.js'
import type {EntryRow, FlagRow, TrustChange} from './store.js'
import {flagSummary, NO_FLAGS, withVerification} from './trust.js'

const FLAG_COUNTS = 'SELECT reason, count(*) AS n, max(created_at) AS newest FROM flags WHERE entry_id = $1 GROUP BY reason'

export class PostgresTrustWriter {
  /** Applies the change to entry `e` (read inside the transaction, its row locked); whether the principal had an open flag before. */
  async apply(q: Queryable, seq: number, e: EntryRow, change: TrustChange): Promise<boolean> {
    const params: unknown[] = [seq]
    const sets: string[] = []
    const set = (column: string, value: unknown): void => {
      params.push(value)
      sets.push(`${column} = $${params.length}`)
    }
    if (change.anchors) set('anchors', JSON.stringify(change.anchors))
    if (change.verified) {
      set('verified_at', change.verified.at)
      set('verified_by', JSON.stringify(change.verified.by))
      set('verifications', JSON.stringify(withVerification(e.verifications, change.verified.by.id, change.verified.at)))
      sets.push('corrections = 0')
    }
    let replaced = false
    const who = change.flag?.principal_id ?? change.withdraw
    if (who !== undefined) {
      replaced = (await q.run('DELETE FROM flags WHERE entry_id = $1 AND principal_id = $2', [e.id, who])) > 0
      if (change.flag) await this.insertFlag(q, change.flag)
      const counted = flagSummary(await q.query<{reason: string; n: string; newest: string}>(FLAG_COUNTS, [e.id]))
      set('flags', JSON.stringify(counted.flags))
      set('flagged_at', counted.flagged_at)
    }
    if (sets.length > 0) await q.run(`UPDATE entries SET ${sets.join(', ')} WHERE seq = $1`, params)
    return replaced
  }

  async insertFlag(q: Queryable, f: FlagRow): Promise<void> {
    await q.run(
      `INSERT INTO flags (entry_id, principal_id, reason, note, duplicate_of, created_at)
      VALUES ($1, $2, $3, $4, $5, $6)`,
      [f.entry_id, f.principal_id, f.reason, f.note, f.duplicate_of, f.created_at],
    )
  }

  /** An author's edit of the content: every open flag closes, corrections restart (docs/api.md, "Flags"). */
  async closeFlags(q: Queryable, seq: number, entryId: string): Promise<void> {
    await q.run('DELETE FROM flags WHERE entry_id = $1', [entryId])
    await q.run('UPDATE entries SET flags = $1, flagged_at = NULL, corrections = 0 WHERE seq = $2', [JSON.stringify(NO_FLAGS), seq])
  }

  /** Corrections counted in: `correction` comments since the last verification or edit. */
  async countCorrections(q: Queryable, seq: number, comments: Array<{type: string}>): Promise<void> {
    const n = comments.filter((c) => c.type === 'correction').length
    if (n > 0) await q.run('UPDATE entries SET corrections = corrections + $1 WHERE seq = $2', [n, seq])
  }

  async list(q: Queryable, entryId: string): Promise<FlagRow[]> {
    return q.query<FlagRow>(
      'SELECT entry_id, principal_id, reason, note, duplicate_of, created_at FROM flags WHERE entry_id = $1 ORDER BY created_at, principal_id',
      [entryId],
    )
  }
}
