/**
 * @module What the SQLite driver's modules share: the visibility rule and list/search filters as SQL, a
 * and a statement cache (rows as records, and entries as exported: rows.ts, shared with PostgreSQL).
 */
import type Database from 'better-sqlite3'
import {VERIFY_AFTER_DAYS_DEFAULT} from '../../src/shared/contract.js'
import type {Row} from './rows.js'
import {ANCHOR_STALE_PATTERNS} from './trust.js'
import type {EntryFilter, Viewer} from './store.js'

/** docs/api.md, "Visibility and permissions" over `entries e` for the principal bound as `@me`: the one place this rule is written in SQL. */
export const VISIBLE_TO_ME = `(e.scope = 'global'
  OR (e.scope = 'private' AND e.author_id = @me)
  OR (e.scope = 'project' AND e.project_id IN (SELECT project_id FROM memberships WHERE principal_id = @me)))`

/** The columns `entryFromRow` reads, over `entries e JOIN principals p ON p.id = e.author_id`. */
export const ENTRY_COLUMNS = `e.seq, e.id, e.title, e.body, e.summary, e.summary_title, e.scope, e.project_id, e.tags, e.url, e.status,
  e.resolution, e.thought_chain, e.forked_from, e.author_id, p.name AS author_name, e.created_at, e.updated_at, e.version, e.comment_count,
  e.anchors, e.flags, e.flagged_at, e.verified_at, e.verified_by, e.verifications, e.corrections,
  e.superseded_by, e.retrieved, e.last_retrieved_at`

/** The visibility rule of docs/api.md, "Visibility and permissions", and the list/search filters, as SQL over `entries e`. */
export function filterSql(viewer: Viewer, filter: EntryFilter): {where: string[]; params: Row} {
  const params: Row = {me: viewer.principalId}
  const where = [VISIBLE_TO_ME]
  if (filter.projectId !== undefined) {
    where.push(`(e.project_id = @project OR e.scope = 'global' OR (e.scope = 'private' AND e.author_id = @me))`)
    params.project = filter.projectId
  }
  if (filter.scope !== undefined) {
    where.push('e.scope = @scope')
    params.scope = filter.scope
  }
  if (filter.status !== undefined) {
    where.push('e.status = @status')
    params.status = filter.status
  }
  if (filter.authorId !== undefined) {
    where.push('e.author_id = @author')
    params.author = filter.authorId
  }
  if (filter.tag !== undefined) {
    where.push('e.seq IN (SELECT seq FROM entry_tags WHERE tag = @tag)')
    params.tag = filter.tag
  }
  if (filter.includeSuperseded !== true) where.push('e.superseded_by IS NULL')
  if (filter.freshness !== undefined) {
    where.push(filter.freshness.state === 'stale' ? STALE_SQL : `NOT ${STALE_SQL}`)
    params.now = filter.freshness.now
    params.anchor_changed = ANCHOR_STALE_PATTERNS[0]
    params.anchor_deleted = ANCHOR_STALE_PATTERNS[1]
    params.verify_default = VERIFY_AFTER_DAYS_DEFAULT
  }
  return {where, params}
}

/**
 * server/services/freshness.ts `freshnessReasons` as SQL over `entries e` at @now (PostgreSQL's is postgres-rows.ts
 * STALE_SQL): an anchor changed or deleted, an open stale-making flag (`flagged_at` is set exactly then), or, where
 * the project asks (verify_after_days > 0), the last verification or edit older than that many days.
 */
const STALE_SQL = `(e.anchors LIKE @anchor_changed OR e.anchors LIKE @anchor_deleted OR e.flagged_at IS NOT NULL
  OR EXISTS (SELECT 1 FROM (SELECT coalesce((SELECT verify_after_days FROM projects WHERE id = e.project_id), @verify_default) AS d)
    WHERE d > 0 AND max(e.updated_at, coalesce(e.verified_at, '')) < strftime('%Y-%m-%dT%H:%M:%fZ', @now, '-' || d || ' days')))`

/**
 * Prepares each SQL text once per connection (an import runs a dozen statements per line), for every module
 * of the driver. `get` hands a statement back returning rows as objects, whatever mode (`pluck()`) its last
 * user left it in: modules share statements of the same text.
 */
export class StatementCache {
  private readonly stmts = new Map<string, Database.Statement>()

  constructor(private readonly db: Database.Database) {}

  get(sql: string): Database.Statement {
    let s = this.stmts.get(sql)
    if (!s) {
      s = this.db.prepare(sql)
      this.stmts.set(sql, s)
    } else if (s.reader) {
      s.pluck(false)
    }
    return s
  }

  /** The statement for the SQL in raw mode (rows as arrays), cached apart: a raw statement must not reach callers of `get`. */
  raw(sql: string): Database.Statement {
    let s = this.stmts.get(`raw:${sql}`)
    if (!s) {
      s = this.db.prepare(sql).raw()
      this.stmts.set(`raw:${sql}`, s)
    }
    return s
  }
}
