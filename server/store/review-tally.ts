/**
 * @module The review queue's counts kept by the writes (docs/api.md, "Review queue"; docs/performance.md, "Review
 * queue"), for both drivers: the `review_tally` table, the triggers on `entries` that keep it in the writing
 * transaction, and the one statement that reads a caller's counts from it.
 *
 * Each entry adds 1 to a row per kind it is in, keyed by the bucket of visibility it is in — `global`; `private` and
 * its author; `project` and its project — so a caller's count is a sum over the buckets they may see
 * (history-store.ts `visibleBranches` over the tally's own scope, project_id and author_id columns). The kinds that
 * do not age (flagged, unverified, superseded, stale by an anchor or a flag) have one row per bucket. The two that
 * age are per-day histograms: stale by age by the day of the later of the last edit and verification (and the
 * project whose `verify_after_days` applies), never retrieved by the day of the later of creation and the last
 * retrieval. A count sums the days before the cutoff's day and counts the entries of the cutoff's day itself through
 * an index on the same expression: a few rows, not a pass over the entries.
 */
import {NO_FLAGS, ANCHOR_STALE_PATTERNS} from './trust.js'

/** What differs between the drivers' SQL. */
export interface TallyDialect {
  /** The later of two timestamps, the second possibly NULL (SQLite's max() would return NULL). */
  later(a: string, b: string): string
  /**
   * The counter shard a write adds to. PostgreSQL: the writing connection's own (its backend's pid), so two
   * transactions never wait on one counter row, and so can never deadlock over the tally (a bulk load's concurrent
   * transactions did, with shards by entry); a count sums every shard. SQLite has one writer.
   */
  shard(alias: string): string
  /**
   * Holds SQLite's planner to the index named: left to itself it reads every visible entry through the scope indexes
   * (the visibility rule's OR) and tests each against the day's range, where the range read alone is a few rows.
   */
  indexedBy(index: string): string
}

export const SQLITE_TALLY: TallyDialect = {
  later: (a, b) => `max(${a}, coalesce(${b}, ''))`,
  shard: () => '0',
  indexedBy: (index) => `INDEXED BY ${index}`,
}

export const POSTGRES_TALLY: TallyDialect = {
  later: (a, b) => `GREATEST(${a}, ${b})`,
  shard: () => 'pg_backend_pid()',
  indexedBy: () => '',
}

/** The key columns of a tally row (a bucket, a kind, the project whose verify_after_days applies, a day, a shard). */
const KEY = 'scope, project_id, author_id, kind, verify_project, day, shard'

const literal = (s: string): string => `'${s.replaceAll("'", "''")}'`

const column = (alias: string, name: string): string => (alias === '' ? name : `${alias}.${name}`)
/** The time an entry's staleness by age is measured from (freshness.ts); indexed in both drivers (alias '' there). */
const freshAt = (d: TallyDialect, a: string): string => d.later(column(a, 'updated_at'), column(a, 'verified_at'))
/** When an entry was created or last retrieved: never retrieved in 90 days means this is older than the cutoff. */
const usedAt = (d: TallyDialect, a: string): string => d.later(column(a, 'created_at'), column(a, 'last_retrieved_at'))

/** Stale whatever its age: an anchor changed or deleted, or an open stale-making flag (freshness.ts). */
const staleNow = (a: string): string =>
  `(${a}.anchors LIKE ${literal(ANCHOR_STALE_PATTERNS[0])} OR ${a}.anchors LIKE ${literal(ANCHOR_STALE_PATTERNS[1])} OR ${a}.flagged_at IS NOT NULL)`

/**
 * The tally rows of the entries in `source` (aliased `r`), each `sign`: a superseded entry is in that kind alone,
 * as the queue has it (history-store.ts reviewKinds).
 */
function contributions(d: TallyDialect, source: string, sign: number): string {
  // A project entry without a project (only a store test writes one) is in a bucket nobody's memberships name.
  const bucket = `r.scope AS scope, CASE WHEN r.scope = 'project' THEN coalesce(r.project_id, '') ELSE '' END AS project_id,
    CASE WHEN r.scope = 'private' THEN r.author_id ELSE '' END AS author_id`
  const row = (kind: string, project: string, day: string, where: string): string =>
    `SELECT ${bucket}, '${kind}' AS kind, ${project} AS verify_project, ${day} AS day, ${d.shard('r')} AS shard, ${sign} AS n
    FROM ${source} r WHERE ${where}`
  const standing = 'r.superseded_by IS NULL'
  return [
    row('superseded', "''", "''", 'r.superseded_by IS NOT NULL'),
    row('flagged', "''", "''", `${standing} AND r.flags <> ${literal(JSON.stringify(NO_FLAGS))}`),
    row('unverified', "''", "''", `${standing} AND r.verified_at IS NULL`),
    row('stale', "''", "''", `${standing} AND ${staleNow('r')}`),
    row('stale_age', "coalesce(r.project_id, '')", `substr(${freshAt(d, 'r')}, 1, 10)`, `${standing} AND NOT ${staleNow('r')}`),
    row('unused', "''", `substr(${usedAt(d, 'r')}, 1, 10)`, standing),
  ].join('\n    UNION ALL ')
}

