/**
 * @module The seam between the search engine and a store driver. Everything about *what* a search means
 * lives in `server/search/` and is shared by every driver: query parsing (`query.ts`), the index's text
 * form (`text.ts`, `porter.ts`), typo and prefix expansion (`vocabulary.ts`), candidate policy and BM25F
 * re-ranking (`engine.ts`, `bm25f.ts`, `phrases.ts`), explaining hits (`explain.ts`). A driver implements only `SearchIndex` — the reads its query
 * language does best:
 * - term statistics: how many entries hold a term or a phrase, and the collection's size and mean field
 *   lengths (BM25F's inputs);
 * - vocabulary reads: terms by first character, length and prefix or (reversed) suffix, for typo
 *   tolerance and completion, each a bounded index range;
 * - candidates for one caller: counting and fetching visible entries that match any term, in the
 *   driver's own first-stage order or newest first, with visibility and filters applied in its SQL;
 * - the texts of candidates (to re-rank and explain) and their entries (to return).
 * SQLite implements it over FTS5 (`sqlite-index.ts`); a PostgreSQL driver implements the same reads over
 * its own index and gets the same parsing, expansion and ranking. Entries are named by the driver's
 * integer key (`seq`), stable while a search runs.
 */
import type {EntryFilter, EntryRow, Viewer} from '../store/store.js'
import type {CollectionStats, RankTerm} from './bm25f.js'
import type {VocabularyProbe} from './vocabulary.js'

/** A query term as the engine resolved it: its words and statistics. */
export interface IndexTerm extends RankTerm {
  /** The folded, unstemmed word, or a phrase's words in order (a driver matches the index form of the same text). */
  words: string[]
}

/** A candidate's searchable text, for the re-ranker. */
export interface CandidateText {
  key: number
  title: string
  tags: string[]
  body: string
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

export interface SearchIndex {
  /** Entries whose text holds the index term (a stem); 0 when none does. */
  documentFrequency(stem: string): Promise<number>
  /** Entries holding the words adjacent and in order. */
  phraseFrequency(words: string[]): Promise<number>
  /** Entries in the index and mean field lengths. */
  collectionStats(): Promise<CollectionStats>
  /** Vocabulary terms matching the probe, in vocabulary order (by term), at most `limit`. */
  vocabulary(probe: VocabularyProbe, limit: number): Promise<string[]>
  /** The candidates the viewer may see under the filter. */
  candidates(viewer: Viewer, filter: EntryFilter): Promise<CandidateSource>
  texts(keys: number[]): Promise<CandidateText[]>
  entries(keys: number[]): Promise<Map<number, EntryRow>>
}
