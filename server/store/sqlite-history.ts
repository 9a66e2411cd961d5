/**
 * @module The SQLite side of `Store.history` (docs/api.md, "History, usage and the review queue"): history records
 * (written inside the store's own transactions by `write`), usage counts added a batch per transaction, and the
 * review queue's counts and page in SQL over `entries e`.
 */
import type Database from 'better-sqlite3'
import {
  HISTORY_SQL,
  historyArgs,
  historyByEntry,
  historyFromRow,
  BACKFILL_SQL,
  backfillFromRow,
  countSimilarSql,
  countsFromRow,
  hasSimilarSql,
  listArgs,
  overAlias,
  reviewKinds,
  SIMILAR_SQL,
  similarArgs,
  similarByEntry,
  visibleBranches,
  type BackfillEntry,
  type HistoryExport,
  type HistoryRow,
  type HistoryStore,
  type ReviewCounts,
  type ReviewFilter,
  type ReviewOutcome,
  type SimilarOther,
  type SimilarPair,
  type UsageBatch,
} from './history-store.js'
import {entryFromRow, type Row} from './rows.js'
import {ENTRY_COLUMNS, filterSql, StatementCache, VISIBLE_TO_ME} from './sqlite-rows.js'
import type {Viewer} from './store.js'
import {NO_FLAGS} from './trust.js'
import {SQLITE_TALLY, tallyCountsSql} from './review-tally.js'
import {VERIFY_AFTER_DAYS_DEFAULT} from '../../src/shared/contract.js'
import type {WriteGate} from './write-gate.js'

/** The review queue's kinds as SQL over `entries e` (STALE comes from the freshness filter). */
const REVIEW_SQL = {
  flagged: 'e.flags <> @no_flags',
  similar: hasSimilarSql(overAlias(VISIBLE_TO_ME, 'o')),
  unverified: 'e.verified_at IS NULL',
  never_retrieved: '(e.last_retrieved_at IS NULL OR e.last_retrieved_at < @cutoff) AND e.created_at < @cutoff',
}

export class SqliteHistoryStore implements HistoryStore {
  private readonly statements: StatementCache

  constructor(
    private readonly db: Database.Database,
    private readonly gate: WriteGate,
  ) {
    this.statements = new StatementCache(db)
  }

  /** Writes the records; the caller holds the transaction of the change they record. */
  write(rows: HistoryRow[] | undefined): void {
    for (const r of rows ?? []) this.statements.get(HISTORY_SQL.insert).run(...historyArgs(r))
  }

  async list(entryId: string, page: {limit: number; after?: {at: string; id: string}}): Promise<HistoryRow[]> {
    const rows = this.statements.get(HISTORY_SQL.list(page.after !== undefined)).all(...listArgs(entryId, page)) as Row[]
    return rows.map(historyFromRow)
  }

  /** The records of the entries of an export page. */
  ofEntries(ids: string[]): Map<string, HistoryExport[]> {
    if (ids.length === 0) return new Map()
    return historyByEntry(this.statements.get(HISTORY_SQL.ofEntries(ids.length)).all(...ids) as Row[])
  }

  async addUsage(batch: UsageBatch): Promise<void> {
    if (batch.length === 0) return
    await this.gate.wait()
    const add = this.statements.get(
      `UPDATE entries SET retrieved = retrieved + ?, last_retrieved_at = max(coalesce(last_retrieved_at, ''), ?) WHERE id = ?`,
    )
    this.db.transaction(() => {
      for (const u of batch) add.run(u.n, u.at, u.id)
    })()
  }

  async addSimilar(pairs: SimilarPair[], at: string): Promise<void> {
    if (pairs.length === 0) return
    await this.gate.wait()
    const insert = this.statements.get(SIMILAR_SQL.insert)
    this.db.transaction(() => {
      for (const p of pairs) insert.run(...similarArgs(p, at))
    })()
  }

  async similarOf(viewer: Viewer, ids: string[]): Promise<Map<string, SimilarOther[]>> {
    if (ids.length === 0) return new Map()
    const rows = this.statements
      .get(
        // From the page's ids to their pairs to the other entries, in that order (CROSS JOIN): left to itself the
        // planner walked every entry the viewer may see through the visibility rule's OR (130 ms of CPU at 100k).
        `SELECT sp.entry_id, o.id, o.title, sp.similarity FROM json_each(@ids) j CROSS JOIN similar_pairs sp CROSS JOIN entries o
        WHERE sp.entry_id = j.value AND o.id = sp.other_id AND sp.dismissed_at IS NULL AND o.superseded_by IS NULL
        AND ${overAlias(VISIBLE_TO_ME, 'o')}`,
      )
      .all({ids: JSON.stringify(ids), me: viewer.principalId}) as Row[]
    return similarByEntry(rows)
  }

