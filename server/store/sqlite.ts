/**
 * @module The embedded Store driver: SQLite through better-sqlite3, WAL with synchronous=FULL (a write
 * that returned is on disk), FTS5 for search (the engine in server/search/), versioned migrations.
 * The `Store` interface is one object the services hold; what stands alone has its own module (the entry
 * writer `sqlite-entries.ts`, `sqlite-oauth.ts`,
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
import {StatementCache} from './sqlite-rows.js'
import {SQLITE} from './sql/dialect.js'
import {COMMENT_SQL, entryVersionSql, GET_ENTRY, listBranchesSql, listCommentsSql, listEntriesSql} from './sql/entries.js'
import {API_KEY_SQL, MEMBER_SQL, PRINCIPAL_SQL, PROJECT_SQL, SECRET_SQL} from './sql/principals.js'
import {branchFromRow, commentFromRow, entryFromRow, trustFromRow, type Row} from './rows.js'
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

/** The memory map over the database file (see the constructor). */
const MMAP_BYTES = 256 * 1024 * 1024

const REMEMBERED_MAX = 1_000

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
    // id at 100k entries (320 MB) went from 25–30 µs to 16 µs of CPU. 256 MiB, not more: the mapped pages
    // count in the daemon's resident memory, which stays under 600 MB at a million entries (docs/performance.md,
    // "A million entries"); pages past the map are read from the OS page cache.
    this.db.pragma(`mmap_size = ${MMAP_BYTES}`)
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
    return (this.stmt(PRINCIPAL_SQL.count).get() as {n: number}).n
  }

  async insertPrincipal(p: PrincipalRecord): Promise<void> {
    await this.gate.wait()
    this.stmt(PRINCIPAL_SQL.insert).run(p)
  }

  async bootstrapOwner(owner: PrincipalRecord, key: ApiKeyRow): Promise<boolean> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        if ((this.stmt(PRINCIPAL_SQL.count).get() as {n: number}).n > 0) return false
        this.stmt(PRINCIPAL_SQL.insert).run(owner)
        this.stmt(API_KEY_SQL.insert).run(key)
        return true
      })
      .immediate()
  }

  async serverSecret(name: string): Promise<string> {
    this.stmt(SECRET_SQL.insert).run({name, value: randomBytes(32).toString('hex')})
    return (this.stmt(SECRET_SQL.get).get({name}) as {value: string}).value
  }

  async getPrincipal(id: string): Promise<PrincipalRecord | null> {
    return this.remembered(`principal:${id}`, () => (this.stmt(PRINCIPAL_SQL.byId).get({id}) as PrincipalRecord | undefined) ?? null)
  }

  async getPrincipalByName(name: string): Promise<PrincipalRecord | null> {
    return (this.stmt(PRINCIPAL_SQL.byName).get({name}) as PrincipalRecord | undefined) ?? null
  }

  // ---- API keys ----

  async insertApiKey(k: ApiKeyRow): Promise<void> {
    await this.gate.wait()
    this.stmt(API_KEY_SQL.insert).run(k)
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRow | null> {
    return this.remembered(`key:${hash}`, () => (this.stmt(API_KEY_SQL.byHash).get({hash}) as ApiKeyRow | undefined) ?? null)
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
    return this.stmt(API_KEY_SQL.live).all({principal_id: principalId}) as ApiKeyRow[]
  }

  async revokeApiKey(id: string, principalId: string, at: string): Promise<boolean> {
    await this.gate.wait()
    return this.stmt(API_KEY_SQL.revoke).run({at, id, principal_id: principalId}).changes === 1
  }

  async touchApiKey(id: string, at: string): Promise<void> {
    // Bookkeeping only: skipped while an import holds the write lock, done on a later request.
    if (this.gate.busy) return
    this.stmt(API_KEY_SQL.touch).run({at, id})
  }

  // ---- projects ----

  async getProject(id: string): Promise<ProjectRow | null> {
    return (this.stmt(PROJECT_SQL.byId).get({id}) as ProjectRow | undefined) ?? null
  }

  async getProjectByRemote(remote: string): Promise<ProjectRow | null> {
    return (this.stmt(PROJECT_SQL.byRemote).get({remote}) as ProjectRow | undefined) ?? null
  }

  async createProject(project: ProjectRow): Promise<{project: ProjectRow; created: boolean}> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        const existing = this.stmt(PROJECT_SQL.byRemote).get(project) as ProjectRow | undefined
        if (existing) return {project: existing, created: false}
        this.stmt(PROJECT_SQL.insert).run(project)
        this.stmt(PROJECT_SQL.addCreator).run(project)
        return {project, created: true}
      })
      .immediate()
  }

  async updateProject(id: string, settings: ProjectSettings): Promise<ProjectRow | null> {
    await this.gate.wait()
    if (settings.verify_after_days !== undefined)
      this.stmt(PROJECT_SQL.setVerifyAfterDays).run({verify_after_days: settings.verify_after_days, id})
    return this.getProject(id)
  }

  async addMember(projectId: string, principalId: string, role: ProjectRole, at: string): Promise<void> {
    await this.gate.wait()
    this.stmt(MEMBER_SQL.add).run({project_id: projectId, principal_id: principalId, role, created_at: at})
  }

  async getMemberRole(projectId: string, principalId: string): Promise<ProjectRole | null> {
    const row = this.stmt(MEMBER_SQL.role).get({project_id: projectId, principal_id: principalId}) as {role: ProjectRole} | undefined
    return row?.role ?? null
  }

  async listProjects(principalId: string, page: {limit: number; after?: string}): Promise<Array<ProjectRow & {role: ProjectRole}>> {
    return this.stmt(PROJECT_SQL.listMine).all({principal_id: principalId, after: page.after ?? '', limit: page.limit}) as Array<
      ProjectRow & {role: ProjectRole}
    >
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
    const current = this.stmt(entryVersionSql(SQLITE)).get({id}) as {seq: number; version: number} | undefined
    if (!current) return {ok: false, reason: 'missing'}
    if (options.expectedVersion !== undefined && current.version !== options.expectedVersion) {
      return {ok: false, reason: 'stale'}
    }
    this.entries.update(current.seq, changes, options.at)
    if (options.closeFlags) this.trust.closeFlags(current.seq, id)
    this.trust.countCorrections(current.seq, options.comments ?? [])
    for (const c of options.commentBodies ?? []) this.stmt(COMMENT_SQL.setBody).run({body: c.body, id: c.id, seq: current.seq})
    for (const c of options.comments ?? []) this.entries.insertComment(current.seq, c)
    if (options.comments?.length) this.stmt(COMMENT_SQL.countMore).run({n: options.comments.length, seq: current.seq})
    this.history.write(options.history)
    return {ok: true, entry: this.getEntrySync(id)!}
  }

  /** One entry by id. Rows come as arrays (`raw()`): better-sqlite3 builds a 20-key object per row ~4 µs slower. */
  private getEntrySync(id: string): EntryRow | null {
    const row = this.statements.raw(GET_ENTRY).get({id}) as unknown[] | undefined
    return row ? fromRaw(row) : null
  }

  async updateTrust(id: string, decide: (e: EntryRow) => TrustChange): Promise<{entry: EntryRow; replaced: boolean} | null> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        const seq = (this.stmt(entryVersionSql(SQLITE)).get({id}) as {seq: number} | undefined)?.seq
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
    const {sql, params} = listEntriesSql(SQLITE, viewer, filter, page)
    const rows = this.stmt(sql).all(params) as Row[]
    return rows.map(entryFromRow)
  }

  /** The shared search engine (server/search/engine.ts) over FTS5 (sqlite-search-index.ts). */
  async searchEntries(viewer: Viewer, filter: EntryFilter, options: SearchOptions): Promise<SearchOutcome> {
    return this.search.search(viewer, filter, options)
  }

  async listBranches(parentId: string, viewer: Viewer): Promise<Branch[]> {
    const {sql, params} = listBranchesSql(SQLITE, viewer, parentId)
    const rows = this.stmt(sql).all(params) as Row[]
    return rows.map(branchFromRow)
  }

  // ---- comments ----

  async addComment(c: CommentRow, history?: HistoryRow[]): Promise<{comment: Comment; entry: EntryRow} | null> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        // A comment is no change of the entry's content: its version and updated_at stay (docs/api.md, "Versions").
        const entry = this.stmt(COMMENT_SQL.count).get({id: c.entry_id}) as {seq: number} | undefined
        if (!entry) return null
        this.entries.insertComment(entry.seq, c)
        this.trust.countCorrections(entry.seq, [c])
        this.history.write(history)
        const author = this.stmt(PRINCIPAL_SQL.name).get({id: c.author_id}) as {name: string}
        return {comment: commentFromRow({...c, author_name: author.name}), entry: this.getEntrySync(c.entry_id)!}
      })
      .immediate()
  }

  async listComments(entryId: string, page: CommentPage): Promise<Comment[]> {
    const {sql, params} = listCommentsSql(SQLITE, entryId, page)
    const rows = this.stmt(sql).all(params) as Row[]
    if (page.newest) rows.reverse()
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
