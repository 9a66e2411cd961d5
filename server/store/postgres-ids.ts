/**
 * @module The PostgreSQL side of `Store.ids` (docs/api.md, "Short ids"): the statements of short-ids.ts with their
 * placeholders numbered, and the candidates' visibility by postgres-rows.ts's rule.
 */
import type {PostgresDb} from './postgres-db.js'
import {numbered, visibleTo} from './postgres-rows.js'
import {CANDIDATES_READ, idRanges, SHORT_ID_SQL, type IdMatches, type IdStore} from './short-ids.js'
import type {Viewer} from './store.js'

/**
 * How long a daemon answers with the length it read last. Other daemons on the database may lengthen it meanwhile;
 * a second is as stale as a printed short form gets (and a short form is checked when it is typed back).
 */
const LENGTH_TTL_MS = 1000

// From the few rows read, by primary key (as SQLite's, sqlite-ids.ts), not through the visibility rule's indexes.
const VISIBLE_AMONG = `SELECT e.id, e.title FROM unnest($1::bigint[]) AS j(seq) JOIN entries e ON e.seq = j.seq WHERE ${visibleTo('$2')}
  ORDER BY e.id LIMIT ${CANDIDATES_READ}`

export class PostgresIdStore implements IdStore {
  private known: {length: number; at: number} | null = null

  constructor(private readonly db: PostgresDb) {}

  async shortLength(): Promise<number> {
    const now = Date.now()
    if (this.known && now - this.known.at < LENGTH_TTL_MS) return this.known.length
    const [row] = await this.db.query<{length: number}>(SHORT_ID_SQL.length)
    this.known = {length: row?.length ?? 0, at: now}
    return this.known.length
  }

  async match(viewer: Viewer, hex: string, scan: number): Promise<IdMatches> {
    const r = idRanges(hex)
    const read = async (sql: string, [lo, hi]: [string, string]): Promise<string[]> =>
      (await this.db.query<{seq: string}>(numbered(sql), [lo, hi, scan + 1])).map((x) => String(x.seq))
    const [prefix, suffix] = await Promise.all([read(SHORT_ID_SQL.byPrefix, r.prefix), read(SHORT_ID_SQL.bySuffix, r.suffix)])
    const more = prefix.length > scan || suffix.length > scan
    const seqs = [...new Set([...prefix.slice(0, scan), ...suffix.slice(0, scan)])]
    if (seqs.length === 0) return {candidates: [], more}
    const candidates = await this.db.query<{id: string; title: string}>(VISIBLE_AMONG, [seqs, viewer.principalId])
    return {candidates, more}
  }
}
