/**
 * @module The SQLite side of search (the `SearchIndex` of driver.ts): FTS5 over title, tags and body finds,
 * counts and first orders candidates (its bm25() with column weights), fts5vocab gives document frequencies,
 * FTS5's totals record the collection's size, and `search_vocab` serves vocabulary reads. Visibility and
 * filters are the SQL of sqlite-rows.ts, as `GET /knowledge` uses.
 */
import type Database from 'better-sqlite3'
import {ENTRY_COLUMNS, filterSql, type StatementCache} from './sqlite-rows.js'
import {entryFromRow, type Row} from './rows.js'
import type {EntryFilter, EntryRow, Viewer} from './store.js'
import type {CollectionStats} from '../search/bm25f.js'
import type {CandidateSource, CandidateText, IndexTerm, SearchIndex} from '../search/driver.js'
import type {VocabularyProbe} from '../search/vocabulary.js'

/** FTS5 bm25() column weights (title, tags, body) that order candidates before re-ranking (docs/search.md). */
const BM25_WEIGHTS = {title: 4, tags: 2, body: 1}
const DF_CACHE_MAX = 50_000

/** A term as an FTS5 string: always quoted, so no input can be read as an operator. */
function ftsString(text: string): string {
  return `"${text.replaceAll('"', '""')}"`
}

/** One query term in FTS5 syntax: a phrase of index terms, or any of its spellings. */
function ftsTerm(t: IndexTerm): string {
  if (t.phrase) return ftsString(t.terms.join(' '))
  return t.terms.length === 1 ? ftsString(t.terms[0]!) : `(${t.terms.map(ftsString).join(' OR ')})`
}

/** An FTS5 expression matching any of the terms in title, tags or body. */
function ftsMatch(terms: IndexTerm[]): string {
  return `{title tags body} : (${terms.map(ftsTerm).join(' OR ')})`
}

/** SQLite varints (big-endian, 7 bits a byte, the ninth byte whole), as FTS5 stores its totals. */
function readVarints(buf: Buffer): number[] {
  const out: number[] = []
  let i = 0
  while (i < buf.length) {
    let v = 0
    let n = 0
    for (;;) {
      const byte = buf[i++]!
      if (n === 8) {
        v = v * 256 + byte
        break
      }
      v = v * 128 + (byte & 0x7f)
      n++
      if (byte < 0x80 || i >= buf.length) break
    }
    out.push(v)
  }
  return out
}

export class SqliteSearchIndex implements SearchIndex {
  private readonly dfCache = new Map<string, {df: number; changes: number}>()

