/**
 * @module The SQLite side of `Store.ids` (docs/api.md, "Short ids"): the statements of short-ids.ts, and the
 * candidates' visibility by sqlite-rows.ts's rule.
 */
import {CANDIDATES_READ, idRanges, SHORT_ID_SQL, type IdMatches, type IdStore} from './short-ids.js'
import {VISIBLE_TO_ME, type StatementCache} from './sqlite-rows.js'
import type {Viewer} from './store.js'

// From the few rows read, by primary key: as `e.seq IN (…)` the planner walked every entry the caller may see through the
// scope indexes instead (50 ms at 100k; docs/performance.md, "Short ids"). CROSS JOIN keeps json_each outermost.
const VISIBLE_AMONG = `SELECT e.id, e.title FROM json_each(@seqs) j CROSS JOIN entries e ON e.seq = j.value WHERE ${VISIBLE_TO_ME}
  ORDER BY e.id LIMIT ${CANDIDATES_READ}`

export class SqliteIdStore implements IdStore {
  constructor(private readonly statements: StatementCache) {}

  // One daemon writes a SQLite store, so the row is read as it is: a few microseconds, never stale.
  async shortLength(): Promise<number> {
    return this.statements.get(SHORT_ID_SQL.length).pluck().get() as number
  }

  async match(viewer: Viewer, hex: string, scan: number): Promise<IdMatches> {
    const r = idRanges(hex)
    const read = (sql: string, [lo, hi]: [string, string]): number[] =>
      this.statements
        .get(sql)
        .pluck()
        .all(lo, hi, scan + 1) as number[]
    const prefix = read(SHORT_ID_SQL.byPrefix, r.prefix)
    const suffix = read(SHORT_ID_SQL.bySuffix, r.suffix)
    const more = prefix.length > scan || suffix.length > scan
    const seqs = [...new Set([...prefix.slice(0, scan), ...suffix.slice(0, scan)])]
    if (seqs.length === 0) return {candidates: [], more}
    const candidates = this.statements
      .get(VISIBLE_AMONG)
      .all({seqs: JSON.stringify(seqs), me: viewer.principalId}) as IdMatches['candidates']
    return {candidates, more}
  }
}
