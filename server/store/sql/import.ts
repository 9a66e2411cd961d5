/**
 * @module The SQL vocabulary of applying an import, written once for both drivers in the neutral `@name` form
 * (sql/bind.ts): the questions and writes of import-rules.ts `ImportTx` that sql/entries.ts and sql/principals.ts
 * do not already say.
 */
import {FLAG_COLUMNS, FLAG_ORDER} from '../rows.js'
import type {Dialect} from './dialect.js'
import {COMMENT_COLUMNS, commentOrder, ENTRY_FROM, VISIBLE_TO_ME} from './entries.js'

export const IMPORT_SQL = {
  principalExists: 'SELECT 1 AS found FROM principals WHERE id = @id',
  principalNamed: 'SELECT id FROM principals WHERE name = @name',
  /** A principal an owner's import names, as a member. */
  insertPrincipal: `INSERT INTO principals (id, name, role, created_at) VALUES (@id, @name, 'member', @created_at)`,
  projectIdByRemote: 'SELECT id FROM projects WHERE remote = @remote',
  project: 'SELECT name, verify_after_days FROM projects WHERE id = @id',
  /** Whether entry @id is visible to @me. */
  entryVisible: `SELECT 1 AS found FROM entries e WHERE e.id = @id AND ${VISIBLE_TO_ME}`,
  flagsOf: `SELECT ${FLAG_COLUMNS} FROM flags f JOIN principals p ON p.id = f.principal_id WHERE f.entry_id = @id ORDER BY ${FLAG_ORDER}`,
  /** The entry comment @id is on. */
  commentEntry: 'SELECT e.id FROM comments c JOIN entries e ON e.seq = c.entry_seq WHERE c.id = @id',
  /** A comment of an imported entry; an id already there changes nothing (and the rules refuse the line). */
  insertComment: `INSERT INTO comments (id, entry_seq, body, type, author_id, created_at)
    VALUES (@id, @entry_seq, @body, @type, @author_id, @created_at) ON CONFLICT (id) DO NOTHING`,
  /** What an overwritten entry had besides its row. */
  deleteComments: 'DELETE FROM comments WHERE entry_seq = @seq',
  deleteFlags: 'DELETE FROM flags WHERE entry_id = @id',
} as const

/** The entry @id whole, with its author's name, locked where the dialect can. */
export function entryWholeSql(d: Dialect): string {
  return `SELECT e.*, p.name AS author_name FROM ${ENTRY_FROM} WHERE e.id = @id${d.lockEntry}`
}

/** The comments of entry seq @seq, in order. */
export function commentsOfSql(d: Dialect): string {
  return `SELECT ${COMMENT_COLUMNS} FROM comments c JOIN principals p ON p.id = c.author_id WHERE c.entry_seq = @seq ORDER BY ${commentOrder(d)}`
}

/** Which of the entry ids in the list @ids (`Dialect.list`) are stored, whoever may see them. */
export function storedIdsSql(d: Dialect): string {
  return `SELECT id FROM entries WHERE ${d.inList('id', 'ids', 'text')}`
}