  constructor(private readonly statements: StatementCache) {}

  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql)
  }

  /**
   * Counting walks the term's whole doclist, so counts are cached and reused while the rows changed since
   * (`total_changes()`, an upper bound on how far the count can have moved) stay under 1% of it: a rare
   * term is recounted each time, a common one rarely.
   */
  private cached(key: string, count: () => number): number {
    const changes = this.stmt('SELECT total_changes()').pluck().get() as number
    const cached = this.dfCache.get(key)
    if (cached && changes - cached.changes <= cached.df / 100) return cached.df
    const df = count()
    if (this.dfCache.size >= DF_CACHE_MAX) this.dfCache.clear()
    this.dfCache.set(key, {df, changes})
    return df
  }

  /** Drops the cached counts: rows changed through another connection (an import), which `total_changes()` does not count. */
  forgetCounts(): void {
    this.dfCache.clear()
  }

  async documentFrequencies(terms: string[]): Promise<number[]> {
    const read = this.stmt('SELECT doc FROM entries_vocab WHERE term = ?').pluck()
    return terms.map((term) => this.cached(term, () => (read.get(term) as number | undefined) ?? 0))
  }

  async phraseFrequencies(phrases: string[][]): Promise<number[]> {
    const count = this.stmt('SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?').pluck()
    return phrases.map((terms) => {
      const match = ftsString(terms.join(' '))
      return this.cached(`\u0000${match}`, () => count.get(match) as number)
    })
  }

  /** From FTS5's own totals record (one row read). */
  async collectionStats(): Promise<CollectionStats> {
    const block = (this.stmt('SELECT block FROM entries_fts_data WHERE id = 1').pluck().get() as Buffer | undefined) ?? Buffer.alloc(0)
    const [docs = 0, title = 0, tags = 0, body = 0] = readVarints(block)
    const avg = (n: number): number => (docs > 0 ? n / docs : 0)
    return {docs, avgLength: {title: avg(title), tags: avg(tags), body: avg(body)}}
  }

  /** Per probe, one range of the vocabulary's primary key (by prefix) or of its index on reversed terms (by suffix). */
  async vocabulary(probes: VocabularyProbe[], limit: number): Promise<string[][]> {
    const byPrefix = this.stmt(
      'SELECT term FROM search_vocab WHERE head = ? AND len = ? AND term >= ? AND term < ? ORDER BY term LIMIT ?',
    ).pluck()
    const bySuffix = this.stmt(
      'SELECT term FROM search_vocab WHERE head = ? AND len = ? AND rev >= ? AND rev < ? ORDER BY rev LIMIT ?',
    ).pluck()
    return probes.map((probe) => {
      if ('prefix' in probe) return byPrefix.all(probe.head, probe.length, probe.prefix, `${probe.prefix}\u{10FFFF}`, limit) as string[]
      const rev = Array.from(probe.suffix).reverse().join('')
      return bySuffix.all(probe.head, probe.length, rev, `${rev}\u{10FFFF}`, limit) as string[]
    })
  }

  /**
   * When the caller may see every entry and narrows nothing, FTS5 alone answers; else the reads join `entries`.
   * Superseded entries are left out by default (docs/api.md, "Supersede"): that narrows too once one exists (an index read).
   */
  async candidates(viewer: Viewer, filter: EntryFilter): Promise<CandidateSource> {
    const {where, params} = filterSql(viewer, filter)
    const {includeSuperseded, ...narrowing} = filter
    const unfiltered = Object.values(narrowing).every((v) => v === undefined) && (includeSuperseded === true || !this.anySuperseded())
    const direct = unfiltered && this.seesEverything(viewer)
    const run = (sql: string, bound: Row): unknown[] =>
      this.stmt(sql)
        .pluck()
        .all({...(direct ? {} : params), ...bound})
    const matching = (rest: string): string =>
      direct
        ? `SELECT rowid AS seq FROM entries_fts WHERE entries_fts MATCH @match ${rest}`
        : `SELECT e.seq FROM entries_fts f JOIN entries e ON e.seq = f.rowid WHERE entries_fts MATCH @match AND ${where.join(' AND ')} ${rest}`
    const w = BM25_WEIGHTS
    return {
      count: async (terms) => {
        const sql = direct
          ? 'SELECT count(*) AS n FROM entries_fts WHERE entries_fts MATCH ?'
          : `SELECT count(*) AS n FROM entries_fts f JOIN entries e ON e.seq = f.rowid WHERE entries_fts MATCH @match AND ${where.join(' AND ')}`
        const match = ftsMatch(terms)
        return (direct ? (this.stmt(sql).get(match) as {n: number}) : (this.stmt(sql).get({...params, match}) as {n: number})).n
      },
      best: async (terms, depth) =>
        run(matching(`ORDER BY bm25(entries_fts, ${w.title}, ${w.tags}, ${w.body}) LIMIT @depth`), {
          match: ftsMatch(terms),
          depth,
        }) as number[],
      // FTS5 reads doclists backwards and stops: the newest matches cost no scan of the older ones.
      newest: async (terms, depth) => {
        const words = terms.map(ftsTerm).join(' OR ')
        const sql = matching(direct ? 'ORDER BY rowid DESC LIMIT @depth' : 'ORDER BY f.rowid DESC LIMIT @depth')
        return [
          ...(run(sql, {match: `{title} : (${words})`, depth}) as number[]),
          ...(run(sql, {match: ftsMatch(terms), depth}) as number[]),
        ]
      },
    }
  }

  async texts(keys: number[], bodyChars: number): Promise<CandidateText[]> {
    const rows = this.stmt(
      'SELECT seq, title, tags, substr(body, 1, ?) AS body, length(body) AS n FROM entries WHERE seq IN (SELECT value FROM json_each(?))',
    ).all(bodyChars, JSON.stringify(keys)) as Array<{seq: number; title: string; tags: string; body: string; n: number}>
    return rows.map((r) => ({key: r.seq, title: r.title, tags: JSON.parse(r.tags) as string[], body: r.body, bodyLength: r.n}))
  }

  async entries(keys: number[]): Promise<Map<number, EntryRow>> {
    const rows = this.stmt(
      `SELECT ${ENTRY_COLUMNS} FROM entries e JOIN principals p ON p.id = e.author_id
      WHERE e.seq IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(keys)) as Row[]
    return new Map(rows.map((r) => [r.seq as number, entryFromRow(r)]))
  }

  /**
   * Whether every entry is visible to the viewer: no one else's private entries and no project entries
   * outside the viewer's projects. Index seeks only (migration 3): one per project that has entries.
   */
  private anySuperseded(): boolean {
    return this.stmt('SELECT EXISTS (SELECT 1 FROM entries WHERE superseded_by IS NOT NULL)').pluck().get() === 1
  }

  private seesEverything(viewer: Viewer): boolean {
    const me = viewer.principalId
    const othersPrivate = this.stmt(
      `SELECT EXISTS (SELECT 1 FROM entries WHERE scope = 'private' AND author_id < @me)
      OR EXISTS (SELECT 1 FROM entries WHERE scope = 'private' AND author_id > @me)
      OR EXISTS (SELECT 1 FROM entries WHERE scope = 'project' AND project_id IS NULL)`,
    )
      .pluck()
      .get({me}) as number
    if (othersPrivate) return false
    const mine = new Set(this.stmt('SELECT project_id FROM memberships WHERE principal_id = ?').pluck().all(me) as string[])
    const nextProject = this.stmt(
      `SELECT project_id FROM entries WHERE scope = 'project' AND project_id > ? ORDER BY project_id LIMIT 1`,
    ).pluck()
    for (let after = ''; ;) {
      const project = nextProject.get(after) as string | undefined
      if (project === undefined) return true
      if (!mine.has(project)) return false
      after = project
    }
  }
}