  async dismissSimilar(a: string, b: string, by: string, at: string): Promise<string | null> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        this.statements.get(SIMILAR_SQL.dismiss).run(at, by, a, b, b, a)
        const row = this.statements.get(SIMILAR_SQL.dismissedAt).get(a, b, b, a) as Row | undefined
        return row ? String(row.dismissed_at) : null
      })
      .immediate()
  }

  async backfillPending(limit: number): Promise<BackfillEntry[]> {
    return (this.statements.get(BACKFILL_SQL.pending).all(limit) as Row[]).map(backfillFromRow)
  }

  async backfillDone(seq: number): Promise<void> {
    await this.gate.wait()
    this.statements.get(BACKFILL_SQL.done).run(seq, seq)
  }

  /** One writer, one shard (review-tally.ts SQLITE_TALLY): nothing to fold. */
  async foldTally(): Promise<void> {}

  async review(filter: ReviewFilter, page: {limit: number; after?: {retrieved: number; id: string}}): Promise<ReviewOutcome> {
    // Superseded entries are a kind of their own here (history-store.ts reviewKinds), not left out as list leaves them.
    const {where, params} = filterSql(filter.viewer, {
      ...(filter.projectId ? {projectId: filter.projectId} : {}),
      includeSuperseded: true,
      freshness: {state: 'stale', now: filter.now},
    })
    // filterSql puts the freshness condition last: here it is a kind, not a filter.
    const stale = where.pop()!
    params.no_flags = JSON.stringify(NO_FLAGS)
    params.cutoff = filter.unretrievedBefore
    const kinds = reviewKinds({stale, ...REVIEW_SQL})
    const items = [...where, `(${filter.kind ? kinds[filter.kind] : Object.values(kinds).join(' OR ')})`]
    if (page.after) {
      items.push('(e.retrieved < @after_r OR (e.retrieved = @after_r AND e.id > @after_id))')
      params.after_r = page.after.retrieved
      params.after_id = page.after.id
    }
    params.limit = page.limit
    // Walked in the order of the retrieval index, stopping at `limit`: the planner would otherwise gather every
    // visible entry through the scope indexes and sort them (100 ms at 100k, docs/performance.md "Review queue").
    // Similar pairs are few: that kind starts from them (and sorts them) instead of testing each entry in order.
    // (CROSS JOIN holds the planner to that order: as `e.id IN (…)` it walked every visible entry, 70 ms of CPU at 100k.)
    const similarOnly = filter.kind === 'similar'
    if (similarOnly) items.push('e.id = s.entry_id')
    const from = similarOnly
      ? '(SELECT DISTINCT entry_id FROM similar_pairs WHERE dismissed_at IS NULL) s CROSS JOIN entries e'
      : 'entries e INDEXED BY entries_retrieved'
    const rows = this.statements
      .get(
        `SELECT ${ENTRY_COLUMNS} FROM ${from} JOIN principals p ON p.id = e.author_id
        WHERE ${items.join(' AND ')} ORDER BY e.retrieved DESC, e.id LIMIT @limit`,
      )
      .all(params) as Row[]
    return {counts: this.counts(filter, params), entries: rows.map(entryFromRow)}
  }

  /**
   * Every kind from the tally the writes keep (review-tally.ts): a sum over the caller's buckets, the entries of the
   * cutoffs' days, and the open pairs (docs/performance.md, "Review queue").
   */
  private counts(filter: ReviewFilter, params: Row): ReviewCounts {
    params.default_cutoff = new Date(Date.parse(filter.now) - VERIFY_AFTER_DAYS_DEFAULT * 86_400_000).toISOString()
    const branches = visibleBranches('@me', filter.projectId === undefined ? undefined : '@project')
    const sql = tallyCountsSql(SQLITE_TALLY, {
      branches,
      projectCutoffs: `SELECT id, verify_after_days AS d, strftime('%Y-%m-%dT%H:%M:%fZ', @now, '-' || verify_after_days || ' days') AS cutoff
        FROM projects`,
      verifyDefault: '@verify_default',
      defaultCutoff: '@default_cutoff',
      unusedCutoff: '@cutoff',
      similar: countSimilarSql(`(${branches.join(' OR ')})`, overAlias(VISIBLE_TO_ME, 'o')),
    })
    return countsFromRow(this.statements.get(sql).get(params) as Row)
  }
}
