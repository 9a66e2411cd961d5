/**
 * @module The SQL vocabulary of entries and comments, written once for both drivers in the neutral `@name` form
 * (sql/bind.ts): the visibility rule, the columns rows.ts reads, the list/search filters and the statements of
 * reading entries, branches and comments. What the dialects say differently comes from sql/dialect.ts.
 */
import {VERIFY_AFTER_DAYS_DEFAULT} from '../../../src/shared/contract.js'
import type {CommentPage, EntryFilter, ListPage, Viewer} from '../store.js'
import {ANCHOR_STALE_PATTERNS} from '../trust.js'
import type {Params} from './bind.js'
import type {Dialect} from './dialect.js'

/** docs/api.md, "Visibility and permissions" over `entries e` for the principal bound as @me: the one place this rule is written in SQL. */
export const VISIBLE_TO_ME = `(e.scope = 'global'
  OR (e.scope = 'private' AND e.author_id = @me)
  OR (e.scope = 'project' AND e.project_id IN (SELECT project_id FROM memberships WHERE principal_id = @me)))`

/** The columns `entryFromRow` reads (sqlite.ts reads them by position too), over ENTRY_FROM. */
export const ENTRY_COLUMNS = `e.seq, e.id, e.title, e.body, e.summary, e.summary_title, e.scope, e.project_id, e.tags, e.url, e.status,
  e.resolution, e.thought_chain, e.forked_from, e.author_id, p.name AS author_name, e.created_at, e.updated_at, e.version, e.comment_count,
  e.anchors, e.flags, e.flagged_at, e.verified_at, e.verified_by, e.verifications, e.corrections,
  e.superseded_by, e.retrieved, e.last_retrieved_at`

export const ENTRY_FROM = 'entries e JOIN principals p ON p.id = e.author_id'

/** An entry by @id with its author's name. */
export const GET_ENTRY = `SELECT ${ENTRY_COLUMNS} FROM ${ENTRY_FROM} WHERE e.id = @id`

/** The columns `commentFromRow` reads, over `comments c JOIN principals p ON p.id = c.author_id`. */
export const COMMENT_COLUMNS = 'c.id, c.body, c.type, c.author_id, p.name AS author_name, c.created_at'

/** The order comments are listed in: as written, ties in created_at (one millisecond) by the dialect's order of insertion. */
export function commentOrder(d: Dialect): string {
  return `c.created_at, c.${d.commentSeq}`
}

/** The visibility rule of docs/api.md, "Visibility and permissions", and the list/search filters, as SQL over `entries e`. */
export function filterSql(d: Dialect, viewer: Viewer, filter: EntryFilter): {where: string[]; params: Params} {
  const params: Params = {me: viewer.principalId}
  const where = [VISIBLE_TO_ME]
  const add = (condition: string, name: string, value: unknown): void => {
    where.push(condition)
    params[name] = value
  }
  if (filter.projectId !== undefined)
    add(`(e.project_id = @project OR e.scope = 'global' OR (e.scope = 'private' AND e.author_id = @me))`, 'project', filter.projectId)
  if (filter.scope !== undefined) add('e.scope = @scope', 'scope', filter.scope)
  if (filter.status !== undefined) add('e.status = @status', 'status', filter.status)
  if (filter.authorId !== undefined) add('e.author_id = @author', 'author', filter.authorId)
  if (filter.tag !== undefined) add('e.seq IN (SELECT seq FROM entry_tags WHERE tag = @tag)', 'tag', filter.tag)
  if (filter.includeSuperseded !== true) where.push('e.superseded_by IS NULL')
  if (filter.freshness !== undefined) {
    where.push(filter.freshness.state === 'stale' ? d.stale : `NOT ${d.stale}`)
    Object.assign(params, {
      now: filter.freshness.now,
      anchor_changed: ANCHOR_STALE_PATTERNS[0],
      anchor_deleted: ANCHOR_STALE_PATTERNS[1],
      verify_default: VERIFY_AFTER_DAYS_DEFAULT,
    })
  }
  return {where, params}
}

/** A page of `listEntries`: newest updated_at first, ties by id, after the page's position. */
export function listEntriesSql(d: Dialect, viewer: Viewer, filter: EntryFilter, page: ListPage): {sql: string; params: Params} {
  const {where, params} = filterSql(d, viewer, filter)
  if (page.after) {
    where.push('(e.updated_at < @after_u OR (e.updated_at = @after_u AND e.id < @after_id))')
    Object.assign(params, {after_u: page.after.updated_at, after_id: page.after.id})
  }
  params.limit = page.limit
  const sql = `SELECT ${ENTRY_COLUMNS} FROM ${ENTRY_FROM}
      WHERE ${where.join(' AND ')} ORDER BY e.updated_at DESC, e.id DESC LIMIT @limit`
  return {sql, params}
}

/** The forks of entry @parent the viewer may see, oldest first. */
export function listBranchesSql(d: Dialect, viewer: Viewer, parentId: string): {sql: string; params: Params} {
  const {where, params} = filterSql(d, viewer, {includeSuperseded: true})
  params.parent = parentId
  const sql = `SELECT e.id, e.title, e.scope, e.author_id, p.name AS author_name, e.created_at FROM ${ENTRY_FROM}
      WHERE e.forked_from = @parent AND ${where.join(' AND ')} ORDER BY e.created_at, e.id`
  return {sql, params}
}

/** A page of an entry's comments (`Store.listComments`): the newest, or those after a position, or the first; in order but for the newest (reversed by the caller). */
export function listCommentsSql(d: Dialect, entryId: string, page: CommentPage): {sql: string; params: Params} {
  const select = `SELECT ${COMMENT_COLUMNS}
      FROM comments c JOIN entries e ON e.seq = c.entry_seq JOIN principals p ON p.id = c.author_id WHERE e.id = @entry`
  const params: Params = {entry: entryId, limit: page.limit}
  const seq = `c.${d.commentSeq}`
  if (page.newest) return {sql: `${select} ORDER BY c.created_at DESC, ${seq} DESC LIMIT @limit`, params}
  if (page.after) {
    Object.assign(params, {at: page.after.created_at, id: page.after.id})
    const sql = `${select} AND (c.created_at, ${seq}) > (@at, (SELECT ${d.commentSeq} FROM comments WHERE id = @id))
      ORDER BY ${commentOrder(d)} LIMIT @limit`
    return {sql, params}
  }
  return {sql: `${select} ORDER BY ${commentOrder(d)} LIMIT @limit`, params}
}

/** Entry @id's seq and version, locked for the rest of the transaction where the dialect can (If-Match decides on it). */
export function entryVersionSql(d: Dialect): string {
  return `SELECT e.seq, e.version FROM entries e WHERE e.id = @id${d.lockEntry}`
}

/** Statements of an entry's comments that change the entry's row or a comment's body. */
export const COMMENT_SQL = {
  /** A comment is counted on entry @id (locking its row first: comments on one entry are counted one at a time); its seq. */
  count: 'UPDATE entries SET comment_count = comment_count + 1 WHERE id = @id RETURNING seq',
  /** @n comments more on entry seq @seq. */
  countMore: 'UPDATE entries SET comment_count = comment_count + @n WHERE seq = @seq',
  setBody: 'UPDATE comments SET body = @body WHERE id = @id AND entry_seq = @seq',
} as const
