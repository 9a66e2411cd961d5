/**
 * @module The SQL vocabulary of export (docs/api.md, "Export, import and backup"), written once for both drivers in
 * the neutral `@name` form (sql/bind.ts): projects and entries in keyset pages, visible to the viewer (none: the
 * owner's backup, everything), with the comments and open flags of a page's entries.
 */
import {FLAG_COLUMNS, FLAG_ORDER} from '../rows.js'
import type {Viewer} from '../store.js'
import type {ExportFilter} from '../transfer-store.js'
import type {Params} from './bind.js'
import type {Dialect} from './dialect.js'
import {COMMENT_COLUMNS, commentOrder, ENTRY_FROM, VISIBLE_TO_ME} from './entries.js'

/** A page of projects after @after by id: the viewer's (a member of), or all. */
export function exportProjectsSql(
  viewer: Viewer | null,
  filter: ExportFilter,
  page: {limit: number; after?: string},
): {sql: string; params: Params} {
  const where = ['p.id > @after']
  const params: Params = {after: page.after ?? '', limit: page.limit}
  if (viewer) {
    where.push('p.id IN (SELECT project_id FROM memberships WHERE principal_id = @me)')
    params.me = viewer.principalId
  }
  if (filter.projectId !== undefined) {
    where.push('p.id = @project')
    params.project = filter.projectId
  }
  const sql = `SELECT p.id, p.name, p.remote, p.created_at, p.created_by, c.name AS creator_name, p.verify_after_days
      FROM projects p JOIN principals c ON c.id = p.created_by WHERE ${where.join(' AND ')} ORDER BY p.id LIMIT @limit`
  return {sql, params}
}

/** The members of project @project_id as an export names them, in the order they joined. */
export const EXPORT_MEMBERS = `SELECT m.principal_id AS id, p.name, m.role FROM memberships m JOIN principals p ON p.id = m.principal_id
      WHERE m.project_id = @project_id ORDER BY m.created_at, m.principal_id`

/** The conditions and values selecting the entries of an export. */
function exportWhere(viewer: Viewer | null, filter: ExportFilter): {where: string[]; params: Params} {
  const where = ['1 = 1']
  const params: Params = {}
  if (viewer) {
    where.push(VISIBLE_TO_ME)
    params.me = viewer.principalId
  }
  if (filter.scope !== undefined) {
    where.push('e.scope = @scope')
    params.scope = filter.scope
  }
  if (filter.projectId !== undefined) {
    where.push('e.project_id = @project')
    params.project = filter.projectId
  }
  return {where, params}
}

/** How many entries an export holds, as `n`. */
export function countExportSql(viewer: Viewer | null, filter: ExportFilter): {sql: string; params: Params} {
  const {where, params} = exportWhere(viewer, filter)
  return {sql: `SELECT count(*) AS n FROM entries e WHERE ${where.join(' AND ')}`, params}
}

/** A page of an export's entries (rows whole, with the author's name), in the order stored, after seq @after. */
export function exportEntriesSql(
  viewer: Viewer | null,
  filter: ExportFilter,
  page: {limit: number; after?: number},
): {sql: string; params: Params} {
  const {where, params} = exportWhere(viewer, filter)
  where.unshift('e.seq > @after')
  Object.assign(params, {after: page.after ?? 0, limit: page.limit})
  return {sql: `SELECT e.*, p.name AS author_name FROM ${ENTRY_FROM} WHERE ${where.join(' AND ')} ORDER BY e.seq LIMIT @limit`, params}
}

/** The comments of the entries whose seqs are the list @seqs (`Dialect.list`), by entry, in order. */
export function exportCommentsSql(d: Dialect): string {
  return `SELECT c.entry_seq, ${COMMENT_COLUMNS} FROM comments c JOIN principals p ON p.id = c.author_id
      WHERE ${d.inList('c.entry_seq', 'seqs', 'int8')} ORDER BY c.entry_seq, ${commentOrder(d)}`
}

/** The open flags of the entries whose ids are the list @ids (`Dialect.list`), in export order. */
export function exportFlagsSql(d: Dialect): string {
  return `SELECT ${FLAG_COLUMNS} FROM flags f JOIN principals p ON p.id = f.principal_id
      WHERE ${d.inList('f.entry_id', 'ids', 'text')} ORDER BY ${FLAG_ORDER}`
}
