/**
 * @module PostgreSQL's own search structures (docs/search.md, "PostgreSQL"), one table, `search_postings`, with two
 * kinds of row per term, written in each write's transaction by one server-side function:
 * - the term's **top list** (`chunk` −1): the postings (entry, weighted frequency, entry length) of every entry holding
 *   the term, or of the TOP_MAX with the highest BM25 impact once more do. The first stage ranks candidates from these
 *   lists with FTS5's bm25() (server/search/first-stage.ts), reading no document.
 * - the term's **bitmaps** (`chunk` ≥ 0): one bit per entry for 65,536 entries a row, whose union counts a search's
 *   matches (`total`) when the caller may see every entry, without visiting a row.
 */
import {FIRST_STAGE_B, FIRST_STAGE_IDF_MIN, FIRST_STAGE_K1} from '../search/first-stage.js'
import type {Queryable} from './postgres-db.js'

/** Postings kept per term: every entry's while no more hold the term, else the best by impact. */
export const TOP_MAX = 1_000
/** Entries per bitmap row (the bits of `seq >> CHUNK_BITS`). */
const CHUNK_BITS = 16
/** Postings written per call of kb_postings_write: a large import's batch is sent in parts (bounded synchronous work). */
const WRITE_PART = 20_000

/** Bitmap changes past this many in one row are made on a character array (set_bit copies the whole row each time). */
const BITS_BULK = 16
/** The changes passed to kb_postings_write, as rows. */
const CHANGES = `unnest(p_terms, p_seqs, p_tfs, p_lens) c(term, seq, tf, len)`
/** The changes grouped by term. */
const GROUPED = `(SELECT c.term COLLATE "C" AS term, array_agg(c.seq) AS seqs, array_agg(c.tf) AS tfs FROM ${CHANGES} GROUP BY 1) g`
/** A term's list (row `p`) that has no bitmaps yet and will hold more than TOP_MAX with the changes (`g`). */
const OVERFLOWS = `p.chunk = -1 AND NOT p.bitmapped AND cardinality(p.seqs) + cardinality(g.seqs) > ${TOP_MAX}`

/**
 * Migration 16: the table and the functions that keep it. kb_postings_write takes postings added (tf > 0: the entry
 * holds the term with that weighted frequency, and has that length) or removed (tf 0) and
 * 1. makes or locks every touched term's top-list row, in term order, the same in every transaction: no deadlock
 *    (a term's bitmap rows are only ever written by the holder of its top-list row);
 * 2. sets or clears the bits of the terms that have bitmaps;
 * 3. gives a term whose list is about to overflow its bitmaps, from the list (complete until then) and the changes;
 * 4. merges the changes into the top lists, a full list only when an added posting beats its lowest impact (`floor`)
 *    or one of its entries changed;
 */
