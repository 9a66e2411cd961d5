/**
 * @module The embedded Store driver: SQLite through better-sqlite3, WAL with synchronous=FULL (a write
 * that returned is on disk), FTS5 with Porter stemming for search, versioned migrations.
 */
import Database from 'better-sqlite3'
import type {Branch, Comment, Resolution, ThoughtStep} from '../../src/api/types.js'
import {SQLITE_MIGRATIONS} from './sqlite-migrations.js'
import {SqliteOAuthStore} from './sqlite-oauth.js'
import {rankTerms, typoCandidates} from './search-terms.js'
import type {
  ApiKeyRow, CommentRow, EntryChanges, EntryFilter, EntryRow, ListPage, PrincipalRecord, ProjectRow,
  OAuthStore, SearchHit, SearchOptions, SearchOutcome, Store, UpdateOutcome, Viewer,
} from './store.js'

type Row = Record<string, unknown>

const ENTRY_COLUMNS = `e.seq, e.id, e.title, e.body, e.summary, e.summary_title, e.scope, e.project_id, e.tags, e.url, e.status,
  e.resolution, e.thought_chain, e.forked_from, e.author_id, p.name AS author_name, e.created_at, e.updated_at, e.version, e.comment_count`

/** Column weights for BM25: title, tags, body. Tuned on the Cranfield collection (docs/search.md). */
export const BM25_WEIGHTS = {title: 4, tags: 2, body: 1}

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
  private readonly stmts = new Map<string, Database.Statement>()

  constructor(path: string) {
    this.db = new Database(path)
    this.db.pragma('journal_mode = WAL')
    this.db.pragma('synchronous = FULL')
    this.db.pragma('foreign_keys = ON')
    this.db.pragma('busy_timeout = 5000')
    this.migrate()
    this.oauth = new SqliteOAuthStore(this.db)
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
    let s = this.stmts.get(sql)
    if (!s) {
      s = this.db.prepare(sql)
      this.stmts.set(sql, s)
    }
    return s
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
    this.stmt('INSERT INTO principals (id, name, role, created_at) VALUES (@id, @name, @role, @created_at)').run(p)
  }

  async getPrincipal(id: string): Promise<PrincipalRecord | null> {
    return (this.stmt('SELECT id, name, role, created_at FROM principals WHERE id = ?').get(id) as PrincipalRecord | undefined) ?? null
  }

  async getPrincipalByName(name: string): Promise<PrincipalRecord | null> {
    return (this.stmt('SELECT id, name, role, created_at FROM principals WHERE name = ?').get(name) as PrincipalRecord | undefined) ?? null
  }

  // ---- API keys ----

  async insertApiKey(k: ApiKeyRow): Promise<void> {
    this.stmt(`INSERT INTO api_keys (id, principal_id, name, prefix, hash, project_id, created_at, expires_at, last_used_at, revoked_at)
      VALUES (@id, @principal_id, @name, @prefix, @hash, @project_id, @created_at, @expires_at, @last_used_at, @revoked_at)`).run(k)
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRow | null> {
    return (this.stmt('SELECT * FROM api_keys WHERE hash = ?').get(hash) as ApiKeyRow | undefined) ?? null
  }

  async listApiKeys(principalId: string): Promise<ApiKeyRow[]> {
    return this.stmt('SELECT * FROM api_keys WHERE principal_id = ? AND revoked_at IS NULL ORDER BY created_at, id').all(principalId) as ApiKeyRow[]
  }

  async revokeApiKey(id: string, principalId: string, at: string): Promise<boolean> {
    return this.stmt('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND principal_id = ? AND revoked_at IS NULL').run(at, id, principalId).changes === 1
  }

  async touchApiKey(id: string, at: string): Promise<void> {
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
    return this.db.transaction(() => {
      const existing = this.stmt('SELECT * FROM projects WHERE remote = ?').get(project.remote) as ProjectRow | undefined
      if (existing) return {project: existing, created: false}
      this.stmt('INSERT INTO projects (id, name, remote, created_by, created_at) VALUES (@id, @name, @remote, @created_by, @created_at)').run(project)
      this.stmt(`INSERT INTO memberships (project_id, principal_id, role, created_at) VALUES (?, ?, 'maintainer', ?)`).run(project.id, project.created_by, project.created_at)
      return {project, created: true}
    }).immediate()
  }

  async addMember(projectId: string, principalId: string, role: 'maintainer' | 'member', at: string): Promise<void> {
    this.stmt('INSERT OR IGNORE INTO memberships (project_id, principal_id, role, created_at) VALUES (?, ?, ?, ?)').run(projectId, principalId, role, at)
  }

  async getMemberRole(projectId: string, principalId: string): Promise<'maintainer' | 'member' | null> {
    const row = this.stmt('SELECT role FROM memberships WHERE project_id = ? AND principal_id = ?').get(projectId, principalId) as {role: 'maintainer' | 'member'} | undefined
    return row?.role ?? null
  }

  async listProjects(principalId: string, page: {limit: number; after?: string}): Promise<Array<ProjectRow & {role: 'maintainer' | 'member'}>> {
    return this.stmt(`SELECT p.*, m.role FROM memberships m JOIN projects p ON p.id = m.project_id
      WHERE m.principal_id = ? AND p.id > ? ORDER BY p.id LIMIT ?`).all(principalId, page.after ?? '', page.limit) as Array<ProjectRow & {role: 'maintainer' | 'member'}>
  }

  // ---- entries ----

  async insertEntry(e: EntryRow): Promise<void> {
    this.db.transaction(() => {
      const info = this.stmt(`INSERT INTO entries (id, title, body, summary, summary_title, scope, project_id, tags, url, status, resolution,
          thought_chain, forked_from, author_id, created_at, updated_at, version, comment_count)
        VALUES (@id, @title, @body, @summary, @summary_title, @scope, @project_id, @tags, @url, @status, @resolution,
          @thought_chain, @forked_from, @author_id, @created_at, @updated_at, @version, @comment_count)`).run(toDb(e))
      this.writeTags(Number(info.lastInsertRowid), e.tags)
    }).immediate()
  }

  private writeTags(seq: number, tags: string[]): void {
    this.stmt('DELETE FROM entry_tags WHERE seq = ?').run(seq)
    const insert = this.stmt('INSERT OR IGNORE INTO entry_tags (tag, seq) VALUES (?, ?)')
    for (const tag of tags) insert.run(tag, seq)
  }

  async getEntry(id: string): Promise<EntryRow | null> {
    const row = this.stmt(`SELECT ${ENTRY_COLUMNS} FROM entries e JOIN principals p ON p.id = e.author_id WHERE e.id = ?`).get(id) as Row | undefined
    return row ? fromDb(row) : null
  }

  async updateEntry(id: string, changes: EntryChanges, options: {at: string; expectedVersion?: number}): Promise<UpdateOutcome> {
    return this.db.transaction((): UpdateOutcome => {
      const current = this.stmt('SELECT seq, version FROM entries WHERE id = ?').get(id) as {seq: number; version: number} | undefined
      if (!current) return {ok: false, reason: 'missing'}
      if (options.expectedVersion !== undefined && current.version !== options.expectedVersion) {
        return {ok: false, reason: 'stale'}
      }
      const sets: string[] = []
      const params: Row = {seq: current.seq, at: options.at}
      for (const [key, value] of Object.entries(changes)) {
        if (value === undefined) continue
        sets.push(`${key} = @${key}`)
        params[key] = encodeColumn(key, value)
      }
      this.stmt(`UPDATE entries SET ${[...sets, 'updated_at = @at', 'version = version + 1'].join(', ')} WHERE seq = @seq`).run(params)
      if (changes.tags) this.writeTags(current.seq, changes.tags)
      return {ok: true, entry: this.getEntrySync(id)!}
    }).immediate()
  }

  private getEntrySync(id: string): EntryRow | null {
    const row = this.stmt(`SELECT ${ENTRY_COLUMNS} FROM entries e JOIN principals p ON p.id = e.author_id WHERE e.id = ?`).get(id) as Row | undefined
    return row ? fromDb(row) : null
  }

  async deleteEntry(id: string): Promise<boolean> {
    return this.stmt('DELETE FROM entries WHERE id = ?').run(id).changes === 1
  }

  async listEntries(viewer: Viewer, filter: EntryFilter, page: ListPage): Promise<EntryRow[]> {
    const {where, params} = filterSql(viewer, filter)
    if (page.after) {
      where.push('(e.updated_at < @after_u OR (e.updated_at = @after_u AND e.id < @after_id))')
      params.after_u = page.after.updated_at
      params.after_id = page.after.id
    }
    params.limit = page.limit
    const rows = this.stmt(`SELECT ${ENTRY_COLUMNS} FROM entries e JOIN principals p ON p.id = e.author_id
      WHERE ${where.join(' AND ')} ORDER BY e.updated_at DESC, e.id DESC LIMIT @limit`).all(params) as Row[]
    return rows.map(fromDb)
  }

  async searchEntries(viewer: Viewer, filter: EntryFilter, options: SearchOptions): Promise<SearchOutcome> {
    const terms = this.expandTerms(rankTerms(options.terms))
    if (terms.length === 0) return {hits: [], total: 0}
    const match = `{title tags body} : (${terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ')})`
    const {where, params} = filterSql(viewer, filter)
    params.match = match
    params.limit = options.limit
    const from = `FROM entries_fts f JOIN entries e ON e.seq = f.rowid JOIN principals p ON p.id = e.author_id
      WHERE entries_fts MATCH @match AND ${where.join(' AND ')}`
    const w = BM25_WEIGHTS
    const explainCols = options.explain
      ? `, highlight(entries_fts, 0, char(1), char(2)) AS hl_title, highlight(entries_fts, 1, char(1), char(2)) AS hl_tags,
         snippet(entries_fts, 2, char(1), char(2), '…', 24) AS hl_body`
      : ''
    const rows = this.stmt(`SELECT ${ENTRY_COLUMNS}, bm25(entries_fts, ${w.title}, ${w.tags}, ${w.body}) AS rank${explainCols}
      ${from} ORDER BY rank LIMIT @limit`).all(params) as Row[]
    const total = (this.stmt(`SELECT count(*) AS n ${from}`).get(params) as {n: number}).n
    const hits = rows.map((row): SearchHit => {
      const hit: SearchHit = {entry: fromDb(row), score: Number((-(row.rank as number)).toPrecision(6))}
      if (options.explain) {
        const fields: string[] = []
        const found = new Set<string>()
        for (const [field, text] of [['title', row.hl_title], ['tags', row.hl_tags], ['body', row.hl_body]] as const) {
          const marked = [...String(text ?? '').matchAll(/\u0001([^\u0002]*)\u0002/g)].map((m) => m[1]!.toLowerCase())
          if (marked.length > 0) fields.push(field)
          for (const m of marked) found.add(m)
        }
        hit.matched = {fields, terms: [...found]}
        hit.snippet = String(row.hl_body ?? '').replaceAll('\u0001', '«').replaceAll('\u0002', '»')
      }
      return hit
    })
    return {hits, total}
  }

  /**
   * Adds, for each longer word that matches nothing, the indexed terms one edit away (typo tolerance).
   * The vocabulary holds stemmed terms, so a few trailing characters of the word may be dropped first.
   */
  private expandTerms(terms: string[]): string[] {
    const out = new Set(terms)
    const exists = this.stmt('SELECT 1 FROM entries_fts WHERE entries_fts MATCH ? LIMIT 1')
    const vocab = this.stmt('SELECT term FROM entries_vocab WHERE term >= ? AND term < ? AND length(term) BETWEEN ? AND ?')
    for (const term of terms) {
      if (Array.from(term).length < 5 || !/^[\p{L}\p{N}]+$/u.test(term)) continue
      if (exists.get(`"${term}"`)) continue
      const first = term[0]!
      const next = String.fromCodePoint(first.codePointAt(0)! + 1)
      const rows = vocab.all(first, next, Math.max(1, term.length - 4), term.length + 1) as Array<{term: string}>
      for (const candidate of typoCandidates(term, rows.map((r) => r.term))) out.add(candidate)
    }
    return [...out]
  }

  async listBranches(parentId: string, viewer: Viewer): Promise<Branch[]> {
    const {where, params} = filterSql(viewer, {})
    params.parent = parentId
    const rows = this.stmt(`SELECT e.id, e.title, e.scope, e.author_id, p.name AS author_name, e.created_at
      FROM entries e JOIN principals p ON p.id = e.author_id
      WHERE e.forked_from = @parent AND ${where.join(' AND ')} ORDER BY e.created_at, e.id`).all(params) as Row[]
    return rows.map((r) => ({
      id: r.id as string, title: r.title as string, scope: r.scope as Branch['scope'],
      author: {id: r.author_id as string, name: r.author_name as string}, created_at: r.created_at as string,
    }))
  }

  // ---- comments ----

  async addComment(c: CommentRow): Promise<{comment: Comment; entry: EntryRow} | null> {
    return this.db.transaction(() => {
      const entry = this.stmt('SELECT seq FROM entries WHERE id = ?').get(c.entry_id) as {seq: number} | undefined
      if (!entry) return null
      this.stmt('INSERT INTO comments (id, entry_seq, body, type, author_id, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(c.id, entry.seq, c.body, c.type, c.author_id, c.created_at)
      this.stmt('UPDATE entries SET comment_count = comment_count + 1, version = version + 1, updated_at = ? WHERE seq = ?').run(c.created_at, entry.seq)
      const author = this.stmt('SELECT name FROM principals WHERE id = ?').get(c.author_id) as {name: string}
      const comment: Comment = {id: c.id, body: c.body, type: c.type, author: {id: c.author_id, name: author.name}, created_at: c.created_at}
      return {comment, entry: this.getEntrySync(c.entry_id)!}
    }).immediate()
  }

  async listComments(entryId: string): Promise<Comment[]> {
    const rows = this.stmt(`SELECT c.id, c.body, c.type, c.author_id, p.name AS author_name, c.created_at
      FROM comments c JOIN entries e ON e.seq = c.entry_seq JOIN principals p ON p.id = c.author_id
      WHERE e.id = ? ORDER BY c.created_at, c.rowid`).all(entryId) as Row[]
    return rows.map((r) => ({
      id: r.id as string, body: r.body as string, type: r.type as Comment['type'],
      author: {id: r.author_id as string, name: r.author_name as string}, created_at: r.created_at as string,
    }))
  }
}

/** The visibility rule of API.md §4 and the list/search filters of §5, as SQL over `entries e`. */
function filterSql(viewer: Viewer, filter: EntryFilter): {where: string[]; params: Row} {
  const params: Row = {me: viewer.principalId}
  const where = [`(e.scope = 'global'
    OR (e.scope = 'private' AND e.author_id = @me)
    OR (e.scope = 'project' AND e.project_id IN (SELECT project_id FROM memberships WHERE principal_id = @me)))`]
  if (filter.projectId !== undefined) {
    where.push(`(e.project_id = @project OR e.scope = 'global' OR (e.scope = 'private' AND e.author_id = @me))`)
    params.project = filter.projectId
  }
  if (filter.scope !== undefined) {
    where.push('e.scope = @scope')
    params.scope = filter.scope
  }
  if (filter.status !== undefined) {
    where.push('e.status = @status')
    params.status = filter.status
  }
  if (filter.authorId !== undefined) {
    where.push('e.author_id = @author')
    params.author = filter.authorId
  }
  if (filter.tag !== undefined) {
    where.push('e.seq IN (SELECT seq FROM entry_tags WHERE tag = @tag)')
    params.tag = filter.tag
  }
  return {where, params}
}

function toDb(e: EntryRow): Row {
  const {author, ...rest} = e
  return {
    ...rest,
    tags: JSON.stringify(e.tags),
    resolution: e.resolution ? JSON.stringify(e.resolution) : null,
    thought_chain: JSON.stringify(e.thought_chain),
    author_id: author.id,
  }
}

function encodeColumn(key: string, value: unknown): unknown {
  if (key === 'tags' || key === 'thought_chain') return JSON.stringify(value)
  if (key === 'resolution') return value === null ? null : JSON.stringify(value)
  return value
}

function fromDb(r: Row): EntryRow {
  return {
    id: r.id as string,
    title: r.title as string,
    body: r.body as string,
    summary: r.summary as string,
    summary_title: r.summary_title as string,
    scope: r.scope as EntryRow['scope'],
    project_id: (r.project_id as string | null) ?? null,
    tags: JSON.parse(r.tags as string) as string[],
    url: (r.url as string | null) ?? null,
    status: r.status as EntryRow['status'],
    resolution: r.resolution ? (JSON.parse(r.resolution as string) as Resolution) : null,
    thought_chain: JSON.parse(r.thought_chain as string) as ThoughtStep[],
    forked_from: (r.forked_from as string | null) ?? null,
    author: {id: r.author_id as string, name: r.author_name as string},
    created_at: r.created_at as string,
    updated_at: r.updated_at as string,
    version: r.version as number,
    comment_count: r.comment_count as number,
  }
}
