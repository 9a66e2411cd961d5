/**
 * @module The neutral form of the SQL both store drivers share (docs/architecture.md, "The SQL vocabulary"):
 * `@name` placeholders, bound by name from one record of values. It is better-sqlite3's own named form, so the
 * SQLite driver runs a text as it is; `bindPostgres` turns it into PostgreSQL's `$1 … $n`.
 */

/** The values of a statement in the neutral form, by placeholder name. */
export type Params = Record<string, unknown>

const PLACEHOLDER = /@([A-Za-z_][A-Za-z0-9_]*)/g

/** The text with each `@name` placeholder replaced by what `to` makes of its name. */
export function renamePlaceholders(sql: string, to: (name: string) => string): string {
  return sql.replace(PLACEHOLDER, (_, name: string) => to(name))
}

/** `?` → `$1`, `$2`, … in order, for the shared statements written with positional `?` (history-store.ts); they hold no `?` inside a literal. */
export function numbered(sql: string): string {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

/** A text turned into numbered placeholders, and the name each number stands for (a name used twice keeps its number). */
interface Numbered {
  text: string
  names: string[]
}

/** Statement texts are few (they are built from the vocabulary's fragments), so each is numbered once. */
const numberedTexts = new Map<string, Numbered>()
const NUMBERED_MAX = 2_000

function numberedOf(sql: string): Numbered {
  let n = numberedTexts.get(sql)
  if (n) return n
  const names: string[] = []
  const text = renamePlaceholders(sql, (name) => {
    let i = names.indexOf(name)
    if (i < 0) i = names.push(name) - 1
    return `$${i + 1}`
  })
  n = {text, names}
  if (numberedTexts.size >= NUMBERED_MAX) numberedTexts.clear()
  numberedTexts.set(sql, n)
  return n
}

/** A neutral statement's PostgreSQL text (what bindPostgres sends), for statements prepared by name. */
export function postgresText(sql: string): string {
  return numberedOf(sql).text
}

/**
 * A neutral statement as PostgreSQL's text and values, to spread into `query`/`run`. A placeholder without a
 * value is a mistake of ours, thrown as better-sqlite3 throws it on the other driver.
 */
export function bindPostgres(sql: string, params: Params = {}): [string, unknown[]] {
  const {text, names} = numberedOf(sql)
  const values = names.map((name) => {
    if (!(name in params)) throw new Error(`Missing named parameter "${name}"`)
    return params[name]
  })
  return [text, values]
}