export const POSTINGS_MIGRATION = `
  CREATE TABLE search_postings (
    term text COLLATE "C" NOT NULL,
    chunk integer NOT NULL,
    bits bit varying,
    seqs bigint[],
    tfs integer[],
    lens integer[],
    floor double precision NOT NULL DEFAULT 0,
    bitmapped boolean NOT NULL DEFAULT false,
    PRIMARY KEY (term, chunk)
  );
  CREATE TABLE search_backfill (below bigint NOT NULL);
  INSERT INTO search_backfill SELECT max(seq) + 1 FROM entries HAVING count(*) > 0;
  CREATE FUNCTION kb_impact(tf integer, len integer, avgdl double precision) RETURNS double precision
    LANGUAGE sql IMMUTABLE AS $$ SELECT tf / (tf + ${FIRST_STAGE_K1} * (${1 - FIRST_STAGE_B} + ${FIRST_STAGE_B} * len / avgdl)) $$;
  CREATE FUNCTION kb_bits_apply(bits bit varying, offs integer[], ons boolean[]) RETURNS bit varying LANGUAGE plpgsql IMMUTABLE AS $$
  DECLARE
    a text[];
  BEGIN
    IF cardinality(offs) <= ${BITS_BULK} THEN
      FOR i IN 1 .. cardinality(offs) LOOP
        bits := set_bit(bits, offs[i], CASE WHEN ons[i] THEN 1 ELSE 0 END);
      END LOOP;
      RETURN bits;
    END IF;
    a := string_to_array(bits::text, NULL);
    FOR i IN 1 .. cardinality(offs) LOOP
      a[offs[i] + 1] := CASE WHEN ons[i] THEN '1' ELSE '0' END;
    END LOOP;
    RETURN array_to_string(a, '')::bit varying;
  END $$;
  CREATE FUNCTION kb_top_merge(o_seqs bigint[], o_tfs integer[], o_lens integer[], a_seqs bigint[], a_tfs integer[], a_lens integer[],
    avgdl double precision, OUT seqs bigint[], OUT tfs integer[], OUT lens integer[], OUT floor double precision)
    LANGUAGE plpgsql AS $$
  BEGIN
    SELECT coalesce(array_agg(s), '{}'), coalesce(array_agg(f), '{}'), coalesce(array_agg(l), '{}') INTO seqs, tfs, lens FROM (
      SELECT x.s, x.f, x.l FROM unnest(o_seqs, o_tfs, o_lens) x(s, f, l) WHERE x.s NOT IN (SELECT unnest(a_seqs))
      UNION ALL SELECT y.s, y.f, y.l FROM unnest(a_seqs, a_tfs, a_lens) y(s, f, l) WHERE y.f > 0) u;
    floor := 0;
    IF cardinality(seqs) > ${TOP_MAX} THEN
      -- One sort; the aggregates read the sorted rows in order.
      SELECT array_agg(s), array_agg(f), array_agg(l), min(i) INTO seqs, tfs, lens, floor FROM (
        SELECT z.s, z.f, z.l, z.f / (z.f + ${FIRST_STAGE_K1} * (${1 - FIRST_STAGE_B} + ${FIRST_STAGE_B} * z.l / avgdl)) AS i
        FROM unnest(seqs, tfs, lens) z(s, f, l) ORDER BY i DESC, z.s DESC LIMIT ${TOP_MAX}
      ) v;
    END IF;
  END $$;
  CREATE FUNCTION kb_postings_write(p_terms text[], p_seqs bigint[], p_tfs integer[], p_lens integer[]) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    avgdl double precision;
  BEGIN
    SELECT greatest((sum(title) + sum(tags) + sum(body))::float8 / greatest(sum(docs), 1), 1) INTO avgdl FROM search_stats;
    INSERT INTO search_postings AS p (term, chunk, seqs, tfs, lens)
      SELECT DISTINCT c.term COLLATE "C", -1, '{}'::bigint[], '{}'::integer[], '{}'::integer[] FROM ${CHANGES} ORDER BY 1
      ON CONFLICT (term, chunk) DO UPDATE SET floor = p.floor WHERE false;
    INSERT INTO search_postings (term, chunk, bits)
      SELECT DISTINCT t.term, (c.seq >> ${CHUNK_BITS})::integer, repeat('0', ${1 << CHUNK_BITS})::bit varying
      FROM ${CHANGES} JOIN search_postings t ON t.term = c.term COLLATE "C" AND t.chunk = -1 AND t.bitmapped
      ON CONFLICT (term, chunk) DO NOTHING;
    UPDATE search_postings p SET bits = kb_bits_apply(p.bits, g.offs, g.ons)
    FROM (SELECT t.term, (c.seq >> ${CHUNK_BITS})::integer AS chunk, array_agg((c.seq & ${(1 << CHUNK_BITS) - 1})::integer) AS offs,
        array_agg(c.tf > 0) AS ons
      FROM ${CHANGES} JOIN search_postings t ON t.term = c.term COLLATE "C" AND t.chunk = -1 AND t.bitmapped GROUP BY 1, 2) g
    WHERE p.term = g.term AND p.chunk = g.chunk;
    -- A list about to hold more than TOP_MAX entries is still complete: its term's bitmaps are made from it first.
    INSERT INTO search_postings (term, chunk, bits)
      SELECT x.term, (x.seq >> ${CHUNK_BITS})::integer, kb_bits_apply(repeat('0', ${1 << CHUNK_BITS})::bit varying,
        array_agg((x.seq & ${(1 << CHUNK_BITS) - 1})::integer), array_agg(true))
      FROM (SELECT p.term, s.seq FROM search_postings p JOIN ${GROUPED} ON g.term = p.term CROSS JOIN LATERAL unnest(p.seqs) s(seq)
          WHERE ${OVERFLOWS} AND s.seq NOT IN (SELECT unnest(g.seqs))
        UNION ALL
        SELECT p.term, a.seq FROM search_postings p JOIN ${GROUPED} ON g.term = p.term CROSS JOIN LATERAL unnest(g.seqs, g.tfs) a(seq, tf)
          WHERE ${OVERFLOWS} AND a.tf > 0) x
      GROUP BY 1, 2
      ON CONFLICT (term, chunk) DO NOTHING;
    UPDATE search_postings p SET bitmapped = true FROM ${GROUPED} WHERE g.term = p.term AND ${OVERFLOWS};
    -- A list with room that only gains entries is appended to (the second statement); any other change is merged.
    UPDATE search_postings p SET (seqs, tfs, lens, floor) =
      (SELECT m.seqs, m.tfs, m.lens, m.floor FROM kb_top_merge(p.seqs, p.tfs, p.lens, g.seqs, g.tfs, g.lens, avgdl) m)
    FROM (SELECT c.term COLLATE "C" AS term, array_agg(c.seq) AS seqs, array_agg(c.tf) AS tfs, array_agg(c.len) AS lens, bool_and(c.tf > 0) AS adds
      FROM ${CHANGES} GROUP BY 1) g
    WHERE p.term = g.term AND p.chunk = -1
      AND NOT (g.adds AND p.floor = 0 AND cardinality(p.seqs) + cardinality(g.seqs) <= ${TOP_MAX} AND NOT p.seqs && g.seqs)
      AND (p.floor = 0 OR p.seqs && g.seqs OR EXISTS (SELECT 1 FROM unnest(g.tfs, g.lens) a(tf, len) WHERE a.tf > 0 AND kb_impact(a.tf, a.len, avgdl) > p.floor));
    UPDATE search_postings p SET seqs = p.seqs || g.seqs, tfs = p.tfs || g.tfs, lens = p.lens || g.lens
    FROM (SELECT c.term COLLATE "C" AS term, array_agg(c.seq) AS seqs, array_agg(c.tf) AS tfs, array_agg(c.len) AS lens, bool_and(c.tf > 0) AS adds
      FROM ${CHANGES} GROUP BY 1) g
    WHERE p.term = g.term AND p.chunk = -1 AND g.adds AND p.floor = 0
      AND cardinality(p.seqs) + cardinality(g.seqs) <= ${TOP_MAX} AND NOT p.seqs && g.seqs;
  END $$;
`

