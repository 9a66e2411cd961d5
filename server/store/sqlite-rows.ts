/**
 * @module What the SQLite driver's modules share: the visibility rule as SQL, a statement cache, and
 * rows of the `entries` table (joined with the author's name) as `EntryRow`s.
 */
import type Database from 'better-sqlite3'
import type {Resolution, ThoughtStep} from '../../src/shared/types.js'
import type {EntryRow} from './store.js'

/** docs/api.md, "Visibility and permissions" over `entries e` for the principal bound as `@me`: the one place this rule is written in SQL. */
export const VISIBLE_TO_ME = `(e.scope = 'global'
  OR (e.scope = 'private' AND e.author_id = @me)
  OR (e.scope = 'project' AND e.project_id IN (SELECT project_id FROM memberships WHERE principal_id = @me)))`

/** Prepares each SQL text once per connection (an import runs a dozen statements per line). */
export class StatementCache {
  private readonly stmts = new Map<string, Database.Statement>()

  constructor(private readonly db: Database.Database) {}

  get(sql: string): Database.Statement {
    let s = this.stmts.get(sql)
    if (!s) {
      s = this.db.prepare(sql)
      this.stmts.set(sql, s)
    }
    return s
  }
}

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
