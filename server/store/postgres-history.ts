/**
 * @module The PostgreSQL side of `Store.history` (docs/api.md, "History, usage and the review queue"): the
 * statements of history-store.ts with numbered placeholders; usage added by one `UPDATE … FROM (VALUES …)` per
 * batch, so every daemon's counts add up; the review queue in SQL over `entries e`.
 */
import type {PostgresDb, Queryable, Row} from './postgres-db.js'
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
import {ENTRY_COLUMNS, ENTRY_FROM, filterSql, Params, numbered, visibleTo} from './postgres-rows.js'
import type {Viewer} from './store.js'
import {entryFromRow} from './rows.js'
import {NO_FLAGS} from './trust.js'
import {POSTGRES_TALLY, POSTGRES_TALLY_FOLD, tallyCountsSql} from './review-tally.js'
import {VERIFY_AFTER_DAYS_DEFAULT} from '../../src/shared/contract.js'

/** PostgreSQL's SQLSTATE for a foreign key that names a row no longer there. */
const FOREIGN_KEY_VIOLATION = '23503'

/** Writes the records inside the caller's transaction. */
export async function writeHistory(q: Queryable, rows: HistoryRow[] | undefined): Promise<void> {
  for (const r of rows ?? []) await q.run(numbered(HISTORY_SQL.insert), historyArgs(r))
}

/** An import's records, kept by id (a record already here is not written twice). */
export async function importHistory(q: Queryable, entryId: string, rows: HistoryExport[] | undefined): Promise<void> {
  const sql = numbered(HISTORY_SQL.insert) + ' ON CONFLICT (id) DO NOTHING'
  for (const h of rows ?? []) await q.run(sql, historyArgs({...h, entry_id: entryId}))
}

export async function historyOfEntries(q: Queryable, ids: string[]): Promise<Map<string, HistoryExport[]>> {
  if (ids.length === 0) return new Map()
  return historyByEntry(await q.query<Row>(numbered(HISTORY_SQL.ofEntries(ids.length)), ids))
}

export class PostgresHistoryStore implements HistoryStore {
  constructor(private readonly db: PostgresDb) {}

  async list(entryId: string, page: {limit: number; after?: {at: string; id: string}}): Promise<HistoryRow[]> {
    const rows = await this.db.query<Row>(numbered(HISTORY_SQL.list(page.after !== undefined)), listArgs(entryId, page))
    return rows.map(historyFromRow)
  }

  /** One statement for the batch: `retrieved + n` is added by the database, so concurrent daemons never lose a count. */
  async addUsage(batch: UsageBatch): Promise<void> {
    if (batch.length === 0) return
    // Sorted by id, so that two daemons' batches tend to lock shared rows in one order; a batch that fails anyway is
    // kept by the counter for the next flush (server/services/usage.ts).
    const sorted = [...batch].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    await this.db.run(
      `UPDATE entries e SET retrieved = e.retrieved + v.n, last_retrieved_at = GREATEST(e.last_retrieved_at, v.at)
      FROM (SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[]) AS t(id, n, at)) v WHERE e.id = v.id`,
      [sorted.map((u) => u.id), sorted.map((u) => u.n), sorted.map((u) => u.at)],
    )
  }

  async addSimilar(pairs: SimilarPair[], at: string): Promise<void> {
    // One statement per pair, outside a transaction: the other entry may be deleted between the statement's check
    // and its foreign key (READ COMMITTED), and that pair is then moot — it must not fail the write that found it.
    for (const p of pairs) {
      try {
        await this.db.run(numbered(SIMILAR_SQL.insert), similarArgs(p, at))
      } catch (e) {
        if ((e as {code?: unknown}).code !== FOREIGN_KEY_VIOLATION) throw e
      }
    }
  }

  async similarOf(viewer: Viewer, ids: string[]): Promise<Map<string, SimilarOther[]>> {
    if (ids.length === 0) return new Map()
    const rows = await this.db.query<Row>(
      `SELECT sp.entry_id, o.id, o.title, sp.similarity FROM similar_pairs sp JOIN entries o ON o.id = sp.other_id
      WHERE sp.entry_id = ANY($2::text[]) AND sp.dismissed_at IS NULL AND o.superseded_by IS NULL AND ${overAlias(visibleTo('$1'), 'o')}`,
      [viewer.principalId, ids],
    )
    return similarByEntry(rows)
  }

  async dismissSimilar(a: string, b: string, by: string, at: string): Promise<string | null> {
    return this.db.tx(async (q) => {
      await q.run(numbered(SIMILAR_SQL.dismiss), [at, by, a, b, b, a])
      const [row] = await q.query<Row>(numbered(SIMILAR_SQL.dismissedAt), [a, b, b, a])
      return row ? String(row.dismissed_at) : null
    })
  }

