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
  /** Whether to count every kind too (the service keeps counts a few seconds: server/services/review.ts). */
  count: boolean
}

export type ReviewCounts = {stale: number; flagged: number; unverified: number; superseded: number; never_retrieved: number}

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
  counts: ReviewCounts | null
  entries: EntryRow[]
}

export interface HistoryStore {
  /** An entry's records, oldest first, `limit` after the position (at, id). */
  list(entryId: string, page: {limit: number; after?: {at: string; id: string}}): Promise<HistoryRow[]>
  /** Adds the counts in one statement (one transaction): daemons sharing a database add up. */
  addUsage(batch: UsageBatch): Promise<void>
  /** The review queue (docs/api.md, "Review queue"): counts, then a page of entries most retrieved first. */
  review(filter: ReviewFilter, page: {limit: number; after?: {retrieved: number; id: string}}): Promise<ReviewOutcome>
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
