/**
 * @module What the PostgreSQL driver's modules share: numbered query parameters, the visibility rule and the
 * list/search filters as SQL, and the columns of an entry with its author's name (read into records by rows.ts).
 */
import {VERIFY_AFTER_DAYS_DEFAULT} from '../../src/shared/contract.js'
import type {EntryFilter, Viewer} from './store.js'
import {ANCHOR_STALE_PATTERNS} from './trust.js'

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
  if (filter.includeSuperseded !== true) where.push('e.superseded_by IS NULL')
  if (filter.freshness !== undefined) {
    const stale = staleSql(p, filter.freshness.now)
    where.push(filter.freshness.state === 'stale' ? stale : `NOT ${stale}`)
  }
  return where
}

/**
 * server/services/freshness.ts `freshnessReasons` as SQL over `entries e` at `now` (SQLite's is sqlite-rows.ts
 * STALE_SQL): an anchor changed or deleted, an open stale-making flag (`flagged_at` is set exactly then), or, where
 * the project asks (verify_after_days > 0), the last verification or edit older than that many days.
 */
function staleSql(p: Params, now: string): string {
  return `(e.anchors LIKE ${p.add(ANCHOR_STALE_PATTERNS[0])} OR e.anchors LIKE ${p.add(ANCHOR_STALE_PATTERNS[1])} OR e.flagged_at IS NOT NULL
  OR EXISTS (SELECT 1 FROM (SELECT coalesce((SELECT verify_after_days FROM projects WHERE id = e.project_id), ${p.add(VERIFY_AFTER_DAYS_DEFAULT)}::int) AS d) v
    WHERE d > 0 AND GREATEST(e.updated_at, e.verified_at) < to_char((${p.add(now)}::timestamptz - make_interval(days => d)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))`
}

/** The columns `entryFromRow` reads, over `entries e JOIN principals p ON p.id = e.author_id`. */
export const ENTRY_COLUMNS = `e.seq, e.id, e.title, e.body, e.summary, e.summary_title, e.scope, e.project_id, e.tags, e.url, e.status,
  e.resolution, e.thought_chain, e.forked_from, e.author_id, p.name AS author_name, e.created_at, e.updated_at, e.version, e.comment_count,
  e.anchors, e.flags, e.flagged_at, e.verified_at, e.verified_by, e.verifications, e.corrections,
  e.superseded_by, e.retrieved, e.last_retrieved_at`

export const ENTRY_FROM = 'entries e JOIN principals p ON p.id = e.author_id'

/** The columns `commentFromRow` reads, over `comments c JOIN principals p ON p.id = c.author_id`, in the order comments are listed. */
export const COMMENT_COLUMNS = 'c.id, c.body, c.type, c.author_id, p.name AS author_name, c.created_at'
export const COMMENT_ORDER = 'c.created_at, c.n'

/** `?` → `$1`, `$2`, … in order, for the statements both drivers share; they hold no `?` inside a literal. */
export function numbered(sql: string): string {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}
