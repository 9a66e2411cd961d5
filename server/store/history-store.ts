/**
 * @module The record of every change to an entry (docs/api.md, "History") and the retrieval counts of usage: what
 * both drivers share. History rows are written by the store's own writes, inside the transaction of the change they
 * record (`insertEntry`, `updateEntry`, `updateTrust`, `addComment` take them); this interface reads them, and adds
 * a batch of retrieval counts in one statement. SQL is written once with `?` placeholders the PostgreSQL driver numbers.
 */
import type {HISTORY_ACTIONS, HISTORY_VIAS} from '../../src/shared/contract.js'
import type {EntryRow, Viewer} from './store.js'

export interface HistoryRow {
  /** A uuidv7: the order of writing among records of one millisecond. */
  id: string
  entry_id: string
  at: string
  action: (typeof HISTORY_ACTIONS)[number]
  actor_id: string
  actor_name: string
  via: (typeof HISTORY_VIAS)[number]
  client: string | null
  /** Field → what changed about it; never a redacted secret. */
  changes: Record<string, string>
  note: string | null
}

/** A history record as exported with its entry (the entry's id is the line's). */
export type HistoryExport = Omit<HistoryRow, 'entry_id'>

/** Retrievals counted by one daemon since its last flush: entry id → times and the latest time. */
export type UsageBatch = Array<{id: string; n: number; at: string}>

export interface ReviewFilter {
  viewer: Viewer
  projectId?: string
  /** Only entries of this kind; all kinds otherwise. */
  kind?: keyof ReviewCounts
  now: string
  /** Entries created before this and not retrieved since are `never_retrieved`. */
  unretrievedBefore: string
}

export type ReviewCounts = {
  stale: number
  flagged: number
  similar: number
  unverified: number
  superseded: number
  never_retrieved: number
}

/** A pair of entries found alike when `entryId` was written (docs/api.md, "Review queue"). */
export interface SimilarPair {
  entryId: string
  otherId: string
  similarity: number
}

/** The other side of an open pair, as the review queue names it. */
export interface SimilarOther {
  id: string
  title: string
  similarity: number
}

/**
 * Each kind's condition over `entries e`, given those of the kinds an entry that stands may have. A superseded
 * entry is in the queue for that alone (docs/api.md, "Review queue"): it has left search, so whether it is stale,
 * unverified or unused asks no work; what is left is to delete it or let it stand again.
 */
export function reviewKinds(standing: Omit<Record<keyof ReviewCounts, string>, 'superseded'>): Record<keyof ReviewCounts, string> {
  const kinds = Object.fromEntries(Object.entries(standing).map(([k, sql]) => [k, `(${sql}) AND e.superseded_by IS NULL`]))
  return {...(kinds as typeof standing), superseded: 'e.superseded_by IS NOT NULL'}
}

export interface ReviewOutcome {
  counts: ReviewCounts
  entries: EntryRow[]
}

export interface HistoryStore {
  /** An entry's records, oldest first, `limit` after the position (at, id). */
  list(entryId: string, page: {limit: number; after?: {at: string; id: string}}): Promise<HistoryRow[]>
  /** Adds the counts in one statement (one transaction): daemons sharing a database add up. */
  addUsage(batch: UsageBatch): Promise<void>
  /** The review queue (docs/api.md, "Review queue"): counts, then a page of entries most retrieved first. */
  review(filter: ReviewFilter, page: {limit: number; after?: {retrieved: number; id: string}}): Promise<ReviewOutcome>
  /**
   * Records the pairs found when their `entryId` was written: a pair already known (in either order) is left as it is,
   * a dismissed one stays dismissed, and one whose entry is gone meanwhile is skipped.
   */
  addSimilar(pairs: SimilarPair[], at: string): Promise<void>
  /** The open pairs of these entries (as the one written), whose other side the viewer can see and still stands. */
  similarOf(viewer: Viewer, ids: string[]): Promise<Map<string, SimilarOther[]>>
  /** Marks the pair of `a` and `b` (either order) not the same, once; its dismissal time, or null when there is no such pair. */
  dismissSimilar(a: string, b: string, by: string, at: string): Promise<string | null>
  /** The next standing entries the similar-pairs backfill has yet to look at, oldest first; none once it is done. */
  backfillPending(limit: number): Promise<BackfillEntry[]>
  /** Records that the backfill has looked at every entry up to `seq`. */
  backfillDone(seq: number): Promise<void>
  /** Folds the review tally's rows of ended connections (PostgreSQL, review-tally.ts); nothing to do on SQLite. */
  foldTally(): Promise<void>
}

