/**
 * @module The SQLite side of `Store.web` (table `web_sessions`): the statements of web-session-store.ts as they are.
 */
import type Database from 'better-sqlite3'
import {StatementCache} from './sqlite-rows.js'
import {insertArgs, WEB_SESSION_SQL, type WebSessionRow, type WebSessionState, type WebSessionStore} from './web-session-store.js'
import type {WriteGate} from './write-gate.js'

export class SqliteWebSessionStore implements WebSessionStore {
  private readonly statements: StatementCache

  constructor(
    db: Database.Database,
    private readonly gate: WriteGate,
  ) {
    this.statements = new StatementCache(db)
  }

  async insert(row: WebSessionRow): Promise<void> {
    await this.gate.wait()
    this.statements.get(WEB_SESSION_SQL.insert).run(...insertArgs(row))
  }

  async findSession(hash: string): Promise<WebSessionState | null> {
    return (this.statements.get(WEB_SESSION_SQL.findSession).get(hash) as WebSessionState | undefined) ?? null
  }

  async redeemLink(hash: string, at: string): Promise<WebSessionRow | null> {
    await this.gate.wait()
    return (this.statements.get(WEB_SESSION_SQL.redeemLink).get(at, hash, at) as WebSessionRow | undefined) ?? null
  }

  async get(id: string): Promise<WebSessionState | null> {
    return (this.statements.get(WEB_SESSION_SQL.get).get(id) as WebSessionState | undefined) ?? null
  }

  async listSessions(principalId: string, now: string): Promise<WebSessionState[]> {
    return this.statements.get(WEB_SESSION_SQL.list).all(principalId, now) as WebSessionState[]
  }

  async touch(id: string, at: string): Promise<void> {
    // Bookkeeping only: skipped while an import holds the write lock.
    if (this.gate.busy) return
    this.statements.get(WEB_SESSION_SQL.touch).run(at, id)
  }

  async revoke(id: string, at: string): Promise<boolean> {
    await this.gate.wait()
    return this.statements.get(WEB_SESSION_SQL.revoke).run(at, id).changes > 0
  }

  async purgeExpired(at: string): Promise<number> {
    await this.gate.wait()
    return this.statements.get(WEB_SESSION_SQL.purge).run(at).changes
  }
}
