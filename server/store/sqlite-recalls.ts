/**
 * @module The SQLite side of `Store.recalls` (table `recalls`): the statements of recall-store.ts as they are.
 */
import type Database from 'better-sqlite3'
import {insertArgs, listArgs, RECALL_SQL, recallFromRow, type RecallPage, type RecallRow, type RecallStore} from './recall-store.js'
import {StatementCache} from './sqlite-rows.js'
import type {WriteGate} from './write-gate.js'

export class SqliteRecallStore implements RecallStore {
  private readonly statements: StatementCache

  constructor(
    db: Database.Database,
    private readonly gate: WriteGate,
  ) {
    this.statements = new StatementCache(db)
  }

  async insert(row: RecallRow): Promise<void> {
    await this.gate.wait()
    this.statements.get(RECALL_SQL.insert).run(...insertArgs(row))
  }

  async list(principalId: string, page: RecallPage): Promise<RecallRow[]> {
    const rows = this.statements.get(RECALL_SQL.list(page)).all(...listArgs(principalId, page)) as Array<Record<string, unknown>>
    return rows.map(recallFromRow)
  }

  async purgeBefore(at: string, max: number): Promise<number> {
    await this.gate.wait()
    return this.statements.get(RECALL_SQL.purge).run(at, max).changes
  }
}
