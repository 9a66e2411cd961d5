/**
 * @module What the PostgreSQL driver's modules share: numbered query parameters, the visibility rule and the
 * list/search filters as SQL, and the columns of an entry with its author's name (read into records by rows.ts).
 */
import type {EntryFilter, Viewer} from './store.js'

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

/** The columns `commentFromRow` reads, over `comments c JOIN principals p ON p.id = c.author_id`, in the order comments are listed. */
export const COMMENT_COLUMNS = 'c.id, c.body, c.type, c.author_id, p.name AS author_name, c.created_at'
export const COMMENT_ORDER = 'c.created_at, c.n'
