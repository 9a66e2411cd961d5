/**
 * @module What the SQLite driver's modules share: the shared vocabulary's filters in SQLite's dialect (sql/entries.ts;
 * its `@name` placeholders are better-sqlite3's own) and a statement cache.
 */
import type Database from 'better-sqlite3'
import {SQLITE} from './sql/dialect.js'
import {filterSql as neutralFilterSql} from './sql/entries.js'
import type {Params} from './sql/bind.js'
import type {EntryFilter, Viewer} from './store.js'

export {ENTRY_COLUMNS, VISIBLE_TO_ME} from './sql/entries.js'

/** The visibility rule of docs/api.md, "Visibility and permissions", and the list/search filters, as SQL over `entries e`. */
export function filterSql(viewer: Viewer, filter: EntryFilter): {where: string[]; params: Params} {
  return neutralFilterSql(SQLITE, viewer, filter)
}
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
