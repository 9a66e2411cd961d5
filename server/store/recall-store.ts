/**
 * @module The record of recalls (docs/api.md, "Recall"): what knowledge was given to which agent, when, and why.
 * An interface of its own (`Store.recalls`) that each driver implements apart over the same SQL, with `?`
 * placeholders that the PostgreSQL driver numbers; one row per recall, its entries as a JSON list.
 */
import type {Recalled} from '../../src/shared/recall-schemas.js'
import type {RECALL_SOURCES} from '../../src/shared/contract.js'

export interface RecallRow {
  id: string
  principal_id: string
  at: string
  source: (typeof RECALL_SOURCES)[number]
  client: string | null
  session: string | null
  query: string
  items: Recalled[]
}

export interface RecallPage {
  limit: number
  session?: string
  /** Keyset position: recalls strictly before this one in (at desc, id desc) order. */
  before?: {at: string; id: string}
}

export interface RecallStore {
  insert(row: RecallRow): Promise<void>
  /** The principal's own recalls, newest first. */
  list(principalId: string, page: RecallPage): Promise<RecallRow[]>
  /** Deletes at most `max` recalls made before `at` (retention); returns how many. */
  purgeBefore(at: string, max: number): Promise<number>
}

const COLUMNS = 'id, principal_id, at, source, client, session, query, items'

/** The statements both drivers run, written once (`?` placeholders, in the order of the arguments). */
export const RECALL_SQL = {
  insert: `INSERT INTO recalls (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  list: (page: RecallPage): string =>
    `SELECT ${COLUMNS} FROM recalls WHERE principal_id = ?` +
    (page.session === undefined ? '' : ' AND session = ?') +
    (page.before === undefined ? '' : ' AND (at < ? OR (at = ? AND id < ?))') +
    ' ORDER BY at DESC, id DESC LIMIT ?',
  purge: 'DELETE FROM recalls WHERE id IN (SELECT id FROM recalls WHERE at < ? ORDER BY at LIMIT ?)',
}

export function insertArgs(r: RecallRow): unknown[] {
  return [r.id, r.principal_id, r.at, r.source, r.client, r.session, r.query, JSON.stringify(r.items)]
}

export function listArgs(principalId: string, page: RecallPage): unknown[] {
  const args: unknown[] = [principalId]
  if (page.session !== undefined) args.push(page.session)
  if (page.before !== undefined) args.push(page.before.at, page.before.at, page.before.id)
  args.push(page.limit)
  return args
}

export function recallFromRow(row: Record<string, unknown>): RecallRow {
  return {
    id: String(row.id),
    principal_id: String(row.principal_id),
    at: String(row.at),
    source: String(row.source) as RecallRow['source'],
    client: row.client === null ? null : String(row.client),
    session: row.session === null ? null : String(row.session),
    query: String(row.query),
    items: JSON.parse(String(row.items)) as Recalled[],
  }
}
