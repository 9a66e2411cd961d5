/**
 * @module The PostgreSQL side of search (the `SearchIndex` of driver.ts): a GIN index over each entry's
 * `tsvector` (written from the shared tokenizer, server/search/tsvector.ts) finds, counts and first orders
 * candidates with an OR-built `tsquery` and ts_rank over weighted fields; `search_terms` gives document
 * frequencies and serves the vocabulary reads of typo tolerance and completion (the same bounded ranges as
 * SQLite's `search_vocab`, so both drivers expand a query alike); `search_stats` holds the collection's size.
 * The shared engine then re-ranks with BM25F. Visibility and filters are the SQL of postgres-rows.ts.
 */
import type {PostgresDb, Queryable} from './postgres-db.js'
import {ENTRY_COLUMNS, ENTRY_FROM, filterSql, Params} from './postgres-rows.js'
import {entryFromRow} from './rows.js'
import type {EntryFilter, EntryRow, Viewer} from './store.js'
import type {CollectionStats} from '../search/bm25f.js'
import type {CandidateSource, CandidateText, SearchIndex} from '../search/driver.js'
import {anyTermQuery, indexable} from '../search/tsvector.js'
import type {VocabularyProbe} from '../search/vocabulary.js'

/**
 * ts_rank's weights for body (D), unused (C), tags (B) and title (A): the 1 : 2 : 4 of SQLite's first stage
 * (sqlite-search-index.ts BM25_WEIGHTS), scaled into ts_rank's 0–1.
 */
const RANK_WEIGHTS = '{0.1, 0, 0.2, 0.4}'
/** Phrase counts of at least this many are remembered a while: counting reads every entry holding the words. */
const PHRASE_CACHE_MIN = 100
const PHRASE_CACHE_MS = 10_000
const PHRASE_CACHE_MAX = 10_000

export class PostgresSearchIndex implements SearchIndex {
  /**
   * ts_rank weighs fields but knows no IDF, so its order is a weaker first stage than FTS5's bm25(): on
   * Cranfield, re-ranking its best 50 gives nDCG@10 0.385, its best 100 0.391, as SQLite's best 50 do.
   */
  readonly candidateFactor = 2
  private readonly phraseCounts = new Map<string, {df: number; at: number}>()

  constructor(private readonly db: Queryable & Pick<PostgresDb, 'tx'>) {}

  async documentFrequencies(terms: string[]): Promise<number[]> {
    if (terms.length === 0) return []
    const rows = await this.db.query<{n: number}>(
      `SELECT (SELECT coalesce(sum(t.df), 0) FROM search_terms t WHERE t.term = s.term)::int8 AS n
      FROM unnest($1::text[]) WITH ORDINALITY s(term, i) ORDER BY s.i`,
      [terms],
    )
    return rows.map((r) => r.n)
  }

  /**
   * Counted with the GIN index (and a position check per entry holding all the words). A large count is
   * remembered for a few seconds: several daemons share the database, so there is no cheap way to know how
   * much it has moved, and within seconds it moves by little. A phrase with a word PostgreSQL cannot index
   * (over 2047 bytes) matches nothing.
   */
  async phraseFrequencies(phrases: string[][]): Promise<number[]> {
    const now = Date.now()
    const out = phrases.map((terms) => {
      if (!terms.every(indexable)) return 0
      const cached = this.phraseCounts.get(terms.join(' '))
      return cached && now - cached.at < PHRASE_CACHE_MS ? cached.df : null
    })
    const todo = phrases.flatMap((terms, i) => (out[i] === null ? [i] : []))
    if (todo.length > 0) {
      const queries = todo.map((i) => anyTermQuery([{terms: phrases[i]!, phrase: true, df: 0, weight: 1}]))
      const rows = await this.db.query<{n: number}>(
        `SELECT (SELECT count(*) FROM entries e WHERE e.search @@ q.query) AS n
        FROM unnest($1::tsquery[]) WITH ORDINALITY q(query, i) ORDER BY q.i`,
        [queries],
      )
      todo.forEach((i, k) => {
        const df = rows[k]!.n
        out[i] = df
        if (df < PHRASE_CACHE_MIN) return
        if (this.phraseCounts.size >= PHRASE_CACHE_MAX) this.phraseCounts.clear()
        this.phraseCounts.set(phrases[i]!.join(' '), {df, at: now})
      })
    }
    return out as number[]
  }

  /** The 16 shards of `search_stats` summed. */
  async collectionStats(): Promise<CollectionStats> {
    const sum = (column: string): string => `coalesce(sum(${column}), 0)::float8 AS ${column}`
    const [row] = await this.db.query<{docs: number; title: number; tags: number; body: number}>(
      `SELECT ${sum('docs')}, ${sum('title')}, ${sum('tags')}, ${sum('body')} FROM search_stats`,
    )
    const docs = row?.docs ?? 0
    const avg = (n: number): number => (docs > 0 ? n / docs : 0)
    return {docs, avgLength: {title: avg(row?.title ?? 0), tags: avg(row?.tags ?? 0), body: avg(row?.body ?? 0)}}
  }

