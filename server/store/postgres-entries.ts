/**
 * @module Writing entries in the PostgreSQL store, shared by live writes (postgres.ts) and import
 * (postgres-transfer.ts) so both store and index text identically: the row with its `tsvector`
 * (server/search/tsvector.ts), its tags, comment rows, and the search counters. Counter changes are gathered
 * in an `IndexDelta` and applied once at the end of the transaction, always in the same order (terms by shard
 * and term, sorted by PostgreSQL, then shards), so that concurrent writers wait on each other but never deadlock.
 */
import {summarize} from '../../src/shared/summary.js'
import {indexEntry, type IndexedEntry} from '../search/tsvector.js'
import {headOf, reversed} from '../search/vocabulary.js'
import type {Queryable} from './postgres-db.js'
import {encodeColumn, trustToDb} from './rows.js'
import type {CommentRow, EntryChanges, EntryRow} from './store.js'
import {numbered} from './postgres-rows.js'
import {lengthNeeded, SHORT_ID_SQL, tailOf} from './short-ids.js'
import {SHORT_ID_MIN} from '../../src/shared/contract.js'

/** Counter shards: an entry's counts live in shard `seq % SHARDS` (migration 1). */
const SHARDS = 16

interface FieldCounts {
  docs: number
  title: number
  tags: number
  body: number
}

/** What an entry contributed to the counters: its distinct terms and field lengths. */
type Contribution = Pick<IndexedEntry, 'terms' | 'lengths'>

/** Changes to `search_terms` and `search_stats` made by one transaction, applied by `flush`. */
export class IndexDelta {
  /** Per shard, each term's change of document frequency. */
  private readonly terms = new Map<number, Map<string, number>>()
  private readonly stats = new Map<number, FieldCounts>()

  /** Counts the entry's contribution in (+1) or out (-1). */
  add(seq: number, c: Contribution, sign: 1 | -1): void {
    const shard = seq % SHARDS
    let terms = this.terms.get(shard)
    if (!terms) this.terms.set(shard, (terms = new Map()))
    for (const term of c.terms) terms.set(term, (terms.get(term) ?? 0) + sign)
    const s = this.stats.get(shard) ?? {docs: 0, title: 0, tags: 0, body: 0}
    s.docs += sign
    s.title += sign * c.lengths.title
    s.tags += sign * c.lengths.tags
    s.body += sign * c.lengths.body
    this.stats.set(shard, s)
  }

  /**
   * One statement per shard, in shard order: the rows are locked by shard, then by term, as one statement over
   * every shard would, and a large import (3,000 entries: some 100,000 changed counters) never builds its
   * parameters in one synchronous stretch that would hold the event loop (docs/performance.md, "Hostile input").
   */
  async flush(q: Queryable): Promise<void> {
    for (const shard of [...this.terms.keys()].sort((a, b) => a - b)) {
      const changed = [...this.terms.get(shard)!].filter(([, df]) => df !== 0)
      if (changed.length === 0) continue
      // The rows are locked in the order of the ORDER BY, the same in every transaction.
      await q.run(
        `INSERT INTO search_terms AS t (term, shard, head, len, rev, df)
        SELECT d.term, $1::int2, d.head, d.len, d.rev, d.df FROM unnest($2::text[], $3::text[], $4::int2[], $5::text[], $6::int4[]) AS d(term, head, len, rev, df)
        ORDER BY d.term COLLATE "C"
        ON CONFLICT (term, shard) DO UPDATE SET df = t.df + EXCLUDED.df`,
        [
          shard,
          changed.map(([term]) => term),
          changed.map(([term]) => headOf(term)),
          changed.map(([term]) => Array.from(term).length),
          changed.map(([term]) => reversed(term)),
          changed.map(([, df]) => df),
        ],
      )
      // Terms no entry of the shard holds any more; this transaction holds their rows' locks, so none is re-added meanwhile.
      const fell = changed.filter(([, df]) => df < 0).map(([term]) => term)
      if (fell.length > 0) await q.run('DELETE FROM search_terms WHERE shard = $1 AND term = ANY($2::text[]) AND df <= 0', [shard, fell])
    }
    this.terms.clear()
    for (const shard of [...this.stats.keys()].sort((a, b) => a - b)) {
      const s = this.stats.get(shard)!
      if (s.docs === 0 && s.title === 0 && s.tags === 0 && s.body === 0) continue
      await q.run('UPDATE search_stats SET docs = docs + $2, title = title + $3, tags = tags + $4, body = body + $5 WHERE shard = $1', [
        shard,
        s.docs,
        s.title,
        s.tags,
        s.body,
      ])
    }
    this.stats.clear()
  }
}

