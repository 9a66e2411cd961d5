/**
 * @module A stored entry, comment or Idempotency-Key record as the store interface returns it, and an entry
 * as exported and imported (the same shape on both drivers), from a row of either driver (the
 * columns are named alike in SQLite and PostgreSQL; JSON columns arrive as text from both).
 */
import type {Anchor, AuthorRef, Branch, Comment, FlagCounts, Resolution, ThoughtStep} from '../../src/shared/types.js'
import type {IdempotencyRecord} from './idempotency.js'
import type {EntryRow} from './store.js'
import type {HistoryExport} from './history-store.js'
import type {EntryExport, FlagExport, ProjectExport} from './transfer-store.js'
import {flagSummaryOf} from './trust.js'

export type Row = Record<string, unknown>

export function entryFromRow(r: Row): EntryRow {
  return {
    id: r.id as string,
    title: r.title as string,
    body: r.body as string,
    summary: r.summary as string,
    summary_title: r.summary_title as string,
    scope: r.scope as EntryRow['scope'],
    project_id: (r.project_id as string | null) ?? null,
    tags: JSON.parse(r.tags as string) as string[],
    url: (r.url as string | null) ?? null,
    status: r.status as EntryRow['status'],
    resolution: r.resolution ? (JSON.parse(r.resolution as string) as Resolution) : null,
    thought_chain: JSON.parse(r.thought_chain as string) as ThoughtStep[],
    forked_from: (r.forked_from as string | null) ?? null,
    author: {id: r.author_id as string, name: r.author_name as string},
    created_at: r.created_at as string,
    updated_at: r.updated_at as string,
    version: r.version as number,
    comment_count: r.comment_count as number,
    ...trustFromRow(r.anchors, r.flags, r.flagged_at, r.verified_at, r.verified_by, r.verifications, r.corrections),
    superseded_by: (r.superseded_by as string | null) ?? null,
    retrieved: Number(r.retrieved ?? 0),
    last_retrieved_at: (r.last_retrieved_at as string | null | undefined) ?? null,
  }
}

type TrustColumns = Pick<EntryRow, 'anchors' | 'flags' | 'flagged_at' | 'verified_at' | 'verified_by' | 'verifications' | 'corrections'>

/** The trust columns (migration 8 of SQLite, 4 of PostgreSQL) in ENTRY_COLUMNS order, JSON as text: shared with sqlite.ts's raw reads. */
export function trustFromRow(...c: unknown[]): TrustColumns {
  return {
    anchors: JSON.parse(c[0] as string) as Anchor[],
    flags: JSON.parse(c[1] as string) as FlagCounts,
    flagged_at: (c[2] as string | null) ?? null,
    verified_at: (c[3] as string | null) ?? null,
    verified_by: c[4] ? (JSON.parse(c[4] as string) as AuthorRef) : null,
    verifications: JSON.parse(c[5] as string) as EntryRow['verifications'],
    corrections: Number(c[6]),
  }
}

/** One changed field as its column stores it (JSON text for the structured ones). */
export function encodeColumn(key: string, value: unknown): unknown {
  if (key === 'tags' || key === 'thought_chain' || key === 'anchors') return JSON.stringify(value)
  if (key === 'resolution') return value === null ? null : JSON.stringify(value)
  return value
}

/** The trust fields as their columns store them (JSON text for the structured ones). */
export function trustToDb(e: TrustColumns): Row {
  return {
    anchors: JSON.stringify(e.anchors),
    flags: JSON.stringify(e.flags),
    flagged_at: e.flagged_at,
    verified_at: e.verified_at,
    verified_by: e.verified_by ? JSON.stringify(e.verified_by) : null,
    verifications: JSON.stringify(e.verifications),
    corrections: e.corrections,
  }
}

/** A row of `comments c JOIN principals p ON p.id = c.author_id` (columns id, body, type, author_id, author_name, created_at). */
export function commentFromRow(c: Row): Comment {
  return {
    id: c.id as string,
    body: c.body as string,
    type: c.type as Comment['type'],
    author: {id: c.author_id as string, name: c.author_name as string},
    created_at: c.created_at as string,
  }
}

/** A row of sql/entries.ts `listBranchesSql` (columns id, title, scope, author_id, author_name, created_at). */
export function branchFromRow(r: Row): Branch {
  const {id, title, scope, created_at} = r as Pick<Branch, 'id' | 'title' | 'scope' | 'created_at'>
  return {id, title, scope, author: {id: r.author_id as string, name: r.author_name as string}, created_at}
}

export function idempotencyRecordFromRow(r: Row): IdempotencyRecord {
  return {
    principal_id: r.principal_id as string,
    key: r.key as string,
    fingerprint: (r.fingerprint as string | null) ?? null,
    claim: r.claim as string,
    response:
      r.status === null
        ? null
        : {status: r.status as number, headers: JSON.parse(r.headers as string) as Record<string, string>, body: r.body as string},
    created_at: r.created_at as string,
    expires_at: r.expires_at as string,
  }
}

/** An entry as exported: everything stored but what the server derives again on import (summary) or counts (comments, flags). */
function exportedEntry(r: Row, comments: Comment[], flags: FlagExport[]): EntryExport {
  const {summary: _summary, summary_title: _title, comment_count: _count, flags: _flags, flagged_at: _at, ...entry} = entryFromRow(r)
  return {...entry, comments, open_flags: flags}
}

