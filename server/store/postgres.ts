/**
 * @module The team server's Store driver: PostgreSQL through a node-postgres pool (postgres-db.ts), for several
 * daemons over one database. Nothing that must be shared lives in this process: every check that guards a
 * write (a version for If-Match, "no principal yet" for the owner bootstrap, "not used yet" for OAuth codes
 * and refresh tokens) is made by the database inside the write's transaction, with row locks or conditional
 * updates. Search is the shared engine over postgres-search-index.ts. One object behind the `Store`
 * interface, as sqlite.ts is; its separable groups are in postgres-*.ts.
 */
import {randomBytes} from 'node:crypto'
import type {Branch, Comment, ProjectRole} from '../../src/shared/types.js'
import {SearchEngine} from '../search/engine.js'
import {PostgresSearchIndex} from './postgres-search-index.js'
import {LOCKS, PostgresDb, type PostgresOptions, type Queryable, type Row} from './postgres-db.js'
import {IndexDelta, PostgresEntryWriter} from './postgres-entries.js'
import {PostgresIdempotencyStore} from './postgres-idempotency.js'
import {PostgresLease} from './postgres-lease.js'
import {PostgresRecallStore} from './postgres-recalls.js'
import {PostgresWebSessionStore} from './postgres-web-sessions.js'
import {PostgresIdStore} from './postgres-ids.js'
import {PostgresMembershipStore} from './postgres-membership.js'
import {PostgresHistoryStore, writeHistory} from './postgres-history.js'
import type {HistoryRow} from './history-store.js'
import {POSTGRES_MIGRATIONS} from './postgres-migrations.js'
import {PostgresOAuthStore} from './postgres-oauth.js'
import {bindPostgres as bind, postgresText} from './sql/bind.js'
import {POSTGRES} from './sql/dialect.js'
import {COMMENT_SQL, entryVersionSql, GET_ENTRY, listBranchesSql, listCommentsSql, listEntriesSql} from './sql/entries.js'
import {API_KEY_SQL, MEMBER_SQL, PRINCIPAL_SQL, PROJECT_SQL, SECRET_SQL} from './sql/principals.js'
import {branchFromRow, commentFromRow, entryFromRow} from './rows.js'
import {PostgresTransferStore} from './postgres-transfer.js'
import {PostgresTrustWriter} from './postgres-trust.js'
import type {OAuthStore} from './oauth-store.js'
import type * as S from './store.js'
import {StepFailed} from './store.js'
import type {TransferStore} from './transfer-store.js'

const PRINCIPALS_REMEMBERED = 1_000

/** Connects, applies the migrations the database lacks (once, under an advisory lock), indexes stale entries again and returns the store. */
export async function openPostgresStore(options: PostgresOptions, onError?: (e: Error) => void): Promise<PostgresStore> {
  const db = new PostgresDb(options, onError)
  try {
    await db.migrate(POSTGRES_MIGRATIONS)
    // Entries an older kb indexed (migration 3) are indexed again before the store serves searches.
    await new PostgresEntryWriter().reindexStale(db)
    // Summaries an older kb computed (migration 4: the summary item gained `freshness`) are computed again.
    await new PostgresEntryWriter().resummarizeStale(db)
  } catch (e) {
    await db.close()
    throw e
  }
  // What every request reads (its key, its principal, an entry and its project's role and settings): prepared.
  db.prepare([API_KEY_SQL.byHash, PRINCIPAL_SQL.byId, GET_ENTRY, MEMBER_SQL.role, PROJECT_SQL.byId].map(postgresText))
  return new PostgresStore(db, onError)
}

export class PostgresStore implements S.Store {
  readonly driver = 'postgres'
  readonly oauth: OAuthStore
  readonly transfer: TransferStore
  readonly idempotency: PostgresIdempotencyStore
  readonly recalls: PostgresRecallStore
  readonly web: PostgresWebSessionStore
  readonly ids: PostgresIdStore
  readonly members: PostgresMembershipStore
  readonly history: PostgresHistoryStore
  private readonly entries = new PostgresEntryWriter()
  private readonly trust = new PostgresTrustWriter()
  private readonly search: SearchEngine
  private readonly principals = new Map<string, S.PrincipalRecord>()

  private readonly lease: PostgresLease