const ENTRY_FIELDS = [
  'id',
  'title',
  'body',
  'summary',
  'summary_title',
  'scope',
  'project_id',
  'tags',
  'url',
  'status',
  'resolution',
  'thought_chain',
  'forked_from',
  'author_id',
  'created_at',
  'updated_at',
  'version',
  'comment_count',
  'anchors',
  'flags',
  'flagged_at',
  'verified_at',
  'verified_by',
  'verifications',
  'corrections',
  'superseded_by',
  'retrieved',
  'last_retrieved_at',
] as const

/** An entry's columns as the `entries` table stores them (JSON text for the structured fields, the author by id), in ENTRY_FIELDS order. */
function toDb(e: EntryRow): unknown[] {
  return [
    e.id,
    e.title,
    e.body,
    e.summary,
    e.summary_title,
    e.scope,
    e.project_id,
    JSON.stringify(e.tags),
    e.url,
    e.status,
    e.resolution ? JSON.stringify(e.resolution) : null,
    JSON.stringify(e.thought_chain),
    e.forked_from,
    e.author.id,
    e.created_at,
    e.updated_at,
    e.version,
    e.comment_count,
    ...Object.values(trustToDb(e)),
    e.superseded_by,
    e.retrieved ?? 0,
    e.last_retrieved_at ?? null,
  ]
}

/** The version of the index terms an entry's `search` holds (migration 3); older ones are indexed again by reindexStale. */
const SEARCH_VERSION = 1
/** The version of the summary form an entry's `summary` holds (migration 4); older ones are computed again by resummarizeStale. */
const SUMMARY_VERSION = 1
/** Entries indexed again per transaction. */
const REINDEX_BATCH = 500

const SEARCH_COLUMNS = `search = $2::tsvector, title_len = $3, tags_len = $4, body_len = $5, search_version = ${SEARCH_VERSION}`
/** An entry's stored contribution to the counters, as `stored` reads it. */
const CONTRIBUTION_COLUMNS = 'tsvector_to_array(search) AS terms, title_len, tags_len, body_len'
type StoredContribution = {terms: string[]; title_len: number; tags_len: number; body_len: number}

function stored(r: StoredContribution): Contribution {
  return {terms: r.terms, lengths: {title: r.title_len, tags: r.tags_len, body: r.body_len}}
}

export class PostgresEntryWriter {
  /** Inserts the entry with its tags; returns its `seq`. */
  async insert(q: Queryable, e: EntryRow, delta: IndexDelta): Promise<number> {
    const indexed = indexEntry(e.title, e.tags, e.body)
    const values = [...toDb(e), indexed.vector, indexed.lengths.title, indexed.lengths.tags, indexed.lengths.body]
    const placeholders = values.map((_, i) => `$${i + 1}`)
    placeholders[ENTRY_FIELDS.length] += '::tsvector'
    const [row] = await q.query<{seq: number}>(
      `INSERT INTO entries (${ENTRY_FIELDS.join(', ')}, search, title_len, tags_len, body_len)
      VALUES (${placeholders.join(', ')}) RETURNING seq`,
      values,
    )
    await this.writeTags(q, row!.seq, e.tags, false)
    delta.add(row!.seq, indexed, 1)
    await this.growShortIds(q, e.id)
    return row!.seq
  }

