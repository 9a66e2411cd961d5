/**
 * @module A stored entry, comment or Idempotency-Key record as the store interface returns it, and an entry
 * as exported and imported (the same shape on both drivers), from a row of either driver (the
 * columns are named alike in SQLite and PostgreSQL; JSON columns arrive as text from both).
 */
import type {Comment, Resolution, ThoughtStep} from '../../src/shared/types.js'
import type {IdempotencyRecord} from './idempotency.js'
import type {EntryRow} from './store.js'
import type {EntryExport} from './transfer-store.js'

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

/** An entry as exported: everything stored but what the server derives again on import (summary) or counts (comments). */
export function exportedEntry(r: Row, comments: Comment[]): EntryExport {
  const {summary: _summary, summary_title: _title, comment_count: _count, ...entry} = entryFromRow(r)
  return {...entry, comments}
}

/** An import record: an entry as exported, with the summary the server derived for it. */
export type ImportedEntry = EntryExport & {summary: string; summary_title: string}

/** An import record as the entry row it becomes (its comments are rows of their own). */
export function importedRow(e: ImportedEntry): EntryRow {
  const {comments, ...entry} = e
  return {...entry, comment_count: comments.length}
}

/** An import record in exactly the shape (and key order) an export of it has, to tell unchanged from changed. */
export function canonical(e: ImportedEntry): EntryExport {
  const comments = e.comments.map((c) => ({
    id: c.id,
    body: c.body,
    type: c.type,
    author: {id: c.author.id, name: c.author.name},
    created_at: c.created_at,
  }))
  return exportedEntry(asRow(importedRow(e)), comments)
}

/** An entry as the row `entryFromRow` reads (JSON text for the structured fields). */
function asRow(e: EntryRow): Row {
  return {
    ...e,
    tags: JSON.stringify(e.tags),
    resolution: e.resolution ? JSON.stringify(e.resolution) : null,
    thought_chain: JSON.stringify(e.thought_chain),
    author_id: e.author.id,
    author_name: e.author.name,
  }
}
