/**
 * @module The seam between the search engine and a store driver. Everything about *what* a search means
 * lives in `server/search/` and is shared by every driver: the tokenizer (`tokenizer.ts`, with `stem.ts` and
 * `porter.ts`) that turns text into the terms an index holds and a query into the terms to look up
 * (`query.ts`), typo and prefix expansion (`vocabulary.ts`), candidate policy and BM25F re-ranking
 * (`engine.ts`, `bm25f.ts`, `phrases.ts`), explaining hits (`explain.ts`). A driver stores, for each entry's
 * title, tags and body, the terms of `indexTerms()` in order (positions matter for phrases), keeps the
 * vocabulary of `vocabularyTerms()`, and implements only `SearchIndex` — the reads its query language does best:
 * - term statistics: how many entries hold a term or a phrase, and the collection's size and mean field
 *   lengths (BM25F's inputs), asked for many terms at once;
 * - vocabulary reads: terms by first character, length and prefix or (reversed) suffix, for typo
 *   tolerance and completion, each a bounded index range, many in one call;
 * - candidates for one caller: counting and fetching visible entries that match any term, in the
 *   driver's own first-stage order or newest first, with visibility and filters applied in its SQL;
 * - the texts of candidates (to re-rank and explain) and their entries (to return).
 * SQLite implements it over FTS5 (`server/store/sqlite-search-index.ts`), PostgreSQL over a GIN index of tsvectors written from
 * the same tokenizer (`server/store/postgres-search-index.ts`); both get the same parsing, expansion and ranking. Entries are named by the driver's
 * integer key (`seq`), stable while a search runs.
 */
import type {EntryFilter, EntryRow, Viewer} from '../store/store.js'
import type {CollectionStats} from './bm25f.js'
import type {VocabularyProbe} from './vocabulary.js'

/** A query term as the engine resolved it against the index. */
export interface IndexTerm {
  /** Index terms, exactly as `indexTerms()` produced them: any one of them (other spellings of one word), or all of them adjacent and in order. */
  terms: string[]
  phrase: boolean
  /** How many entries hold it. */
  df: number
  /** How much it counts (query.ts QUERY_WEIGHTS). */
  weight: number
}

/** A candidate's searchable text, for the re-ranker. */
export interface CandidateText {
  key: number
  title: string
  tags: string[]
  /** The body's first `bodyChars` characters (code points) at most: what the re-ranker and explain read. */
  body: string
  /** Characters (code points) of the whole body. */
  bodyLength: number
}

/** What one search may see: the driver binds the caller's visibility and filters into each read. */
export interface CandidateSource {
  /** Visible entries matching any of the terms. */
  count(terms: IndexTerm[]): Promise<number>
  /** The `depth` best visible matches of any term in the driver's first-stage order (title above tags above body). */
  best(terms: IndexTerm[], depth: number): Promise<number[]>
  /** The `depth` newest visible entries with a term in the title, then the `depth` newest with a term anywhere. */
  newest(terms: IndexTerm[], depth: number): Promise<number[]>
}

/**
 * The reads a search makes, batched: the engine asks for every term's statistics, every typo probe and every
 * completion length at once, so a networked driver answers each group in one round trip.
 */
export interface SearchIndex {
  /** For each index term, the entries whose text holds it; 0 when none does. In the order given. */
  documentFrequencies(terms: string[]): Promise<number[]>
  /** For each phrase, the entries holding its index terms adjacent and in order. */
  phraseFrequencies(phrases: string[][]): Promise<number[]>
  /** Entries in the index and mean field lengths. */
  collectionStats(): Promise<CollectionStats>
  /** For each probe, the vocabulary terms matching it, in vocabulary order (by term), at most `limit`. */
  vocabulary(probes: VocabularyProbe[], limit: number): Promise<string[][]>
  /**
   * How many more candidates the engine asks `best` for (default 1): a first-stage order weaker than FTS5's
   * bm25() hands the re-ranker a deeper pool (docs/search.md, "PostgreSQL").
   */
  readonly candidateFactor?: number
  /** The candidates the viewer may see under the filter. */
  candidates(viewer: Viewer, filter: EntryFilter): Promise<CandidateSource>
  /** The candidates' texts, each body cut to its first `bodyChars` characters (bounded work per search, docs/search.md). */
  texts(keys: number[], bodyChars: number): Promise<CandidateText[]>
  entries(keys: number[]): Promise<Map<number, EntryRow>>
}