  /** Lengthens the short form when this id ends as another does (docs/api.md, "Short ids"): two index seeks. */
  private async growShortIds(q: Queryable, id: string): Promise<void> {
    const tail = tailOf(id)
    const [n] = await q.query<{below: string | null; above: string | null}>(numbered(SHORT_ID_SQL.neighbours), [tail, tail])
    const need = lengthNeeded(tail, [n?.below, n?.above])
    if (need > SHORT_ID_MIN) await q.run(numbered(SHORT_ID_SQL.grow), [need, need])
  }

  /** Replaces every stored column of entry `seq` (an import's overwrite); its comments are the caller's. */
  async overwrite(q: Queryable, seq: number, e: EntryRow, delta: IndexDelta): Promise<void> {
    const before = await this.contribution(q, seq)
    const indexed = indexEntry(e.title, e.tags, e.body)
    const sets = ENTRY_FIELDS.map((f, i) => `${f} = $${i + 6}`).join(', ')
    await q.run(`UPDATE entries SET ${SEARCH_COLUMNS}, summary_version = ${SUMMARY_VERSION}, ${sets} WHERE seq = $1`, [
      seq,
      indexed.vector,
      indexed.lengths.title,
      indexed.lengths.tags,
      indexed.lengths.body,
      ...toDb(e),
    ])
    await this.writeTags(q, seq, e.tags, true)
    if (before) delta.add(seq, before, -1)
    delta.add(seq, indexed, 1)
  }

  /** Applies the changes to entry `seq` (locked by the caller), sets `updated_at` and bumps `version`. */
  async update(q: Queryable, seq: number, changes: EntryChanges, at: string, delta: IndexDelta): Promise<void> {
    const params: unknown[] = [seq]
    const sets: string[] = []
    const set = (column: string, value: unknown, cast = ''): void => {
      params.push(value)
      sets.push(`${column} = $${params.length}${cast}`)
    }
    for (const [key, value] of Object.entries(changes)) if (value !== undefined) set(key, encodeColumn(key, value))
    set('updated_at', at)
    sets.push('version = version + 1')
    if (changes.title !== undefined || changes.body !== undefined || changes.tags !== undefined) {
      const [old] = await q.query<{title: string; tags: string; body: string} & StoredContribution>(
        `SELECT title, tags, body, ${CONTRIBUTION_COLUMNS} FROM entries WHERE seq = $1`,
        [seq],
      )
      const indexed = indexEntry(
        changes.title ?? old!.title,
        changes.tags ?? (JSON.parse(old!.tags) as string[]),
        changes.body ?? old!.body,
      )
      set('search', indexed.vector, '::tsvector')
      set('title_len', indexed.lengths.title)
      set('tags_len', indexed.lengths.tags)
      set('body_len', indexed.lengths.body)
      set('search_version', SEARCH_VERSION)
      delta.add(seq, stored(old!), -1)
      delta.add(seq, indexed, 1)
    }
    await q.run(`UPDATE entries SET ${sets.join(', ')} WHERE seq = $1`, params)
    if (changes.tags) await this.writeTags(q, seq, changes.tags, true)
  }

