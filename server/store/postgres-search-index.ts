/**
 * @module The PostgreSQL side of search (the `SearchIndex` of driver.ts). Each entry's `tsvector` (written from the
 * shared tokenizer, server/search/tsvector.ts) has a GIN index that finds phrases, filtered counts and the newest
 * matches; search's own postings (postgres-postings.ts) rank candidates with FTS5's bm25() from per-term top lists and
 * count matches from per-term bitmaps, reading no document; `search_terms` gives document frequencies and serves the
 * vocabulary reads of typo tolerance and completion (the same bounded ranges as SQLite's `search_vocab`, so both
 * drivers expand a query alike); `search_stats` holds the collection's size. The shared engine then re-ranks with
 * BM25F. Visibility and filters are the SQL of postgres-rows.ts.
 */
import type {PostgresDb, Queryable} from './postgres-db.js'
import {ENTRY_COLUMNS, ENTRY_FROM, filterSql, Params} from './postgres-rows.js'
import {COUNT_SQL, SCORE_SQL, scoreParams, type StageTerm} from './postgres-postings.js'
import {entryFromRow} from './rows.js'
import type {EntryFilter, EntryRow, Viewer} from './store.js'
import type {CollectionStats} from '../search/bm25f.js'
import type {CandidateSource, CandidateText, IndexTerm, SearchIndex} from '../search/driver.js'
import {anyTermQuery, indexable} from '../search/tsvector.js'
import type {VocabularyProbe} from '../search/vocabulary.js'

/** Scored entries joined to their rows per first-stage read, as a multiple of the depth asked for. */
const TOP_FACTOR = 2
/** Phrase counts of at least this many are remembered a while: counting reads every entry holding the words. */
const PHRASE_CACHE_MIN = 100
const PHRASE_CACHE_MS = 10_000
const PHRASE_CACHE_MAX = 10_000

/** The engine's terms as the postings know them: each spelling of a word on its own (as FTS5 reads an OR), phrases whole. */
function firstStageTerms(terms: IndexTerm[]): StageTerm[] {
  return terms.flatMap((t): StageTerm[] => {
    if (t.phrase) return t.terms.every(indexable) ? [{words: t.terms, phrase: anyTermQuery([t]), df: t.df}] : []
    return t.terms.filter(indexable).map((w) => ({words: [w], phrase: null, df: t.df}))
  })
}

/** Visible entries matching `query` (a tsquery literal), `rest` (ORDER BY, LIMIT) put together with the same placeholders. */
type Select = (
  what: string,
  query: string,
  rest?: (p: Params, q: string) => string,
  db?: Queryable,
) => Promise<Array<Record<string, number>>>

/** Whether the filter narrows the entries beyond visibility (leaving out superseded entries aside). */
function narrows(filter: EntryFilter): boolean {
  const {includeSuperseded: _, ...narrowing} = filter
  return Object.values(narrowing).some((v) => v !== undefined)
}

/**
 * Whether principal $3 may see every entry, superseded ones too unless $4 (include them) holds: no one else's private
 * entry, no project entry outside its projects (one index seek per project that has entries), none superseded.
 */
const SEES_EVERYTHING_SQL = `NOT EXISTS (SELECT 1 FROM entries WHERE scope = 'private' AND author_id <> $3)
  AND NOT EXISTS (SELECT 1 FROM entries WHERE scope = 'project' AND project_id IS NULL)
  AND NOT EXISTS (
    WITH RECURSIVE p(id) AS (
      (SELECT project_id FROM entries WHERE scope = 'project' AND project_id IS NOT NULL ORDER BY project_id LIMIT 1)
      UNION ALL
      SELECT (SELECT project_id FROM entries WHERE scope = 'project' AND project_id > p.id ORDER BY project_id LIMIT 1) FROM p WHERE p.id IS NOT NULL)
    SELECT 1 FROM p WHERE p.id IS NOT NULL AND p.id NOT IN (SELECT project_id FROM memberships WHERE principal_id = $3))
  AND ($4::boolean OR NOT EXISTS (SELECT 1 FROM entries WHERE superseded_by IS NOT NULL))`

