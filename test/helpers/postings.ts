/**
 * @module PostgreSQL's search postings (server/store/postgres-postings.ts) checked against the entries' stored vectors,
 * and the statements that take a database back to before migration 16.
 */

/** Undoes migration 16. */
export const UNDO_POSTINGS = [
  'DROP FUNCTION kb_postings_write',
  'DROP FUNCTION kb_top_merge',
  'DROP FUNCTION kb_bits_apply',
  'DROP FUNCTION kb_impact',
  'DROP TABLE search_backfill',
  'DROP TABLE search_postings',
]

/** Every (term, entry) the vectors hold: the weighted frequency and the entry's length a posting must carry. */
const EXPECTED = `SELECT u.lexeme AS term, e.seq,
    (SELECT sum(CASE w WHEN 'A' THEN 4 WHEN 'B' THEN 2 ELSE 1 END) FROM unnest(u.weights) w)::int AS tf,
    e.title_len + e.tags_len + e.body_len AS len
  FROM entries e CROSS JOIN LATERAL unnest(e.search) u`

/**
 * Terms whose postings differ from what the vectors say, each with what is wrong: a top list that is not exactly the
 * term's entries (every list is complete below TOP_MAX entries, as in these tests), or a bitmap (of a term that has
 * them) that does not hold exactly its entries.
 */
export async function postingsMismatches(query: (text: string) => Promise<Array<Record<string, unknown>>>): Promise<string[]> {
  const lists = await query(`WITH v AS (${EXPECTED}),
    expected AS (SELECT term, string_agg(seq || ':' || tf || ':' || len, ' ' ORDER BY seq) AS p FROM v GROUP BY term),
    actual AS (SELECT p.term, string_agg(x.s || ':' || x.f || ':' || x.l, ' ' ORDER BY x.s) AS p
      FROM search_postings p CROSS JOIN LATERAL unnest(p.seqs, p.tfs, p.lens) x(s, f, l) WHERE p.chunk = -1 GROUP BY p.term)
    SELECT coalesce(e.term, a.term) AS term, e.p AS expected, a.p AS actual FROM expected e FULL JOIN actual a ON a.term = e.term COLLATE "C"
    WHERE e.p IS DISTINCT FROM a.p ORDER BY 1`)
  const bits = await query(`WITH v AS (${EXPECTED}),
    set AS (SELECT p.term, (p.chunk::bigint << 16) + g AS seq FROM search_postings p CROSS JOIN LATERAL generate_series(0, length(p.bits) - 1) g
      WHERE p.chunk >= 0 AND get_bit(p.bits, g) = 1)
    SELECT t.term FROM search_postings t WHERE t.chunk = -1 AND t.bitmapped AND (
      EXISTS (SELECT seq FROM v WHERE v.term = t.term EXCEPT SELECT seq FROM set WHERE set.term = t.term)
      OR EXISTS (SELECT seq FROM set WHERE set.term = t.term EXCEPT SELECT seq FROM v WHERE v.term = t.term))`)
  return [
    ...lists.map((r) => `${String(r.term)}: list ${String(r.actual)} ≠ ${String(r.expected)}`),
    ...bits.map((r) => `${String(r.term)}: bitmap`),
  ]
}
