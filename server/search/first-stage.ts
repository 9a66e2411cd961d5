/**
 * @module The first stage's order, one definition for both drivers: FTS5's `bm25()` with column weights, which
 * SQLite computes inside FTS5 and PostgreSQL from its postings table (docs/search.md, "PostgreSQL"). Only the
 * order of the candidates handed to the re-ranker (bm25f.ts) depends on it.
 */

/** Column weights of the first stage: a title match counts as four body matches, a tag match as two. */
export const FIRST_STAGE_WEIGHTS = {title: 4, tags: 2, body: 1} as const

/** FTS5's bm25() constants (sqlite.org/fts5.html, "The bm25() function"). */
export const FIRST_STAGE_K1 = 1.2
export const FIRST_STAGE_B = 0.75
/** FTS5's floor for the IDF of a term in more than half the entries. */
export const FIRST_STAGE_IDF_MIN = 1e-6