  async foldTally(): Promise<void> {
    await this.db.tx(async (q) => {
      // One fold at a time across daemons: two would lock the same rows in different orders.
      const [lock] = await q.query<Row>(`SELECT pg_try_advisory_xact_lock(hashtext('kb.review_tally.fold')) AS ok`, [])
      if (lock?.ok !== true) return
      for (const sql of POSTGRES_TALLY_FOLD) await q.run(sql, [])
    })
  }

  async backfillPending(limit: number): Promise<BackfillEntry[]> {
    return (await this.db.query<Row>(numbered(BACKFILL_SQL.pending), [limit])).map(backfillFromRow)
  }

  async backfillDone(seq: number): Promise<void> {
    await this.db.run(numbered(BACKFILL_SQL.done), [seq, seq])
  }

  async review(filter: ReviewFilter, page: {limit: number; after?: {retrieved: number; id: string}}): Promise<ReviewOutcome> {
    const p = new Params()
    const where = filterSql(
      filter.viewer,
      // Superseded entries are a kind of their own here (history-store.ts reviewKinds), not left out as list leaves them.
      {...(filter.projectId ? {projectId: filter.projectId} : {}), includeSuperseded: true, freshness: {state: 'stale', now: filter.now}},
      p,
    )
    // filterSql puts the freshness condition last: here it is a kind to count, not a filter.
    const stale = where.pop()!
    const cutoff = p.add(filter.unretrievedBefore)
    const kinds = reviewKinds({
      stale,
      flagged: `e.flags <> ${p.add(JSON.stringify(NO_FLAGS))}`,
      similar: hasSimilarSql(overAlias(visibleTo(p.add(filter.viewer.principalId)), 'o')),
      unverified: 'e.verified_at IS NULL',
      never_retrieved: `(e.last_retrieved_at IS NULL OR e.last_retrieved_at < ${cutoff}) AND e.created_at < ${cutoff}`,
    })
    const counts = await this.counts(filter)
    // Every kind's condition stays in the text (its parameters must be used); a kind asked for narrows it.
    const any = `(${Object.values(kinds).join(' OR ')})`
    const items = [...where, filter.kind ? `(${kinds[filter.kind]}) AND ${any}` : any]
    // Similar pairs are few: that kind starts from them instead of testing each entry in order.
    if (filter.kind === 'similar') items.push('e.id IN (SELECT entry_id FROM similar_pairs WHERE dismissed_at IS NULL)')
    if (page.after) {
      const r = p.add(page.after.retrieved)
      items.push(`(e.retrieved < ${r} OR (e.retrieved = ${r} AND e.id > ${p.add(page.after.id)}))`)
    }
    const rows = await this.db.query<Row>(
      `SELECT ${ENTRY_COLUMNS} FROM ${ENTRY_FROM} WHERE ${items.join(' AND ')} ORDER BY e.retrieved DESC, e.id LIMIT ${p.add(page.limit)}`,
      p.values,
    )
    return {
      counts,
      entries: rows.map(entryFromRow),
    }
  }

  /**
   * Every kind from the tally the writes keep (review-tally.ts): a sum over the caller's buckets, the entries of the
   * cutoffs' days, and the open pairs (docs/performance.md, "Review queue").
   */
  private async counts(filter: ReviewFilter): Promise<ReviewCounts> {
    const p = new Params()
    const me = p.add(filter.viewer.principalId)
    const branches = visibleBranches(me, filter.projectId === undefined ? undefined : p.add(filter.projectId))
    const now = p.add(filter.now)
    const sql = tallyCountsSql(POSTGRES_TALLY, {
      branches,
      projectCutoffs: `SELECT id, verify_after_days AS d,
        to_char((${now}::timestamptz - make_interval(days => verify_after_days)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS cutoff
        FROM projects`,
      verifyDefault: `${p.add(VERIFY_AFTER_DAYS_DEFAULT)}::int`,
      defaultCutoff: `${p.add(new Date(Date.parse(filter.now) - VERIFY_AFTER_DAYS_DEFAULT * 86_400_000).toISOString())}::text`,
      unusedCutoff: `${p.add(filter.unretrievedBefore)}::text`,
      similar: countSimilarSql(`(${branches.join(' OR ')})`, overAlias(visibleTo(me), 'o')),
    })
    const [row] = await this.db.query<Row>(sql, p.values)
    return countsFromRow(row!)
  }
}
