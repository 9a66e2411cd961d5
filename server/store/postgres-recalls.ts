/**
 * @module The PostgreSQL side of `Store.recalls` (table `recalls`): the statements of recall-store.ts with their
 * placeholders numbered.
 */
import {numbered} from './postgres-rows.js'
import type {PostgresDb} from './postgres-db.js'
import {insertArgs, listArgs, RECALL_SQL, recallFromRow, type RecallPage, type RecallRow, type RecallStore} from './recall-store.js'

export class PostgresRecallStore implements RecallStore {
  constructor(private readonly db: PostgresDb) {}

  async insert(row: RecallRow): Promise<void> {
    await this.db.run(numbered(RECALL_SQL.insert), insertArgs(row))
  }

  async list(principalId: string, page: RecallPage): Promise<RecallRow[]> {
    const rows = await this.db.query(numbered(RECALL_SQL.list(page)), listArgs(principalId, page))
    return rows.map(recallFromRow)
  }

  async purgeBefore(at: string, max: number): Promise<number> {
    return this.db.run(numbered(RECALL_SQL.purge), [at, max])
  }
}
