/**
 * @module What the PostgreSQL driver's modules share: numbered query parameters, the visibility rule and the
 * list/search filters as SQL, and rows of the `entries` and `comments` tables (with the author's name) as records.
 */
import type {Comment, Resolution, ThoughtStep} from '../../src/shared/types.js'
import type {Row} from './postgres-db.js'
import type {EntryFilter, EntryRow, Viewer} from './store.js'

/** The values of a statement's `$n` placeholders, added as the SQL text is put together. */
export class Params {
  readonly values: unknown[] = []

  /** Adds a value and returns its placeholder. */
  add(value: unknown): string {
    this.values.push(value)
    return `$${this.values.length}`
  }
}

/** docs/api.md, "Visibility and permissions" over `entries e` for the principal whose placeholder is `me`. */
export function visibleTo(me: string): string {
  return `(e.scope = 'global'
  OR (e.scope = 'private' AND e.author_id = ${me})
  OR (e.scope = 'project' AND e.project_id IN (SELECT project_id FROM memberships WHERE principal_id = ${me})))`
}

/** The visibility rule and the list/search filters as SQL conditions over `entries e`. */
export function filterSql(viewer: Viewer, filter: EntryFilter, p: Params): string[] {
  const me = p.add(viewer.principalId)
  const where = [visibleTo(me)]
  if (filter.projectId !== undefined)
    where.push(`(e.project_id = ${p.add(filter.projectId)} OR e.scope = 'global' OR (e.scope = 'private' AND e.author_id = ${me}))`)
  if (filter.scope !== undefined) where.push(`e.scope = ${p.add(filter.scope)}`)
  if (filter.status !== undefined) where.push(`e.status = ${p.add(filter.status)}`)
  if (filter.authorId !== undefined) where.push(`e.author_id = ${p.add(filter.authorId)}`)
  if (filter.tag !== undefined) where.push(`e.seq IN (SELECT seq FROM entry_tags WHERE tag = ${p.add(filter.tag)})`)
  return where
}

/** The columns `entryFromRow` reads, over `entries e JOIN principals p ON p.id = e.author_id`. */
export const ENTRY_COLUMNS = `e.seq, e.id, e.title, e.body, e.summary, e.summary_title, e.scope, e.project_id, e.tags, e.url, e.status,
  e.resolution, e.thought_chain, e.forked_from, e.author_id, p.name AS author_name, e.created_at, e.updated_at, e.version, e.comment_count`

export const ENTRY_FROM = 'entries e JOIN principals p ON p.id = e.author_id'

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

/** The columns `commentFromRow` reads, over `comments c JOIN principals p ON p.id = c.author_id`, in the order comments are listed. */
export const COMMENT_COLUMNS = 'c.id, c.body, c.type, c.author_id, p.name AS author_name, c.created_at'
export const COMMENT_ORDER = 'c.created_at, c.n'

export function commentFromRow(c: Row): Comment {
  return {
    id: c.id as string,
    body: c.body as string,
    type: c.type as Comment['type'],
    author: {id: c.author_id as string, name: c.author_name as string},
    created_at: c.created_at as string,
  }
}