  constructor(
    readonly db: PostgresDb,
    onError: (e: Error) => void = () => {},
  ) {
    this.lease = new PostgresLease(db, (e) => onError(e instanceof Error ? e : new Error(String(e))))
    this.search = new SearchEngine(new PostgresSearchIndex(db))
    this.oauth = new PostgresOAuthStore(db)
    this.transfer = new PostgresTransferStore(db, this.entries)
    this.idempotency = new PostgresIdempotencyStore(db, this.lease)
    this.recalls = new PostgresRecallStore(db)
    this.web = new PostgresWebSessionStore(db)
    this.ids = new PostgresIdStore(db)
    this.members = new PostgresMembershipStore(db)
    this.history = new PostgresHistoryStore(db)
  }

  async close(): Promise<void> {
    await this.lease.close()
    await this.db.close()
  }

  answers(): Promise<boolean> {
    return this.db.answers()
  }

  // ---- principals ----

  async countPrincipals(): Promise<number> {
    return (await this.db.query<{n: number}>(PRINCIPAL_SQL.count))[0]!.n
  }

  async insertPrincipal(p: S.PrincipalRecord): Promise<void> {
    await this.db.run(...bind(PRINCIPAL_SQL.insert, {...p}))
  }

  /** Under a transaction-scoped advisory lock, so two daemons starting on an empty database cannot both see it empty. */
  async bootstrapOwner(owner: S.PrincipalRecord, key: S.ApiKeyRow): Promise<boolean> {
    return this.db.tx(async (q) => {
      await q.run('SELECT pg_advisory_xact_lock($1)', [LOCKS.bootstrap])
      if ((await q.query('SELECT 1 FROM principals LIMIT 1')).length > 0) return false
      await q.run(...bind(PRINCIPAL_SQL.insert, {...owner}))
      await q.run(...bind(API_KEY_SQL.insert, {...key}))
      return true
    })
  }

  /**
   * Every authenticated request reads its principal. A principal never changes once written (no route renames
   * one or changes its role, none deletes one), so the rows found are remembered: what another daemon wrote
   * can only be a principal this one has not read yet.
   */
  async serverSecret(name: string): Promise<string> {
    await this.db.run(...bind(SECRET_SQL.insert, {name, value: randomBytes(32).toString('hex')}))
    return (await this.db.query<{value: string}>(...bind(SECRET_SQL.get, {name})))[0]!.value
  }

  async getPrincipal(id: string): Promise<S.PrincipalRecord | null> {
    const known = this.principals.get(id)
    if (known) return {...known}
    const row = (await this.db.query<S.PrincipalRecord>(...bind(PRINCIPAL_SQL.byId, {id})))[0] ?? null
    if (row) {
      if (this.principals.size >= PRINCIPALS_REMEMBERED) this.principals.clear()
      this.principals.set(id, row)
    }
    return row && {...row}
  }

  async getPrincipalByName(name: string): Promise<S.PrincipalRecord | null> {
    return (await this.db.query<S.PrincipalRecord>(...bind(PRINCIPAL_SQL.byName, {name})))[0] ?? null
  }

  // ---- API keys ----

  async insertApiKey(k: S.ApiKeyRow): Promise<void> {
    await this.db.run(...bind(API_KEY_SQL.insert, {...k}))
  }

  async findApiKeyByHash(hash: string): Promise<S.ApiKeyRow | null> {
    return (await this.db.query<S.ApiKeyRow>(...bind(API_KEY_SQL.byHash, {hash})))[0] ?? null
  }

  async listApiKeys(principalId: string): Promise<S.ApiKeyRow[]> {
    return this.db.query<S.ApiKeyRow>(...bind(API_KEY_SQL.live, {principal_id: principalId}))
  }

  async revokeApiKey(id: string, principalId: string, at: string): Promise<boolean> {
    return (await this.db.run(...bind(API_KEY_SQL.revoke, {at, id, principal_id: principalId}))) === 1
  }

  /** Only ever moves last_used_at forward: daemons touching the same key at once leave the latest time, whatever order they commit in. */
  async touchApiKey(id: string, at: string): Promise<void> {
    await this.db.run(...bind(API_KEY_SQL.touch, {at, id}))
  }

  // ---- projects ----

  async getProject(id: string): Promise<S.ProjectRow | null> {
    return (await this.db.query<S.ProjectRow>(...bind(PROJECT_SQL.byId, {id})))[0] ?? null
  }