export class PostgresSearchIndex implements SearchIndex {
  /**
   * Twice FTS5's depth, as when ts_rank (no IDF) ordered the first stage (docs/search.md, "PostgreSQL"): kept, so
   * that a full top list's missing postings cost no candidate the re-ranker would have kept.
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
    const select: Select = async (what, query, rest = () => '', db = this.db) => {
      const p = new Params()
      const q = `${p.add(query)}::tsquery`
      const where = filterSql(viewer, filter, p)
      return db.query(`SELECT ${what} FROM entries e WHERE e.search @@ ${q} AND ${where.join(' AND ')} ${rest(p, q)}`, p.values)
    }
    return {
      // The planner prices `@@` on a row as cheap, so for a common word it scans the table and unpacks every
      // entry's tsvector (≈ 3 µs a row); the GIN bitmap answers without unpacking any (docs/search.md).
      // From the bitmaps when the caller may see every entry and narrows nothing; else from the GIN index, whose rows
      // are visited for visibility and filters.
      count: async (terms) => {
        if (narrows(filter)) return this.visibleCount(select, terms)
        const words = terms.flatMap((t) => (t.phrase ? [] : t.terms.filter(indexable)))
        const phrases = terms.flatMap((t) => (t.phrase && t.terms.every(indexable) ? [anyTermQuery([t])] : []))
        const [row] = await this.db.query<{everything: boolean; n: number | null}>(
          `WITH v AS (SELECT ${SEES_EVERYTHING_SQL} AS everything)
          SELECT v.everything, CASE WHEN v.everything THEN (${COUNT_SQL}) END AS n FROM v`,
          [words, phrases, viewer.principalId, filter.includeSuperseded === true],
        )
        return row?.everything ? Number(row.n) : this.visibleCount(select, terms)
      },
      // Scored from the postings (postgres-postings.ts), the best few joined to their rows for visibility and filters;
      // when those leave too few, every scored entry is (the same answer, found later).
      best: async (terms, depth) => {
        const stage = firstStageTerms(terms)
        if (stage.length === 0) return []
        const pick = async (top: number | null): Promise<{seqs: number[]; scored: number}> => {
          const p = new Params()
          scoreParams(stage).forEach((v) => p.add(v))
          const limit = top === null ? 'ALL' : p.add(top)
          const where = filterSql(viewer, filter, p)
          const rows = await this.db.query<{seq: number; n: number}>(
            `WITH top AS (${SCORE_SQL} LIMIT ${limit})
            SELECT t.seq, t.n FROM top t JOIN entries e ON e.seq = t.seq WHERE ${where.join(' AND ')}
            ORDER BY t.score DESC, t.seq DESC LIMIT ${p.add(depth)}`,
            p.values,
          )
          return {seqs: rows.map((r) => Number(r.seq)), scored: Number(rows[0]?.n ?? 0)}
        }
        const top = TOP_FACTOR * depth
        const first = await pick(top)
        if (first.seqs.length >= depth || (first.seqs.length > 0 && first.scored <= top)) return first.seqs
        return (await pick(null)).seqs
      },
      // The seq index read backwards, stopping at `depth` matches.
      newest: async (terms, depth) => {
        const inTitle = await select('e.seq', anyTermQuery(terms, true), (p) => `ORDER BY e.seq DESC LIMIT ${p.add(depth)}`)
        const anywhere = await select('e.seq', anyTermQuery(terms), (p) => `ORDER BY e.seq DESC LIMIT ${p.add(depth)}`)
        return [...inTitle, ...anywhere].map((r) => r.seq!)
      },
    }
  }

  /** Visible entries matching any term, counted from the GIN index's bitmap (see `candidates`). */
  private async visibleCount(select: Select, terms: IndexTerm[]): Promise<number> {
    return this.db.tx(async (q) => {
      await q.query('SET LOCAL enable_seqscan = off')
      return Number((await select('count(*) AS n', anyTermQuery(terms), undefined, q))[0]?.n ?? 0)
    })
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
