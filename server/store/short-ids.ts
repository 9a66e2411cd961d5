/**
 * @module Short ids in the store (docs/api.md, "Short ids"), for both drivers: the `id_tail` column (an id's hex
 * digits reversed, so a suffix is an index range), the `short_ids` row (the length short forms need), their SQL
 * and the arithmetic on them.
 */
import {ID_CANDIDATES_MAX, SHORT_ID_MIN} from '../../src/shared/contract.js'
import type {Viewer} from './store.js'

/** Short forms and the entries a typed one names; `Store.ids`. */
export interface IdStore {
  /** The length short forms have on this server: the shortest, at least SHORT_ID_MIN, at which no two entries end alike. */
  shortLength(): Promise<number>
  /**
   * The entries the viewer may see whose id begins with `hex` (digits without hyphens) or whose digits end with it,
   * by id, at most ID_CANDIDATES_MAX + 1. Bounded: each side reads at most `scan` index entries, and `more` says one
   * side held more than that (the caller must type more characters).
   */
  match(viewer: Viewer, hex: string, scan: number): Promise<IdMatches>
}

export interface IdMatches {
  candidates: Array<{id: string; title: string}>
  more: boolean
}

/** The hyphens of an id in canonical form (8-4-4-4-12), by position. */
const HYPHENS = new Set([8, 13, 18, 23])

/**
 * An id's 32 hex digits reversed, in SQL both drivers run (SQLite has no reverse()): the generated column `id_tail`.
 * Positions are 1-based; the hyphens are skipped.
 */
const ID_TAIL_SQL = Array.from({length: 36}, (_, i) => 36 - i)
  .filter((p) => !HYPHENS.has(p - 1))
  .map((p) => `substr(id, ${p}, 1)`)
  .join(' || ')

/**
 * The migration of both drivers, but for the generated column's storage (SQLite may add only a VIRTUAL one, PostgreSQL
 * only a STORED one): `id_tail` and its index, and `short_ids` set to the length the entries already there need.
 */
export function shortIdsMigration(storage: 'VIRTUAL' | 'STORED', collate: string): string {
  return `
  ALTER TABLE entries ADD COLUMN id_tail text ${collate} GENERATED ALWAYS AS (${ID_TAIL_SQL}) ${storage};
  CREATE INDEX entries_id_tail ON entries(id_tail);
  CREATE TABLE short_ids (length integer NOT NULL);
  INSERT INTO short_ids (length)
    WITH RECURSIVE n(l) AS (SELECT ${SHORT_ID_MIN} UNION ALL SELECT l + 1 FROM n WHERE l < 32)
    SELECT coalesce(min(l), 32) FROM n
    WHERE (SELECT count(DISTINCT substr(id_tail, 1, l)) FROM entries) = (SELECT count(*) FROM entries);
  `
}

/** The statements both drivers run (`?` placeholders; PostgreSQL numbers them). */
export const SHORT_ID_SQL = {
  length: 'SELECT length FROM short_ids',
  /** The tails either side of one, in index order: the only ones that can share the longest start with it. */
  neighbours: `SELECT (SELECT id_tail FROM entries WHERE id_tail < ? ORDER BY id_tail DESC LIMIT 1) AS below,
    (SELECT id_tail FROM entries WHERE id_tail > ? ORDER BY id_tail LIMIT 1) AS above`,
  grow: 'UPDATE short_ids SET length = ? WHERE length < ?',
  /** At most `?` entries of an id range, by the unique index on `id`. */
  byPrefix: 'SELECT seq FROM entries WHERE id >= ? AND id <= ? ORDER BY id LIMIT ?',
  /** At most `?` entries of a tail range, by `entries_id_tail`. */
  bySuffix: 'SELECT seq FROM entries WHERE id_tail >= ? AND id_tail <= ? ORDER BY id_tail LIMIT ?',
}

/** The candidates a match returns: one more than a problem lists, so it can say there are more. */
export const CANDIDATES_READ = ID_CANDIDATES_MAX + 1

/** An id's `id_tail`. */
export function tailOf(id: string): string {
  return Array.from(id.replace(/-/g, '')).reverse().join('')
}

function commonStart(a: string, b: string): number {
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  return i
}

/** The short length an entry with this tail needs beside its index neighbours. */
export function lengthNeeded(tail: string, neighbours: Array<string | null | undefined>): number {
  let shared = 0
  for (const n of neighbours) if (n) shared = Math.max(shared, commonStart(tail, n))
  return Math.max(SHORT_ID_MIN, Math.min(32, shared + 1))
}

const withHyphens = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`

/** The bounds (inclusive) of the ids that begin with `hex`, and of the tails of the ids that end with it. */
export function idRanges(hex: string): {prefix: [string, string]; suffix: [string, string]} {
  const rev = Array.from(hex).reverse().join('')
  return {
    prefix: [withHyphens(hex.padEnd(32, '0')), withHyphens(hex.padEnd(32, 'f'))],
    suffix: [rev.padEnd(32, '0'), rev.padEnd(32, 'f')],
  }
}
