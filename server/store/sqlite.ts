/**
 * @module The embedded Store driver: SQLite through better-sqlite3, WAL with synchronous=FULL (a write
 * that returned is on disk), FTS5 for search (the engine in server/search/), versioned migrations.
 * Longer than our ~350 lines on purpose: the `Store` interface is one object the services hold, and what
 * stands alone already has its own module (the entry writer `sqlite-entries.ts`, `sqlite-oauth.ts`,
 * `sqlite-transfer.ts`, `sqlite-import.ts`, `sqlite-idempotency.ts`, `sqlite-migrations.ts`, `sqlite-rows.ts`);
 * what is left is the connection's life and one short method per Store call.
 */
import {randomBytes} from 'node:crypto'
import {chmodSync, closeSync, openSync} from 'node:fs'
import Database from 'better-sqlite3'
import type {Branch, Comment, ProjectRole, Resolution, ThoughtStep} from '../../src/shared/types.js'
import {SearchEngine} from '../search/engine.js'
import {SqliteSearchIndex} from './sqlite-search-index.js'
import {indexText, tagsText} from '../search/tokenizer.js'
import {inVocabulary, reversed} from '../search/vocabulary.js'
import {summarize} from '../../src/shared/summary.js'
import {SqliteEntryWriter} from './sqlite-entries.js'
import {SqliteTrustWriter} from './sqlite-trust.js'
import {SQLITE_MIGRATIONS} from './sqlite-migrations.js'
import {ENTRY_COLUMNS, filterSql, StatementCache} from './sqlite-rows.js'
import {commentFromRow, entryFromRow, trustFromRow, type Row} from './rows.js'
import {SqliteIdempotencyStore} from './sqlite-idempotency.js'
import {SqliteRecallStore} from './sqlite-recalls.js'
import {SqliteWebSessionStore} from './sqlite-web-sessions.js'
import {SqliteIdStore} from './sqlite-ids.js'
import {SqliteMembershipStore} from './sqlite-membership.js'
import {SqliteHistoryStore} from './sqlite-history.js'
import type {HistoryRow} from './history-store.js'
import {SqliteOAuthStore} from './sqlite-oauth.js'
import {SqliteTransferStore} from './sqlite-transfer.js'
import {WriteGate} from './write-gate.js'
import type {OAuthStore} from './oauth-store.js'
import type {
  ApiKeyRow,
  CommentPage,
  CommentRow,
  EntryChanges,
  EntryFilter,
  EntryRow,
  FlagRow,
  ListPage,
  PrincipalRecord,
  ProjectRow,
  ProjectSettings,
  SearchOptions,
  SearchOutcome,
  Store,
  TrustChange,
  UpdateOptions,
  UpdateOutcome,
  UpdatesOutcome,
  UpdateStep,
  Viewer,
} from './store.js'
import {StepFailed} from './store.js'
import type {TransferStore} from './transfer-store.js'

const GET_ENTRY_SQL = `SELECT ${ENTRY_COLUMNS} FROM entries e JOIN principals p ON p.id = e.author_id WHERE e.id = ?`
const REMEMBERED_MAX = 1_000
const INSERT_PRINCIPAL = 'INSERT INTO principals (id, name, role, created_at) VALUES (@id, @name, @role, @created_at)'
const INSERT_API_KEY = `INSERT INTO api_keys (id, principal_id, name, prefix, hash, project_id, created_at, expires_at, last_used_at, revoked_at)
  VALUES (@id, @principal_id, @name, @prefix, @hash, @project_id, @created_at, @expires_at, @last_used_at, @revoked_at)`

export interface SqliteOptions {
  /** Path of the database file, or ':memory:'. */
  path: string
}

export function openSqliteStore(options: SqliteOptions): SqliteStore {
  return new SqliteStore(options.path)
}