  async getProjectByRemote(remote: string): Promise<S.ProjectRow | null> {
    return (await this.db.query<S.ProjectRow>(...bind(PROJECT_SQL.byRemote, {remote})))[0] ?? null
  }

  /** The remote's uniqueness decides between two daemons creating the same project: one inserts, the other finds it. */
  async createProject(project: S.ProjectRow): Promise<{project: S.ProjectRow; created: boolean}> {
    return this.db.tx(async (q) => {
      const inserted = await q.run(...bind(`${PROJECT_SQL.insert} ON CONFLICT (remote) DO NOTHING`, {...project}))
      if (inserted === 0) {
        const [existing] = await q.query<S.ProjectRow>(...bind(PROJECT_SQL.byRemote, {...project}))
        return {project: existing!, created: false}
      }
      await q.run(...bind(PROJECT_SQL.addCreator, {...project}))
      return {project, created: true}
    })
  }

  async updateProject(id: string, settings: S.ProjectSettings): Promise<S.ProjectRow | null> {
    if (settings.verify_after_days !== undefined)
      await this.db.run(...bind(PROJECT_SQL.setVerifyAfterDays, {verify_after_days: settings.verify_after_days, id}))
    return this.getProject(id)
  }

  async addMember(projectId: string, principalId: string, role: ProjectRole, at: string): Promise<void> {
    await this.db.run(...bind(MEMBER_SQL.add, {project_id: projectId, principal_id: principalId, role, created_at: at}))
  }

  async getMemberRole(projectId: string, principalId: string): Promise<ProjectRole | null> {
    return (
      (await this.db.query<{role: ProjectRole}>(...bind(MEMBER_SQL.role, {project_id: projectId, principal_id: principalId})))[0]?.role ??
      null
    )
  }

  async listProjects(principalId: string, page: {limit: number; after?: string}): Promise<Array<S.ProjectRow & {role: ProjectRole}>> {
    return this.db.query(...bind(PROJECT_SQL.listMine, {principal_id: principalId, after: page.after ?? '', limit: page.limit}))
  }

  // ---- entries ----

  /** A write of entries in one transaction, its search counters applied at the end (postgres-entries.ts). */
  private write<T>(work: (q: Queryable, delta: IndexDelta) => Promise<T>): Promise<T> {
    return this.db.tx(async (q) => {
      const delta = new IndexDelta()
      const result = await work(q, delta)
      await delta.flush(q)
      return result
    })
  }

  async insertEntry(e: S.EntryRow, comments: S.CommentRow[] = [], history?: HistoryRow[]): Promise<void> {
    await this.write(async (q, delta) => {
      const seq = await this.entries.insert(q, {...e, comment_count: e.comment_count + comments.length}, delta)
      for (const c of comments) await this.entries.insertComment(q, seq, c)
      await writeHistory(q, history)
    })
  }

  async getEntry(id: string): Promise<S.EntryRow | null> {
    return getEntry(this.db, id)
  }

  /** The row is locked (FOR UPDATE) before its version is compared, so of two writers expecting one version only the first succeeds. */
  async updateEntry(id: string, changes: S.EntryChanges, options: S.UpdateOptions): Promise<S.UpdateOutcome> {
    return this.write((q, delta) => this.updateIn(q, delta, id, changes, options))
  }

  async updateEntries(steps: S.UpdateStep[]): Promise<S.UpdatesOutcome> {
    try {
      return await this.write(async (q, delta): Promise<S.UpdatesOutcome> => {
        const entries: S.EntryRow[] = []
        for (const s of steps) {
          const o = await this.updateIn(q, delta, s.id, s.changes, s.options)
          // Thrown to roll back what the steps before wrote; answered below.
          if (!o.ok) throw new StepFailed({ok: false, reason: o.reason, id: s.id})
          entries.push(o.entry)
        }
        return {ok: true, entries}
      })
    } catch (e) {
      if (e instanceof StepFailed) return e.outcome
      throw e
    }
  }

