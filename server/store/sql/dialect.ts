/**
 * @module What the two SQL dialects say differently, for the vocabulary both drivers share (sql/*.ts): each
 * fragment here is written once per dialect, everything else once.
 */

export interface Dialect {
  readonly name: 'sqlite' | 'postgres'
  /**
   * server/services/freshness.ts `freshnessReasons` as SQL over `entries e` at @now: an anchor changed or deleted
   * (@anchor_changed, @anchor_deleted), an open stale-making flag (`flagged_at` is set exactly then), or, where the
   * project asks (verify_after_days > 0, @verify_default without a project), the last verification or edit older
   * than that many days. Date arithmetic is the dialects' own.
   */
  readonly stale: string
  /** The column that keeps the order of comments written in the same millisecond. */
  readonly commentSeq: string
  /** `column` is one of the list bound as @name (see `list`). */
  inList(column: string, name: string, type: 'int8' | 'text'): string
  /** A list as `inList` binds it. */
  list(values: unknown[]): unknown
  /** The text of `key` in the JSON object stored (as text) in `column`. */
  jsonText(column: string, key: string): string
  /** After a SELECT of `entries e`: the row locked until the transaction ends, where the dialect has row locks (SQLite's write lock covers the file). */
  readonly lockEntry: string
  /** A boolean as the dialect stores it (SQLite has none: 1 or 0), and back. */
  bool(b: boolean): unknown
  fromBool(v: unknown): boolean
}

export const SQLITE: Dialect = {
  name: 'sqlite',
  stale: `(e.anchors LIKE @anchor_changed OR e.anchors LIKE @anchor_deleted OR e.flagged_at IS NOT NULL
  OR EXISTS (SELECT 1 FROM (SELECT coalesce((SELECT verify_after_days FROM projects WHERE id = e.project_id), @verify_default) AS d)
    WHERE d > 0 AND max(e.updated_at, coalesce(e.verified_at, '')) < strftime('%Y-%m-%dT%H:%M:%fZ', @now, '-' || d || ' days')))`,
  commentSeq: 'rowid',
  lockEntry: '',
  inList: (column, name) => `${column} IN (SELECT value FROM json_each(@${name}))`,
  list: (values) => JSON.stringify(values),
  jsonText: (column, key) => `json_extract(${column}, '$.${key}')`,
  bool: (b) => (b ? 1 : 0),
  fromBool: (v) => v === 1,
}

export const POSTGRES: Dialect = {
  name: 'postgres',
  stale: `(e.anchors LIKE @anchor_changed OR e.anchors LIKE @anchor_deleted OR e.flagged_at IS NOT NULL
  OR EXISTS (SELECT 1 FROM (SELECT coalesce((SELECT verify_after_days FROM projects WHERE id = e.project_id), @verify_default::int) AS d) v
    WHERE d > 0 AND GREATEST(e.updated_at, e.verified_at) < to_char((@now::timestamptz - make_interval(days => d)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))`,
  commentSeq: 'n',
  lockEntry: ' FOR UPDATE OF e',
  inList: (column, name, type) => `${column} = ANY(@${name}::${type}[])`,
  list: (values) => values,
  jsonText: (column, key) => `(${column}::json ->> '${key}')`,
  bool: (b) => b,
  fromBool: (v) => v === true,
}