export class SqliteStore implements Store {
  readonly driver = 'sqlite'
  readonly db: Database.Database
  readonly oauth: OAuthStore
  readonly transfer: TransferStore
  readonly idempotency: SqliteIdempotencyStore
  readonly recalls: SqliteRecallStore
  readonly web: SqliteWebSessionStore
  readonly ids: SqliteIdStore
  readonly members: SqliteMembershipStore
  readonly history: SqliteHistoryStore
  private readonly statements: StatementCache
  private readonly entries: SqliteEntryWriter
  private readonly trust: SqliteTrustWriter
  private readonly search: SearchEngine
  private readonly searchIndex: SqliteSearchIndex
  /** Other writes wait here while an import holds SQLite's write lock on a connection of its own (write-gate.ts). */
  private readonly gate = new WriteGate()
  private readonly rememberedRows = new Map<string, object | null>()
  private rememberedAt = -1

  constructor(path: string) {
    // The file holds key hashes and private entries: create it owner-only (SQLite gives its -wal and
    // -shm files the same mode), whatever the umask or the directory's mode.
    if (path !== ':memory:' && path !== '') {
      closeSync(openSync(path, 'a', 0o600))
      chmodSync(path, 0o600)
    }
    this.db = new Database(path)
    this.db.pragma('journal_mode = WAL')
    this.db.pragma('synchronous = FULL')
    this.db.pragma('foreign_keys = ON')
    this.db.pragma('busy_timeout = 5000')
    // Reads through a memory map instead of a read() per page missing from SQLite's 2 MB cache: a get by
    // id at 100k entries (320 MB) went from 25–30 µs to 16 µs of CPU (docs/performance.md).
    this.db.pragma('mmap_size = 1073741824')
    // The search tokenizer for migrations that rebuild the index and its vocabulary (4, 7): FTS5 cannot call it.
    this.db.function('kb_reverse', {deterministic: true}, (term) => reversed(String(term)))
    this.db.function('kb_index_text', {deterministic: true}, (text) => indexText(String(text)))
    this.db.function('kb_index_tags', {deterministic: true}, (tags) => indexText(tagsText(JSON.parse(String(tags)) as string[])))
    // Summaries computed again when what the summary item holds changes (migration 8): title or body of one call.
    // A fifth argument, the entry's superseded_by, leaves room for it in the item as every write does (docs/api.md,
    // "Supersede"); migration 8 ran before entries could be superseded, a later recompute must pass it.
    this.db.function('kb_summary', {deterministic: true, varargs: true}, (id, title, body, part, supersededBy) => {
      const by = supersededBy === undefined || supersededBy === null ? null : String(supersededBy)
      const s = summarize(String(id), String(title), String(body), by)
      return part === 'title' ? s.title : s.body
    })
    this.db.function('kb_in_vocabulary', {deterministic: true}, (term) => (inVocabulary(String(term)) ? 1 : 0))
    this.migrate()
    this.statements = new StatementCache(this.db)
    this.entries = new SqliteEntryWriter(this.statements)
    this.trust = new SqliteTrustWriter(this.statements)
    this.searchIndex = new SqliteSearchIndex(this.statements)
    this.search = new SearchEngine(this.searchIndex)
    this.oauth = new SqliteOAuthStore(this.db, this.gate)
    this.history = new SqliteHistoryStore(this.db, this.gate)
    this.transfer = new SqliteTransferStore(this.db, this.statements, this.entries, this.gate, () => this.forgetRemembered(), this.history)
    this.idempotency = new SqliteIdempotencyStore(this.db, this.gate)
    // One daemon per SQLite store (the data directory's lock): a claim still unanswered when it opens was made by
    // a daemon that died mid-request (SIGKILL during an import), so its key is free again at once
    // (docs/api.md, "Idempotency"), not "in use" for the five minutes after which a claim counts as abandoned.
    this.db.prepare('DELETE FROM idempotency_keys WHERE status IS NULL').run()
    this.recalls = new SqliteRecallStore(this.db, this.gate)
    this.web = new SqliteWebSessionStore(this.db, this.gate)
    this.ids = new SqliteIdStore(this.statements)
    this.members = new SqliteMembershipStore(this.db, this.gate)
  }

  /** Runs every migration newer than the file's `user_version`, each in its own transaction. */
  private migrate(): void {
    const current = this.db.pragma('user_version', {simple: true}) as number
    if (current > SQLITE_MIGRATIONS.length) {
      throw new Error(`the database was written by a newer kb (schema ${current}, this kb knows ${SQLITE_MIGRATIONS.length}); upgrade kb`)
    }
    for (let v = current; v < SQLITE_MIGRATIONS.length; v++) {
      this.db.transaction(() => {
        this.db.exec(SQLITE_MIGRATIONS[v]!)
        this.db.pragma(`user_version = ${v + 1}`)
      })()
    }
  }