/** An entry written before kb kept similar pairs, as the backfill checks it (server/services/similar-backfill.ts). */
export interface BackfillEntry {
  seq: number
  id: string
  authorId: string
  title: string
  body: string
  anchors: Array<{path: string; symbol?: string | null}>
}

/**
 * The visibility rule (and a project's filter, docs/api.md "Review queue") as three disjoint conditions over `entries
 * e`, one per scope; over the review tally's rows too, whose bucket columns bear the same names (review-tally.ts).
 */
export function visibleBranches(me: string, project: string | undefined): string[] {
  const member = `e.project_id IN (SELECT project_id FROM memberships WHERE principal_id = ${me})`
  return [
    `e.scope = 'global'`,
    `e.scope = 'private' AND e.author_id = ${me}`,
    `e.scope = 'project' AND ${project === undefined ? member : `e.project_id = ${project} AND ${member}`}`,
  ]
}

/** A row of review-tally.ts `tallyCountsSql` as counts. */
export function countsFromRow(r: Record<string, unknown>): ReviewCounts {
  return {
    stale: Number(r.stale),
    flagged: Number(r.flagged),
    similar: Number(r.similar),
    unverified: Number(r.unverified),
    superseded: Number(r.superseded),
    never_retrieved: Number(r.never_retrieved),
  }
}

/**
 * The entries with an open pair whose two sides stand and the viewer can see, `where` (visibility and the project's
 * filter over `e`) and `visibleO` (visibility over `o`) given: a few rows of the pairs, not a pass over the entries.
 * CROSS JOIN holds SQLite to that order (the pairs first); PostgreSQL plans it as any inner join.
 */
export const countSimilarSql = (where: string, visibleO: string): string =>
  `SELECT count(DISTINCT sp.entry_id) AS n FROM similar_pairs sp CROSS JOIN entries e CROSS JOIN entries o
  WHERE e.id = sp.entry_id AND o.id = sp.other_id AND sp.dismissed_at IS NULL AND e.superseded_by IS NULL
  AND o.superseded_by IS NULL AND ${where} AND ${visibleO}`

/** `sql` (conditions over `entries e`) over another alias of entries. */
export function overAlias(sql: string, alias: string): string {
  return sql.replace(/\be\./g, `${alias}.`)
}

/**
 * Whether entry `e` has an open similar pair (docs/api.md, "Review queue") whose other side `o` stands and, by
 * `visibleO` (the visibility rule over `o`), the viewer can see. The entry itself is a review kind's subject, so its
 * own visibility and standing are the queue's conditions already.
 */
export const hasSimilarSql = (visibleO: string): string =>
  `EXISTS (SELECT 1 FROM similar_pairs sp JOIN entries o ON o.id = sp.other_id
    WHERE sp.entry_id = e.id AND sp.dismissed_at IS NULL AND o.superseded_by IS NULL AND ${visibleO})`

export const SIMILAR_SQL = {
  insert: `INSERT INTO similar_pairs (entry_id, other_id, similarity, found_at) SELECT ?, ?, ?, ?
    WHERE EXISTS (SELECT 1 FROM entries WHERE id = ?) AND EXISTS (SELECT 1 FROM entries WHERE id = ?)
    AND NOT EXISTS (SELECT 1 FROM similar_pairs WHERE entry_id = ? AND other_id = ?) ON CONFLICT DO NOTHING`,
  dismiss: `UPDATE similar_pairs SET dismissed_at = coalesce(dismissed_at, ?), dismissed_by = coalesce(dismissed_by, ?)
    WHERE (entry_id = ? AND other_id = ?) OR (entry_id = ? AND other_id = ?)`,
  dismissedAt: `SELECT dismissed_at FROM similar_pairs WHERE (entry_id = ? AND other_id = ?) OR (entry_id = ? AND other_id = ?)`,
}