/** The columns `flagFromRow` reads, over `flags f JOIN principals p ON p.id = f.principal_id`, and their export order (both drivers). */
export const FLAG_COLUMNS = 'f.entry_id, f.principal_id, p.name AS principal_name, f.reason, f.note, f.duplicate_of, f.created_at'
export const FLAG_ORDER = 'f.entry_id, f.created_at, f.principal_id'

/** A row of `flags f JOIN principals p ON p.id = f.principal_id` (columns entry_id, principal_id, principal_name, reason, note, duplicate_of, created_at). */
export function flagFromRow(f: Row): FlagExport {
  return {
    by: {id: f.principal_id as string, name: f.principal_name as string},
    reason: f.reason as FlagExport['reason'],
    note: (f.note as string | null) ?? null,
    duplicate_of: (f.duplicate_of as string | null) ?? null,
    created_at: f.created_at as string,
  }
}

/** An import record: an entry as exported, with the summary the server derived for it. */
export type ImportedEntry = EntryExport & {summary: string; summary_title: string}

/** An import record as the entry row it becomes (its comments are rows of their own). */
export function importedRow(e: ImportedEntry): EntryRow {
  const {comments, open_flags: flags, ...entry} = e
  return {...entry, comment_count: comments.length, ...flagSummaryOf(flags)}
}

/** An import record in exactly the shape (and key order) an export of it has, to tell unchanged from changed. */
function canonical(e: ImportedEntry): EntryExport {
  const comments = e.comments.map((c) => ({
    id: c.id,
    body: c.body,
    type: c.type,
    author: {id: c.author.id, name: c.author.name},
    created_at: c.created_at,
  }))
  const flags = e.open_flags.map((f) => ({
    by: {id: f.by.id, name: f.by.name},
    reason: f.reason,
    note: f.note,
    duplicate_of: f.duplicate_of,
    created_at: f.created_at,
  }))
  return exportedEntry(asRow(importedRow(e)), comments, flags)
}

/**
 * Whether an import record says exactly what the stored entry (its row, comments and open flags) says: then it is
 * skipped, before it is scanned (docs/api.md, "Export, import and backup"). Usage counts are left out: reading an
 * entry is no change of it, so a file exported before some reads is still the same entry.
 */
export function sameAsStored(existing: Row, comments: Comment[], flags: FlagExport[], e: ImportedEntry): boolean {
  const text = (x: EntryExport): string => JSON.stringify({...x, retrieved: 0, last_retrieved_at: null})
  return text(exportedEntry(existing, comments, flags)) === text(canonical(e))
}

/** An entry as the row `entryFromRow` reads (JSON text for the structured fields). */
function asRow(e: EntryRow): Row {
  return {
    ...e,
    tags: JSON.stringify(e.tags),
    resolution: e.resolution ? JSON.stringify(e.resolution) : null,
    thought_chain: JSON.stringify(e.thought_chain),
    ...trustToDb(e),
    author_id: e.author.id,
    author_name: e.author.name,
  }
}

/** A row of sql/transfer.ts `exportProjectsSql` as exported (members are added for the owner's export). */
export function projectExportFromRow(r: Row): ProjectExport {
  return {
    id: r.id as string,
    name: r.name as string,
    remote: r.remote as string,
    created_at: r.created_at as string,
    created_by: {id: r.created_by as string, name: r.creator_name as string},
    verify_after_days: r.verify_after_days as number,
  }
}

/**
 * The rows of an export page (read up to `limit`): they end early once their bodies, thought chains and resolutions
 * reach `maxChars` (one row at least), so that large entries come a few at a time. Reads `rows` no further than that.
 */
export function cutAtChars(rows: Iterable<Row>, page: {limit: number; maxChars?: number}): {rows: Row[]; full: boolean} {
  const kept: Row[] = []
  let chars = 0
  for (const r of rows) {
    kept.push(r)
    chars += String(r.body).length + String(r.thought_chain).length + String(r.resolution ?? '').length
    if (page.maxChars !== undefined && chars >= page.maxChars) return {rows: kept, full: true}
  }
  return {rows: kept, full: kept.length === page.limit}
}

/** An export page's entries from its rows, the comments and open flags of those rows and their history; the position after it when full. */
export function exportPage(
  cut: {rows: Row[]; full: boolean},
  related: {comments: Row[]; flags: Row[]; history: Map<string, HistoryExport[]>},
): {entries: EntryExport[]; next?: number} {
  const comments = new Map<number, Comment[]>()
  for (const c of related.comments) comments.set(c.entry_seq as number, [...(comments.get(c.entry_seq as number) ?? []), commentFromRow(c)])
  const flags = new Map<string, FlagExport[]>()
  for (const f of related.flags) flags.set(f.entry_id as string, [...(flags.get(f.entry_id as string) ?? []), flagFromRow(f)])
  const entries = cut.rows.map((r) => ({
    ...exportedEntry(r, comments.get(r.seq as number) ?? [], flags.get(r.id as string) ?? []),
    history: related.history.get(r.id as string) ?? [],
  }))
  const last = cut.rows.at(-1)
  return cut.full && last ? {entries, next: last.seq as number} : {entries}
}