/** The rows of `parts` (each a `contributions`) summed per key, leaving out keys whose changes cancel out. */
const summed = (parts: string[]): string =>
  `SELECT ${KEY}, sum(n) AS n FROM (${parts.join('\n    UNION ALL ')}) c GROUP BY ${KEY} HAVING sum(n) <> 0`

/** The tally the entries make, rebuilt from scratch (what the kept tally must equal: test/server/endpoints/review-counts.test.ts). */
export const rebuiltTallySql = (d: TallyDialect): string => summed([contributions(d, 'entries', 1)])

/**
 * Adds the rows of `parts` to the tally; an edit that moves no kind writes nothing. Sorted, so that PostgreSQL's
 * statements lock counter rows in one order.
 */
function addToTally(parts: string[]): string {
  return `INSERT INTO review_tally (${KEY}, n)
  SELECT * FROM (${summed(parts)} ORDER BY ${KEY}) s WHERE true
  ON CONFLICT (${KEY}) DO UPDATE SET n = review_tally.n + excluded.n`
}

/** The bucket and day columns of a tally row: its key without the shard. */
const BUCKET = 'scope, project_id, author_id, kind, verify_project, day'

/**
 * PostgreSQL: folds the rows of connections that have ended into shard 0, and drops rows that sum to nothing, so the
 * table does not grow with every connection a pool ever opened (a shard is the writing backend's pid, and a pool
 * reconnects after idling). Sums are kept whichever rows it moves; only folds write shard 0 (no backend has pid 0).
 */
export const POSTGRES_TALLY_FOLD = [
  `WITH gone AS (
    DELETE FROM review_tally t WHERE t.shard <> 0 AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = t.shard)
    RETURNING ${BUCKET}, n)
  INSERT INTO review_tally (${KEY}, n)
  SELECT ${BUCKET}, 0, sum(n) FROM gone GROUP BY ${BUCKET} ORDER BY ${BUCKET}
  ON CONFLICT (${KEY}) DO UPDATE SET n = review_tally.n + excluded.n`,
  `DELETE FROM review_tally WHERE shard = 0 AND n = 0`,
]

/** The table, the boundary indexes and the tally of the entries already there: both drivers' migration but the triggers. */
function tallyTable(d: TallyDialect, collate: string): string {
  const col = (name: string): string => `${name} text ${collate} NOT NULL`
  return `
  CREATE TABLE review_tally (
    ${['scope', 'project_id', 'author_id', 'kind', 'verify_project', 'day'].map(col).join(',\n    ')},
    shard integer NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (${KEY})
  );
  CREATE INDEX entries_fresh_at ON entries((${freshAt(d, '')}));
  CREATE INDEX entries_used_at ON entries((${usedAt(d, '')}));
  DROP INDEX IF EXISTS entries_review;
  ${addToTally([contributions(d, 'entries', 1)])};
  `
}

/** The columns the tally reads: an update that changes none of them leaves it alone (SQLite's `UPDATE OF`). */
const TALLIED =
  'scope, project_id, author_id, superseded_by, flags, flagged_at, anchors, verified_at, updated_at, created_at, last_retrieved_at'

/** SQLite: the tally and row triggers, each a single-row `contributions` of NEW and/or OLD. */
export function sqliteTallyMigration(): string {
  const d = SQLITE_TALLY
  const one = (rec: 'NEW' | 'OLD'): string =>
    `(SELECT ${rec}.seq AS seq, ${TALLIED.split(', ')
      .map((c) => `${rec}.${c} AS ${c}`)
      .join(', ')})`
  return `${tallyTable(d, '')}
  CREATE TRIGGER entries_tally_insert AFTER INSERT ON entries BEGIN
    ${addToTally([contributions(d, one('NEW'), 1)])};
  END;
  CREATE TRIGGER entries_tally_update AFTER UPDATE OF ${TALLIED} ON entries BEGIN
    ${addToTally([contributions(d, one('OLD'), -1), contributions(d, one('NEW'), 1)])};
  END;
  CREATE TRIGGER entries_tally_delete AFTER DELETE ON entries BEGIN
    ${addToTally([contributions(d, one('OLD'), -1)])};
  END;
  `
}