  /**
   * Per probe, one range of `search_terms` by prefix or by reversed suffix (a term counted in several shards
   * is one term), all probes in one statement. Only words: a code token's whole or other forms (terms with a
   * joiner) are no vocabulary, as SQLite's `search_vocab` keeps none (vocabulary.ts inVocabulary).
   */
  async vocabulary(probes: VocabularyProbe[], limit: number): Promise<string[][]> {
    if (probes.length === 0) return []
    const columns = {head: [] as string[], len: [] as number[], by: [] as string[], from: [] as string[]}
    for (const probe of probes) {
      const key = 'prefix' in probe ? probe.prefix : Array.from(probe.suffix).reverse().join('')
      columns.head.push(probe.head)
      columns.len.push(probe.length)
      columns.by.push('prefix' in probe ? 'term' : 'rev')
      columns.from.push(key)
    }
    const range = (column: string): string => `(SELECT DISTINCT s.${column} AS key, s.term FROM search_terms s
      WHERE s.head = p.head AND s.len = p.len AND s.${column} >= p.lo COLLATE "C" AND s.${column} < (p.lo || U&'\\+10FFFF') COLLATE "C" AND s.df > 0
        AND s.term !~ '[-_./:\\\\]'
      ORDER BY s.${column} LIMIT $5)`
    const rows = await this.db.query<{i: number; term: string}>(
      `SELECT p.i, t.term FROM unnest($1::text[], $2::int2[], $3::text[], $4::text[])
        WITH ORDINALITY p(head, len, by, lo, i)
      CROSS JOIN LATERAL (SELECT * FROM ${range('term')} f WHERE p.by = 'term' UNION ALL SELECT * FROM ${range('rev')} r WHERE p.by = 'rev') t
      ORDER BY p.i, t.key COLLATE "C"`,
      [columns.head, columns.len, columns.by, columns.from, limit],
    )
    const out: string[][] = probes.map(() => [])
    for (const r of rows) out[r.i - 1]!.push(r.term)
    return out
  }

  async candidates(viewer: Viewer, filter: EntryFilter): Promise<CandidateSource> {
    /** Visible entries matching `query`, `rest` (ORDER BY, LIMIT) put together with the same placeholders. */
    const select = async (
      what: string,
      query: string,
      rest: (p: Params, q: string) => string = () => '',
      db: Queryable = this.db,
    ): Promise<Array<Record<string, number>>> => {
      const p = new Params()
      const q = `${p.add(query)}::tsquery`
      const where = filterSql(viewer, filter, p)
      return db.query(`SELECT ${what} FROM entries e WHERE e.search @@ ${q} AND ${where.join(' AND ')} ${rest(p, q)}`, p.values)
    }
    return {
      // The planner prices `@@` on a row as cheap, so for a common word it scans the table and unpacks every
      // entry's tsvector (≈ 3 µs a row); the GIN bitmap answers without unpacking any (docs/search.md).
      count: async (terms) =>
        this.db.tx(async (q) => {
          await q.query('SET LOCAL enable_seqscan = off')
          return (await select('count(*) AS n', anyTermQuery(terms), undefined, q))[0]?.n ?? 0
        }),
      best: async (terms, depth) => {
        const rows = await select(
          'e.seq',
          anyTermQuery(terms),
          (p, q) => `ORDER BY ts_rank('${RANK_WEIGHTS}', e.search, ${q}) DESC, e.seq DESC LIMIT ${p.add(depth)}`,
        )
        return rows.map((r) => r.seq!)
      },
      // The seq index read backwards, stopping at `depth` matches.
      newest: async (terms, depth) => {
        const inTitle = await select('e.seq', anyTermQuery(terms, true), (p) => `ORDER BY e.seq DESC LIMIT ${p.add(depth)}`)
        const anywhere = await select('e.seq', anyTermQuery(terms), (p) => `ORDER BY e.seq DESC LIMIT ${p.add(depth)}`)
        return [...inTitle, ...anywhere].map((r) => r.seq!)
      },
    }
  }

  async texts(keys: number[], bodyChars: number): Promise<CandidateText[]> {
    const rows = await this.db.query<{seq: number; title: string; tags: string; body: string; n: number}>(
      'SELECT seq, title, tags, left(body, $2) AS body, char_length(body) AS n FROM entries WHERE seq = ANY($1::int8[])',
      [keys, bodyChars],
    )
    return rows.map((r) => ({key: r.seq, title: r.title, tags: JSON.parse(r.tags) as string[], body: r.body, bodyLength: Number(r.n)}))
  }

  async entries(keys: number[]): Promise<Map<number, EntryRow>> {
    const rows = await this.db.query(`SELECT ${ENTRY_COLUMNS} FROM ${ENTRY_FROM} WHERE e.seq = ANY($1::int8[])`, [keys])
    return new Map(rows.map((r) => [r.seq as number, entryFromRow(r)]))
  }
}