  /** One update inside the caller's transaction. */
  private async updateIn(
    q: Queryable,
    delta: IndexDelta,
    id: string,
    changes: S.EntryChanges,
    options: S.UpdateOptions,
  ): Promise<S.UpdateOutcome> {
    const [current] = await q.query<{seq: number; version: number}>(...bind(entryVersionSql(POSTGRES), {id}))
    if (!current) return {ok: false, reason: 'missing'}
    if (options.expectedVersion !== undefined && current.version !== options.expectedVersion) return {ok: false, reason: 'stale'}
    await this.entries.update(q, current.seq, changes, options.at, delta)
    if (options.closeFlags) await this.trust.closeFlags(q, current.seq, id)
    await this.trust.countCorrections(q, current.seq, options.comments ?? [])
    for (const c of options.commentBodies ?? []) await q.run(...bind(COMMENT_SQL.setBody, {body: c.body, id: c.id, seq: current.seq}))
    for (const c of options.comments ?? []) await this.entries.insertComment(q, current.seq, c)
    if (options.comments?.length) await q.run(...bind(COMMENT_SQL.countMore, {n: options.comments.length, seq: current.seq}))
    await writeHistory(q, options.history)
    return {ok: true, entry: (await getEntry(q, id))!}
  }

  async updateTrust(id: string, decide: (e: S.EntryRow) => S.TrustChange): Promise<{entry: S.EntryRow; replaced: boolean} | null> {
    return this.db.tx(async (q) => {
      const [row] = await q.query<{seq: number}>(...bind(entryVersionSql(POSTGRES), {id}))
      if (!row) return null
      const current = (await getEntry(q, id))!
      const change = decide(current)
      const replaced = await this.trust.apply(q, row.seq, current, change)
      await writeHistory(q, change.history)
      return {entry: (await getEntry(q, id))!, replaced}
    })
  }

  async listFlags(entryId: string): Promise<S.FlagRow[]> {
    return this.trust.list(this.db, entryId)
  }

  async deleteEntry(id: string): Promise<boolean> {
    return this.write((q, delta) => this.entries.delete(q, id, delta))
  }

  async listEntries(viewer: S.Viewer, filter: S.EntryFilter, page: S.ListPage): Promise<S.EntryRow[]> {
    const {sql, params} = listEntriesSql(POSTGRES, viewer, filter, page)
    const rows = await this.db.query(...bind(sql, params))
    return rows.map(entryFromRow)
  }

  async searchEntries(viewer: S.Viewer, filter: S.EntryFilter, options: S.SearchOptions): Promise<S.SearchOutcome> {
    return this.search.search(viewer, filter, options)
  }

  async listBranches(parentId: string, viewer: S.Viewer): Promise<Branch[]> {
    const {sql, params} = listBranchesSql(POSTGRES, viewer, parentId)
    const rows = await this.db.query(...bind(sql, params))
    return rows.map(branchFromRow)
  }

  // ---- comments ----

  /** The entry's row is updated (and so locked) first: comments on one entry are counted one at a time. */
  async addComment(c: S.CommentRow, history?: HistoryRow[]): Promise<{comment: Comment; entry: S.EntryRow} | null> {
    return this.db.tx(async (q) => {
      // A comment is no change of the entry's content: its version and updated_at stay (docs/api.md, "Versions").
      const [entry] = await q.query<{seq: number}>(...bind(COMMENT_SQL.count, {id: c.entry_id}))
      if (!entry) return null
      if (!(await this.entries.insertComment(q, entry.seq, c))) throw new Error(`comment ${c.id} exists`)
      await this.trust.countCorrections(q, entry.seq, [c])
      await writeHistory(q, history)
      const [author] = await q.query<{name: string}>(...bind(PRINCIPAL_SQL.name, {id: c.author_id}))
      return {comment: commentFromRow({...c, author_name: author!.name}), entry: (await getEntry(q, c.entry_id))!}
    })
  }

  /** Ties in created_at (one millisecond) keep the order of writing: `n`, found again from the position's id. */
  async listComments(entryId: string, page: S.CommentPage): Promise<Comment[]> {
    const {sql, params} = listCommentsSql(POSTGRES, entryId, page)
    const rows = await this.db.query<Row>(...bind(sql, params))
    if (page.newest) rows.reverse()
    return rows.map(commentFromRow)
  }
}

async function getEntry(q: Queryable, id: string): Promise<S.EntryRow | null> {
  const [row] = await q.query(...bind(GET_ENTRY, {id}))
  return row ? entryFromRow(row) : null
}
