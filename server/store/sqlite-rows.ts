/**
 * @module Rows of the SQLite `entries` table (joined with the author's name) as `EntryRow`s, shared by
 * the driver and its export code.
 */
import type {Resolution, ThoughtStep} from '../../src/api/types.js'
import type {EntryRow} from './store.js'

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