/** A term's weighted frequency in an entry's stored vector: each position weighs as its field (A title, B tags, D body). */
const TF_FROM_VECTOR = `(SELECT sum(CASE w WHEN 'A' THEN 4 WHEN 'B' THEN 2 ELSE 1 END) FROM unnest(u.weights) w)::integer`

/** One posting change: `tf` 0 removes the entry from the term's postings. */
export interface PostingChange {
  term: string
  seq: number
  tf: number
  len: number
}

/** Applies the changes, in parts of WRITE_PART postings cut between terms, so every transaction locks rows in one order. */
export async function writePostings(q: Queryable, changes: PostingChange[]): Promise<void> {
  const sorted = [...changes].sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : a.seq - b.seq))
  for (let at = 0; at < sorted.length;) {
    let end = Math.min(sorted.length, at + WRITE_PART)
    while (end < sorted.length && sorted[end]!.term === sorted[end - 1]!.term) end++
    const part = sorted.slice(at, end)
    await q.run('SELECT kb_postings_write($1::text[], $2::int8[], $3::int4[], $4::int4[])', [
      part.map((c) => c.term),
      part.map((c) => c.seq),
      part.map((c) => c.tf),
      part.map((c) => c.len),
    ])
    at = end
  }
}

/** Entries given their postings per transaction by backfillPostings. */
const BACKFILL_BATCH = 2_000

/**
 * Gives the entries written before migration 16 their postings from their stored vectors, newest first,
 * BACKFILL_BATCH per transaction; returns how many. The batch's rows are locked first, so a write to one of them
 * waits and then replaces what was written here. Daemons starting together take turns on the cursor row.
 */
export async function backfillPostings(db: {tx<T>(work: (q: Queryable) => Promise<T>): Promise<T>}): Promise<number> {
  let total = 0
  for (;;) {
    const done = await db.tx(async (q) => {
      const [cursor] = await q.query<{below: number}>('SELECT below FROM search_backfill FOR UPDATE')
      const below = Number(cursor?.below ?? 0)
      if (below <= 1) {
        await q.run('DELETE FROM search_backfill')
        return true
      }
      const from = Math.max(1, below - BACKFILL_BATCH)
      const range = [from, below]
      total += (await q.query('SELECT seq FROM entries WHERE seq >= $1 AND seq < $2 FOR UPDATE', range)).length
      await q.run(
        `SELECT kb_postings_write(array_agg(u.lexeme), array_agg(e.seq), array_agg(${TF_FROM_VECTOR}), array_agg(e.title_len + e.tags_len + e.body_len))
        FROM entries e CROSS JOIN LATERAL unnest(e.search) u WHERE e.seq >= $1 AND e.seq < $2 HAVING count(*) > 0`,
        range,
      )
      await q.run('UPDATE search_backfill SET below = $1', [from])
      return false
    })
    if (done) return total
  }
}