/** PostgreSQL: the tally and statement triggers over transition tables, so a batch (usage, an import) is one upsert. */
export function postgresTallyMigration(): string {
  const d = POSTGRES_TALLY
  const fn = (name: string, parts: string[]): string =>
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    ${addToTally(parts)};
    RETURN NULL;
  END $$;`
  return `${tallyTable(d, 'COLLATE "C"')}
  ${fn('review_tally_insert', [contributions(d, 'new_rows', 1)])}
  ${fn('review_tally_update', [contributions(d, 'old_rows', -1), contributions(d, 'new_rows', 1)])}
  ${fn('review_tally_delete', [contributions(d, 'old_rows', -1)])}
  CREATE TRIGGER entries_tally_insert AFTER INSERT ON entries REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION review_tally_insert();
  CREATE TRIGGER entries_tally_update AFTER UPDATE ON entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION review_tally_update();
  CREATE TRIGGER entries_tally_delete AFTER DELETE ON entries REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION review_tally_delete();
  `
}

/** The placeholders (or SQL) of one count, bound by each driver. */
export interface TallyBinds {
  /** The visibility rule and the project's filter as disjoint branches over `e` (history-store.ts visibleBranches). */
  branches: string[]
  /** Each project's verify_after_days and the cutoff it makes at the request's time, as `SELECT id, d, cutoff`. */
  projectCutoffs: string
  verifyDefault: string
  /** The cutoff of an entry whose project sets no verify_after_days. */
  defaultCutoff: string
  /** Entries created and not retrieved since before this are never retrieved. */
  unusedCutoff: string
  /** The open similar pairs counted (history-store.ts countSimilarSql). */
  similar: string
}

/**
 * One row of every count: the tally's rows of the buckets the caller may see, the days before each cutoff's day
 * summed; the entries of each cutoff's day counted one by one through the index on the same expression (one range
 * per distinct cutoff); `similar` from the open pairs. Each cutoff's range is a subquery of its own, so that the
 * cutoff is a known value when the index is read: joined to the cutoffs instead, PostgreSQL read every entry (72 ms
 * at 100k against a few rows).
 */
export function tallyCountsSql(d: TallyDialect, b: TallyBinds): string {
  const overT = `(${b.branches.map((x) => x.replace(/\be\./g, 't.')).join(' OR ')})`
  const overE = `(${b.branches.join(' OR ')})`
  const sum = (when: string): string => `coalesce(sum(CASE WHEN ${when} THEN t.n END), 0)`
  const cutoff = `coalesce(pc.cutoff, ${b.defaultCutoff})`
  const ages = `coalesce(pc.d, ${b.verifyDefault}) > 0`
  return `WITH pc AS (${b.projectCutoffs}),
    cutoffs AS (SELECT cutoff FROM pc WHERE d > 0 UNION SELECT ${b.defaultCutoff}),
    tally AS (SELECT
      ${sum(`t.kind = 'flagged'`)} AS flagged,
      ${sum(`t.kind = 'unverified'`)} AS unverified,
      ${sum(`t.kind = 'superseded'`)} AS superseded,
      ${sum(`t.kind = 'stale' OR (t.kind = 'stale_age' AND ${ages} AND t.day < substr(${cutoff}, 1, 10))`)} AS stale,
      ${sum(`t.kind = 'unused' AND t.day < substr(${b.unusedCutoff}, 1, 10)`)} AS never_retrieved
      FROM review_tally t LEFT JOIN pc ON pc.id = t.verify_project WHERE ${overT})
  SELECT tally.flagged, tally.unverified, tally.superseded,
    tally.stale + (SELECT coalesce(sum(k.n), 0) FROM (SELECT (SELECT count(*) FROM entries e ${d.indexedBy('entries_fresh_at')}
      LEFT JOIN pc ON pc.id = e.project_id
      WHERE ${freshAt(d, 'e')} >= substr(c.cutoff, 1, 10) AND ${freshAt(d, 'e')} < c.cutoff AND ${cutoff} = c.cutoff AND ${ages} AND e.superseded_by IS NULL AND NOT ${staleNow('e')} AND ${overE}) AS n
      FROM cutoffs c) k) AS stale,
    tally.never_retrieved + (SELECT count(*) FROM entries e ${d.indexedBy('entries_used_at')}
      WHERE ${usedAt(d, 'e')} >= substr(${b.unusedCutoff}, 1, 10) AND ${usedAt(d, 'e')} < ${b.unusedCutoff}
      AND e.superseded_by IS NULL AND ${overE}) AS never_retrieved,
    (${b.similar}) AS similar
  FROM tally`
}