  get schemaVersion(): number {
    return this.db.pragma('user_version', {simple: true}) as number
  }

  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql)
  }

  async answers(): Promise<boolean> {
    try {
      return this.stmt('SELECT 1').pluck().get() === 1
    } catch {
      return false
    }
  }

  async close(): Promise<void> {
    if (this.db.open) {
      try {
        this.db.pragma('wal_checkpoint(TRUNCATE)')
      } catch {
        // a checkpoint is an optimisation; closing still flushes what matters
      }
      this.db.close()
    }
  }

  // ---- principals ----

  async countPrincipals(): Promise<number> {
    return (this.stmt('SELECT count(*) AS n FROM principals').get() as {n: number}).n
  }

  async insertPrincipal(p: PrincipalRecord): Promise<void> {
    await this.gate.wait()
    this.stmt(INSERT_PRINCIPAL).run(p)
  }

  async bootstrapOwner(owner: PrincipalRecord, key: ApiKeyRow): Promise<boolean> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        if ((this.stmt('SELECT count(*) AS n FROM principals').get() as {n: number}).n > 0) return false
        this.stmt(INSERT_PRINCIPAL).run(owner)
        this.stmt(INSERT_API_KEY).run(key)
        return true
      })
      .immediate()
  }

  async serverSecret(name: string): Promise<string> {
    this.stmt('INSERT INTO server_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING').run(
      name,
      randomBytes(32).toString('hex'),
    )
    return (this.stmt('SELECT value FROM server_secrets WHERE name = ?').get(name) as {value: string}).value
  }

  async getPrincipal(id: string): Promise<PrincipalRecord | null> {
    return this.remembered(
      `principal:${id}`,
      () => (this.stmt('SELECT id, name, role, created_at FROM principals WHERE id = ?').get(id) as PrincipalRecord | undefined) ?? null,
    )
  }

  async getPrincipalByName(name: string): Promise<PrincipalRecord | null> {
    return (this.stmt('SELECT id, name, role, created_at FROM principals WHERE name = ?').get(name) as PrincipalRecord | undefined) ?? null
  }

  // ---- API keys ----

  async insertApiKey(k: ApiKeyRow): Promise<void> {
    await this.gate.wait()
    this.stmt(INSERT_API_KEY).run(k)
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRow | null> {
    return this.remembered(
      `key:${hash}`,
      () => (this.stmt('SELECT * FROM api_keys WHERE hash = ?').get(hash) as ApiKeyRow | undefined) ?? null,
    )
  }

  /**
   * Every authenticated request reads its key and principal; each read is a WAL read transaction of its
   * own (about half the cost of a GET /knowledge/:id besides HTTP). Rows are remembered until this
   * connection next changes anything (`total_changes()`), which is exact while the daemon is the only
   * writer — the data directory's lock makes sure of that. Callers get copies.
   */
  private remembered<T extends object>(key: string, read: () => T | null): T | null {
    // Inside a transaction a row may yet be rolled back, which total_changes() would not show.
    if (this.db.inTransaction) return read()
    const changes = this.stmt('SELECT total_changes()').pluck().get() as number
    if (changes !== this.rememberedAt) {
      this.rememberedRows.clear()
      this.rememberedAt = changes
    }
    let row = this.rememberedRows.get(key) as T | null | undefined
    if (row === undefined) {
      row = read()
      if (this.rememberedRows.size >= REMEMBERED_MAX) this.rememberedRows.clear()
      this.rememberedRows.set(key, row)
    }
    return row === null ? null : {...row}
  }

  /** Forgets remembered rows and cached counts: another connection (an import) committed, which total_changes() does not show. */
  private forgetRemembered(): void {
    this.rememberedRows.clear()
    this.searchIndex.forgetCounts()
  }

  async listApiKeys(principalId: string): Promise<ApiKeyRow[]> {
    return this.stmt('SELECT * FROM api_keys WHERE principal_id = ? AND revoked_at IS NULL ORDER BY created_at, id').all(
      principalId,
    ) as ApiKeyRow[]
  }

  async revokeApiKey(id: string, principalId: string, at: string): Promise<boolean> {
    await this.gate.wait()
    return (
      this.stmt('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND principal_id = ? AND revoked_at IS NULL').run(at, id, principalId)
        .changes === 1
    )
  }

  async touchApiKey(id: string, at: string): Promise<void> {
    // Bookkeeping only: skipped while an import holds the write lock, done on a later request.
    if (this.gate.busy) return
    this.stmt('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(at, id)
  }

  // ---- projects ----

  async getProject(id: string): Promise<ProjectRow | null> {
    return (this.stmt('SELECT * FROM projects WHERE id = ?').get(id) as ProjectRow | undefined) ?? null
  }

  async getProjectByRemote(remote: string): Promise<ProjectRow | null> {
    return (this.stmt('SELECT * FROM projects WHERE remote = ?').get(remote) as ProjectRow | undefined) ?? null
  }

  async createProject(project: ProjectRow): Promise<{project: ProjectRow; created: boolean}> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        const existing = this.stmt('SELECT * FROM projects WHERE remote = ?').get(project.remote) as ProjectRow | undefined
        if (existing) return {project: existing, created: false}
        this.stmt(
          `INSERT INTO projects (id, name, remote, created_by, created_at, verify_after_days)
          VALUES (@id, @name, @remote, @created_by, @created_at, @verify_after_days)`,
        ).run(project)
        this.stmt(`INSERT INTO memberships (project_id, principal_id, role, created_at) VALUES (?, ?, 'maintainer', ?)`).run(
          project.id,
          project.created_by,
          project.created_at,
        )
        return {project, created: true}
      })
      .immediate()
  }

  async updateProject(id: string, settings: ProjectSettings): Promise<ProjectRow | null> {
    await this.gate.wait()
    if (settings.verify_after_days !== undefined)
      this.stmt('UPDATE projects SET verify_after_days = ? WHERE id = ?').run(settings.verify_after_days, id)
    return this.getProject(id)
  }

  async addMember(projectId: string, principalId: string, role: ProjectRole, at: string): Promise<void> {
    await this.gate.wait()
    this.stmt('INSERT OR IGNORE INTO memberships (project_id, principal_id, role, created_at) VALUES (?, ?, ?, ?)').run(
      projectId,
      principalId,
      role,
      at,
    )
  }

  async getMemberRole(projectId: string, principalId: string): Promise<ProjectRole | null> {
    const row = this.stmt('SELECT role FROM memberships WHERE project_id = ? AND principal_id = ?').get(projectId, principalId) as
      {role: ProjectRole} | undefined
    return row?.role ?? null
  }

  async listProjects(principalId: string, page: {limit: number; after?: string}): Promise<Array<ProjectRow & {role: ProjectRole}>> {
    return this.stmt(
      `SELECT p.*, m.role FROM memberships m JOIN projects p ON p.id = m.project_id
      WHERE m.principal_id = ? AND p.id > ? ORDER BY p.id LIMIT ?`,
    ).all(principalId, page.after ?? '', page.limit) as Array<ProjectRow & {role: ProjectRole}>
  }

  // ---- entries ----

  async insertEntry(e: EntryRow, comments: CommentRow[] = [], history?: HistoryRow[]): Promise<void> {
    await this.gate.wait()
    // The entry's typo-tolerance vocabulary (derived, INSERT OR IGNORE) follows its transaction in slices: a body of
    // 100,000 characters of distinct words brings ~11,000 terms, ~70 ms in one turn (docs/performance.md, "Hostile").
    const terms: string[] = (this.entries.deferredTerms = [])
    try {
      this.db
        .transaction(() => {
          const seq = this.entries.insert({...e, comment_count: e.comment_count + comments.length})
          for (const c of comments) this.entries.insertComment(seq, c)
          this.history.write(history)
        })
        .immediate()
    } finally {
      this.entries.deferredTerms = null
    }
    await this.entries.addTermsInSlices(this.db, terms)
  }

  async getEntry(id: string): Promise<EntryRow | null> {
    return this.getEntrySync(id)
  }

  async updateEntry(id: string, changes: EntryChanges, options: UpdateOptions): Promise<UpdateOutcome> {
    await this.gate.wait()
    return this.db.transaction(() => this.updateSync(id, changes, options)).immediate()
  }

  async updateEntries(steps: UpdateStep[]): Promise<UpdatesOutcome> {
    await this.gate.wait()
    try {
      return this.db
        .transaction((): UpdatesOutcome => {
          const entries: EntryRow[] = []
          for (const s of steps) {
            const o = this.updateSync(s.id, s.changes, s.options)
            // Thrown to roll back what the steps before wrote; answered below.
            if (!o.ok) throw new StepFailed({ok: false, reason: o.reason, id: s.id})
            entries.push(o.entry)
          }
          return {ok: true, entries}
        })
        .immediate()
    } catch (e) {
      if (e instanceof StepFailed) return e.outcome
      throw e
    }
  }

  /** One update; the caller holds the transaction. */
  private updateSync(id: string, changes: EntryChanges, options: UpdateOptions): UpdateOutcome {
    const current = this.stmt('SELECT seq, version FROM entries WHERE id = ?').get(id) as {seq: number; version: number} | undefined
    if (!current) return {ok: false, reason: 'missing'}
    if (options.expectedVersion !== undefined && current.version !== options.expectedVersion) {
      return {ok: false, reason: 'stale'}
    }
    this.entries.update(current.seq, changes, options.at)
    if (options.closeFlags) this.trust.closeFlags(current.seq, id)
    this.trust.countCorrections(current.seq, options.comments ?? [])
    for (const c of options.commentBodies ?? [])
      this.stmt('UPDATE comments SET body = ? WHERE id = ? AND entry_seq = ?').run(c.body, c.id, current.seq)
    for (const c of options.comments ?? []) this.entries.insertComment(current.seq, c)
    if (options.comments?.length)
      this.stmt('UPDATE entries SET comment_count = comment_count + ? WHERE seq = ?').run(options.comments.length, current.seq)
    this.history.write(options.history)
    return {ok: true, entry: this.getEntrySync(id)!}
  }

  /** One entry by id. Rows come as arrays (`raw()`): better-sqlite3 builds a 20-key object per row ~4 µs slower. */
  private getEntrySync(id: string): EntryRow | null {
    const row = this.statements.raw(GET_ENTRY_SQL).get(id) as unknown[] | undefined
    return row ? fromRaw(row) : null
  }

  async updateTrust(id: string, decide: (e: EntryRow) => TrustChange): Promise<{entry: EntryRow; replaced: boolean} | null> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        const seq = this.stmt('SELECT seq FROM entries WHERE id = ?').pluck().get(id) as number | undefined
        if (seq === undefined) return null
        const current = this.getEntrySync(id)!
        const change = decide(current)
        const replaced = this.trust.apply(seq, current, change)
        this.history.write(change.history)
        return {entry: this.getEntrySync(id)!, replaced}
      })
      .immediate()
  }

  async listFlags(entryId: string): Promise<FlagRow[]> {
    return this.trust.list(entryId)
  }

  async deleteEntry(id: string): Promise<boolean> {
    await this.gate.wait()
    return this.db.transaction(() => this.entries.delete(id)).immediate()
  }

  async listEntries(viewer: Viewer, filter: EntryFilter, page: ListPage): Promise<EntryRow[]> {
    const {where, params} = filterSql(viewer, filter)
    if (page.after) {
      where.push('(e.updated_at < @after_u OR (e.updated_at = @after_u AND e.id < @after_id))')
      params.after_u = page.after.updated_at
      params.after_id = page.after.id
    }
    params.limit = page.limit
    const rows = this.stmt(
      `SELECT ${ENTRY_COLUMNS} FROM entries e JOIN principals p ON p.id = e.author_id
      WHERE ${where.join(' AND ')} ORDER BY e.updated_at DESC, e.id DESC LIMIT @limit`,
    ).all(params) as Row[]
    return rows.map(entryFromRow)
  }

  /** The shared search engine (server/search/engine.ts) over FTS5 (sqlite-search-index.ts). */
  async searchEntries(viewer: Viewer, filter: EntryFilter, options: SearchOptions): Promise<SearchOutcome> {
    return this.search.search(viewer, filter, options)
  }

  async listBranches(parentId: string, viewer: Viewer): Promise<Branch[]> {
    const {where, params} = filterSql(viewer, {includeSuperseded: true})
    params.parent = parentId
    const rows = this.stmt(
      `SELECT e.id, e.title, e.scope, e.author_id, p.name AS author_name, e.created_at
      FROM entries e JOIN principals p ON p.id = e.author_id
      WHERE e.forked_from = @parent AND ${where.join(' AND ')} ORDER BY e.created_at, e.id`,
    ).all(params) as Row[]
    return rows.map((r) => ({
      id: r.id as string,
      title: r.title as string,
      scope: r.scope as Branch['scope'],
      author: {id: r.author_id as string, name: r.author_name as string},
      created_at: r.created_at as string,
    }))
  }

  // ---- comments ----

  async addComment(c: CommentRow, history?: HistoryRow[]): Promise<{comment: Comment; entry: EntryRow} | null> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        const entry = this.stmt('SELECT seq FROM entries WHERE id = ?').get(c.entry_id) as {seq: number} | undefined
        if (!entry) return null
        this.entries.insertComment(entry.seq, c)
        // A comment is no change of the entry's content: its version and updated_at stay (docs/api.md, "Versions").
        this.stmt('UPDATE entries SET comment_count = comment_count + 1 WHERE seq = ?').run(entry.seq)
        this.trust.countCorrections(entry.seq, [c])
        this.history.write(history)
        const author = this.stmt('SELECT name FROM principals WHERE id = ?').get(c.author_id) as {name: string}
        const comment: Comment = {
          id: c.id,
          body: c.body,
          type: c.type,
          author: {id: c.author_id, name: author.name},
          created_at: c.created_at,
        }
        return {comment, entry: this.getEntrySync(c.entry_id)!}
      })
      .immediate()
  }

  async listComments(entryId: string, page: CommentPage): Promise<Comment[]> {
    const select = `SELECT c.id, c.body, c.type, c.author_id, p.name AS author_name, c.created_at
      FROM comments c JOIN entries e ON e.seq = c.entry_seq JOIN principals p ON p.id = c.author_id WHERE e.id = @entry`
    let rows: Row[]
    // Ties in created_at (one millisecond) keep the order of writing: rowid, found again from the position's id.
    if (page.newest) {
      rows = (
        this.stmt(`${select} ORDER BY c.created_at DESC, c.rowid DESC LIMIT @limit`).all({entry: entryId, limit: page.limit}) as Row[]
      ).reverse()
    } else if (page.after) {
      rows = this.stmt(
        `${select} AND (c.created_at, c.rowid) > (@at, (SELECT rowid FROM comments WHERE id = @id)) ORDER BY c.created_at, c.rowid LIMIT @limit`,
      ).all({entry: entryId, at: page.after.created_at, id: page.after.id, limit: page.limit}) as Row[]
    } else {
      rows = this.stmt(`${select} ORDER BY c.created_at, c.rowid LIMIT @limit`).all({entry: entryId, limit: page.limit}) as Row[]
    }
    return rows.map(commentFromRow)
  }
}

/** fromDb for a row of ENTRY_COLUMNS read with `raw()`, by position. */
function fromRaw(r: unknown[]): EntryRow {
  return {
    id: r[1] as string,
    title: r[2] as string,
    body: r[3] as string,
    summary: r[4] as string,
    summary_title: r[5] as string,
    scope: r[6] as EntryRow['scope'],
    project_id: (r[7] as string | null) ?? null,
    tags: JSON.parse(r[8] as string) as string[],
    url: (r[9] as string | null) ?? null,
    status: r[10] as EntryRow['status'],
    resolution: r[11] ? (JSON.parse(r[11] as string) as Resolution) : null,
    thought_chain: JSON.parse(r[12] as string) as ThoughtStep[],
    forked_from: (r[13] as string | null) ?? null,
    author: {id: r[14] as string, name: r[15] as string},
    created_at: r[16] as string,
    updated_at: r[17] as string,
    version: r[18] as number,
    comment_count: r[19] as number,
    ...trustFromRow(...r.slice(20, 27)),
    superseded_by: (r[27] as string | null) ?? null,
    retrieved: r[28] as number,
    last_retrieved_at: (r[29] as string | null) ?? null,
  }
}