/** A first-stage term: one spelling of a word, or a phrase. */
export interface StageTerm {
  words: string[]
  /** The tsquery of a phrase's entries (its words adjacent, in order); null for a word. */
  phrase: string | null
  df: number
}

/**
 * Scores the entries in the terms' top lists (and, for a phrase, the entries the GIN index finds holding it, as if once) with
 * FTS5's bm25(), best first, with how many were scored (`n`): `$1` words (a phrase's joined by spaces), `$2` phrase
 * tsqueries, `$3` document frequencies.
 */
export const SCORE_SQL = `WITH stats AS (
    SELECT greatest(sum(docs), 1)::float8 AS n, greatest((sum(title) + sum(tags) + sum(body))::float8 / greatest(sum(docs), 1), 1) AS avgdl
    FROM search_stats),
  q AS (
    SELECT t.i, string_to_array(t.words, ' ') AS words, t.query::tsquery AS query,
      greatest(ln((s.n - t.df + 0.5) / (t.df + 0.5)), ${FIRST_STAGE_IDF_MIN}) AS idf
    FROM unnest($1::text[], $2::text[], $3::float8[]) WITH ORDINALITY t(words, query, df, i) CROSS JOIN stats s),
  hits AS (
    SELECT x.seq, q.i, x.tf::float8 AS tf, x.len FROM q JOIN search_postings p ON p.term = q.words[1] COLLATE "C" AND p.chunk = -1
      CROSS JOIN LATERAL unnest(p.seqs, p.tfs, p.lens) x(seq, tf, len) WHERE q.query IS NULL
    UNION ALL
    SELECT e.seq, q.i, 1::float8, e.title_len + e.tags_len + e.body_len
    FROM q JOIN entries e ON e.search @@ q.query WHERE q.query IS NOT NULL),
  scored AS (
    SELECT h.seq, sum(q.idf * h.tf * ${FIRST_STAGE_K1 + 1} / (h.tf + ${FIRST_STAGE_K1} * (${1 - FIRST_STAGE_B} + ${FIRST_STAGE_B} * h.len / s.avgdl))) AS score
    FROM hits h JOIN q ON q.i = h.i CROSS JOIN stats s GROUP BY h.seq)
  SELECT seq, score, count(*) OVER () AS n FROM scored ORDER BY score DESC, seq DESC`

/** The parameters of SCORE_SQL for these terms. */
export function scoreParams(terms: StageTerm[]): [string[], Array<string | null>, number[]] {
  return [terms.map((t) => t.words.join(' ')), terms.map((t) => t.phrase), terms.map((t) => t.df)]
}

/**
 * Entries holding any of the words or phrases (`$1` words, `$2` phrase tsqueries): the union of the bitmaps of the
 * words that have them, with the entries of the other words' (complete) top lists and of the phrases (from the GIN
 * index) that are outside it. Every entry counts: for a caller who may see them all.
 */
export const COUNT_SQL = `WITH t AS (SELECT term, seqs, bitmapped FROM search_postings WHERE term = ANY($1::text[]) AND chunk = -1),
  b AS (SELECT p.chunk, bit_or(p.bits) AS bits FROM search_postings p JOIN t ON t.bitmapped AND p.term = t.term AND p.chunk >= 0 GROUP BY p.chunk),
  s AS (SELECT x.seq FROM t CROSS JOIN LATERAL unnest(t.seqs) x(seq) WHERE NOT t.bitmapped
    UNION SELECT e.seq FROM unnest($2::tsquery[]) q(query) JOIN entries e ON e.search @@ q.query)
  SELECT (SELECT coalesce(sum(bit_count(bits)), 0) FROM b)
    + (SELECT count(*) FROM s LEFT JOIN b ON b.chunk = (s.seq >> ${CHUNK_BITS})::integer
       WHERE b.bits IS NULL OR get_bit(b.bits, (s.seq & ${(1 << CHUNK_BITS) - 1})::integer) = 0) AS n`
