/**
 * @module The PostgreSQL side of `Store.web` (table `web_sessions`): the statements of web-session-store.ts with their
 * placeholders numbered. Redeeming a link is one conditional update, so of two daemons only one redeems it.
 */
import {numbered} from './postgres-rows.js'
import type {PostgresDb} from './postgres-db.js'
import {insertArgs, WEB_SESSION_SQL, type WebSessionRow, type WebSessionState, type WebSessionStore} from './web-session-store.js'

export class PostgresWebSessionStore implements WebSessionStore {
  constructor(private readonly db: PostgresDb) {}

  async insert(row: WebSessionRow): Promise<void> {
    await this.db.run(numbered(WEB_SESSION_SQL.insert), insertArgs(row))
  }

  async findSession(hash: string): Promise<WebSessionState | null> {
    return (await this.db.query<WebSessionState>(numbered(WEB_SESSION_SQL.findSession), [hash]))[0] ?? null
  }

  async redeemLink(hash: string, at: string): Promise<WebSessionRow | null> {
    return (await this.db.query<WebSessionRow>(numbered(WEB_SESSION_SQL.redeemLink), [at, hash, at]))[0] ?? null
  }

  async get(id: string): Promise<WebSessionState | null> {
    return (await this.db.query<WebSessionState>(numbered(WEB_SESSION_SQL.get), [id]))[0] ?? null
  }

  async listSessions(principalId: string, now: string): Promise<WebSessionState[]> {
    return this.db.query<WebSessionState>(numbered(WEB_SESSION_SQL.list), [principalId, now])
  }

  async touch(id: string, at: string): Promise<void> {
    await this.db.run(numbered(WEB_SESSION_SQL.touch), [at, id])
  }

  async revoke(id: string, at: string): Promise<boolean> {
    return (await this.db.run(numbered(WEB_SESSION_SQL.revoke), [at, id])) > 0
  }

  async purgeExpired(at: string): Promise<number> {
    return this.db.run(numbered(WEB_SESSION_SQL.purge), [at])
  }
}