/** The backfill's bounds (migration: every entry there then) and its statements, `?` placeholders. */
export const BACKFILL_SQL = {
  table: `CREATE TABLE similar_backfill (next_seq bigint NOT NULL, end_seq bigint NOT NULL);
  INSERT INTO similar_backfill (next_seq, end_seq) SELECT 0, coalesce(max(seq), 0) FROM entries;`,
  pending: `SELECT e.seq, e.id, e.author_id, e.title, e.body, e.anchors FROM similar_backfill b CROSS JOIN entries e
    WHERE e.seq > b.next_seq AND e.seq <= b.end_seq AND e.superseded_by IS NULL ORDER BY e.seq LIMIT ?`,
  done: 'UPDATE similar_backfill SET next_seq = ? WHERE next_seq < ?',
}

export function backfillFromRow(r: Record<string, unknown>): BackfillEntry {
  return {
    seq: Number(r.seq),
    id: String(r.id),
    authorId: String(r.author_id),
    title: String(r.title),
    body: String(r.body),
    anchors: JSON.parse(String(r.anchors)) as BackfillEntry['anchors'],
  }
}

export function similarArgs(p: SimilarPair, at: string): unknown[] {
  return [p.entryId, p.otherId, p.similarity, at, p.entryId, p.otherId, p.otherId, p.entryId]
}

/** Groups the rows of a `similarOf` query by entry, best first. */
export function similarByEntry(rows: Array<Record<string, unknown>>): Map<string, SimilarOther[]> {
  const out = new Map<string, SimilarOther[]>()
  for (const r of rows) {
    const list = out.get(String(r.entry_id)) ?? []
    list.push({id: String(r.id), title: String(r.title), similarity: Number(r.similarity)})
    out.set(String(r.entry_id), list)
  }
  for (const list of out.values()) list.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1))
  return out
}

const COLUMNS = 'id, entry_id, at, action, actor_id, actor_name, via, client, changes, note'

export const HISTORY_SQL = {
  insert: `INSERT INTO history (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  list: (after: boolean): string =>
    `SELECT ${COLUMNS} FROM history WHERE entry_id = ?` +
    (after ? ' AND (at > ? OR (at = ? AND id > ?))' : '') +
    ' ORDER BY at, id LIMIT ?',
  /** Every record of the entries of an export page, in order. */
  ofEntries: (n: number): string =>
    `SELECT ${COLUMNS} FROM history WHERE entry_id IN (${Array(n).fill('?').join(', ')}) ORDER BY entry_id, at, id`,
}

export function historyArgs(r: HistoryRow): unknown[] {
  return [r.id, r.entry_id, r.at, r.action, r.actor_id, r.actor_name, r.via, r.client, JSON.stringify(r.changes), r.note]
}

export function listArgs(entryId: string, page: {limit: number; after?: {at: string; id: string}}): unknown[] {
  return page.after ? [entryId, page.after.at, page.after.at, page.after.id, page.limit] : [entryId, page.limit]
}

export function historyFromRow(r: Record<string, unknown>): HistoryRow {
  return {
    id: String(r.id),
    entry_id: String(r.entry_id),
    at: String(r.at),
    action: String(r.action) as HistoryRow['action'],
    actor_id: String(r.actor_id),
    actor_name: String(r.actor_name),
    via: String(r.via) as HistoryRow['via'],
    client: r.client === null ? null : String(r.client),
    changes: JSON.parse(String(r.changes)) as Record<string, string>,
    note: r.note === null ? null : String(r.note),
  }
}

/** Groups records read with `ofEntries` by entry, for the export. */
export function historyByEntry(rows: Array<Record<string, unknown>>): Map<string, HistoryExport[]> {
  const out = new Map<string, HistoryExport[]>()
  for (const r of rows) {
    const {entry_id: entryId, ...rest} = historyFromRow(r)
    const list = out.get(entryId) ?? []
    list.push(rest)
    out.set(entryId, list)
  }
  return out
}
