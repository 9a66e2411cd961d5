/**
 * @module The PostgreSQL driver's statements put together as text with `$n` values added along (the
 * `Params` builder), over the shared vocabulary of sql/entries.ts: its visibility rule and filters are
 * bound here into such a statement.
 */
import type {EntryFilter, Viewer} from './store.js'
import {renamePlaceholders, type Params as Named} from './sql/bind.js'
import {POSTGRES} from './sql/dialect.js'
import {filterSql as neutralFilterSql, VISIBLE_TO_ME} from './sql/entries.js'

export {numbered} from './sql/bind.js'
export {ENTRY_COLUMNS, ENTRY_FROM} from './sql/entries.js'

/** The values of a statement's `$n` placeholders, added as the SQL text is put together. */
export class Params {
  readonly values: unknown[] = []

  /** Adds a value and returns its placeholder. */
  add(value: unknown): string {
    this.values.push(value)
    return `$${this.values.length}`
  }

  /** Neutral conditions (sql/bind.ts) with their values added: each `@name` becomes the one placeholder of its value. */
  addNamed(conditions: string[], params: Named): string[] {
    const placeholders = new Map<string, string>()
    const of = (name: string): string => {
      let at = placeholders.get(name)
      if (at === undefined) {
        if (!(name in params)) throw new Error(`Missing named parameter "${name}"`)
        placeholders.set(name, (at = this.add(params[name])))
      }
      return at
    }
    return conditions.map((c) => renamePlaceholders(c, of))
  }
}

/** docs/api.md, "Visibility and permissions" over `entries e` for the principal whose placeholder is `me`. */
export function visibleTo(me: string): string {
  return VISIBLE_TO_ME.replaceAll('@me', me)
}

/** The visibility rule and the list/search filters (sql/entries.ts) as conditions over `entries e`, their values added to `p`. */
export function filterSql(viewer: Viewer, filter: EntryFilter, p: Params): string[] {
  const {where, params} = neutralFilterSql(POSTGRES, viewer, filter)
  return p.addNamed(where, params)
}