  /**
   * Indexes again, in batches, the entries whose `search` an older kb wrote (migration 3), taking their old
   * terms out of the counters and the new ones in; returns how many. Rows another daemon is re-indexing are
   * skipped (SKIP LOCKED), so daemons starting together share the work instead of waiting.
   */
  async reindexStale(db: {tx<T>(work: (q: Queryable) => Promise<T>): Promise<T>}): Promise<number> {
    let total = 0
    for (;;) {
      const done = await db.tx(async (q) => {
        const rows = await q.query<{seq: number; title: string; tags: string; body: string} & StoredContribution>(
          `SELECT seq, title, tags, body, ${CONTRIBUTION_COLUMNS} FROM entries WHERE search_version < ${SEARCH_VERSION}
          ORDER BY seq LIMIT ${REINDEX_BATCH} FOR UPDATE SKIP LOCKED`,
        )
        const delta = new IndexDelta()
        for (const r of rows) {
          const indexed = indexEntry(r.title, JSON.parse(r.tags) as string[], r.body)
          await q.run(`UPDATE entries SET ${SEARCH_COLUMNS} WHERE seq = $1`, [
            r.seq,
            indexed.vector,
            indexed.lengths.title,
            indexed.lengths.tags,
            indexed.lengths.body,
          ])
          delta.add(r.seq, stored(r), -1)
          delta.add(r.seq, indexed, 1)
        }
        await delta.flush(q)
        total += rows.length
        return rows.length < REINDEX_BATCH
      })
      if (done) return total
    }
  }

  /**
   * Computes again, in batches, the summaries an older kb computed (migration 4: the summary item gained
   * `freshness`, which the budget now counts); returns how many. As reindexStale, rows another daemon holds are skipped.
   */
  async resummarizeStale(db: {tx<T>(work: (q: Queryable) => Promise<T>): Promise<T>}): Promise<number> {
    let total = 0
    for (;;) {
      const done = await db.tx(async (q) => {
        const rows = await q.query<{seq: number; id: string; title: string; body: string; superseded_by: string | null}>(
          `SELECT seq, id, title, body, superseded_by FROM entries WHERE summary_version < ${SUMMARY_VERSION}
          ORDER BY seq LIMIT ${REINDEX_BATCH} FOR UPDATE SKIP LOCKED`,
        )
        for (const r of rows) {
          // With room for superseded_by, as every write computes it (docs/api.md, "Supersede").
          const s = summarize(r.id, r.title, r.body, r.superseded_by)
          await q.run(`UPDATE entries SET summary = $2, summary_title = $3, summary_version = ${SUMMARY_VERSION} WHERE seq = $1`, [
            r.seq,
            s.body,
            s.title,
          ])
        }
        total += rows.length
        return rows.length < REINDEX_BATCH
      })
      if (done) return total
    }
  }

  /** Deletes the entry (its tags and comments go with it); false if there was none. */
  async delete(q: Queryable, id: string, delta: IndexDelta): Promise<boolean> {
    const [row] = await q.query<{seq: number} & StoredContribution>(
      `DELETE FROM entries WHERE id = $1 RETURNING seq, ${CONTRIBUTION_COLUMNS}`,
      [id],
    )
    if (!row) return false
    delta.add(row.seq, stored(row), -1)
    return true
  }

  /** A comment row on entry `seq`; false (nothing written) if its id is taken. The entry's count and version are the caller's to change. */
  async insertComment(q: Queryable, seq: number, c: Omit<CommentRow, 'entry_id'>): Promise<boolean> {
    return (
      (await q.run(
        'INSERT INTO comments (id, entry_seq, body, type, author_id, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING',
        [c.id, seq, c.body, c.type, c.author_id, c.created_at],
      )) === 1
    )
  }

  /**
   * What entry `seq` counts for now, read from its stored tsvector (not by tokenizing its text again), so
   * the counters stay exact even when the tokenizer changes between versions.
   */
  private async contribution(q: Queryable, seq: number): Promise<Contribution | null> {
    const [row] = await q.query<StoredContribution>(`SELECT ${CONTRIBUTION_COLUMNS} FROM entries WHERE seq = $1`, [seq])
    return row ? stored(row) : null
  }

  private async writeTags(q: Queryable, seq: number, tags: string[], replace: boolean): Promise<void> {
    if (replace) await q.run('DELETE FROM entry_tags WHERE seq = $1', [seq])
    if (tags.length > 0)
      await q.run('INSERT INTO entry_tags (tag, seq) SELECT DISTINCT unnest($1::text[]), $2::int8 ON CONFLICT DO NOTHING', [tags, seq])
  }
}
