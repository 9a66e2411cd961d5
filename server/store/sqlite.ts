/**
 * @module The embedded Store driver: SQLite through better-sqlite3, WAL with synchronous=FULL (a write
 * that returned is on disk), FTS5 with Porter stemming for search, versioned migrations.
 */
import {chmodSync, closeSync, openSync} from 'node:fs'
import Database from 'better-sqlite3'
import type {Branch, Comment, Resolution, ThoughtStep} from '../../src/shared/types.js'
import {SQLITE_MIGRATIONS} from './sqlite-migrations.js'
import {entryFromRow, type Row, VISIBLE_TO_ME} from './sqlite-rows.js'
import {SqliteOAuthStore} from './sqlite-oauth.js'
import {SqliteTransferStore} from './sqlite-transfer.js'
import {Bm25fScorer, type CollectionStats, type RankTerm, SEARCH_FIELDS, ftsString, indexStems, parseTerm, rankTerms, stemOf, typoCandidates} from './search-terms.js'
import type {
  ApiKeyRow, CommentRow, EntryChanges, EntryFilter, EntryRow, ListPage, PrincipalRecord, ProjectRow,
  OAuthStore, SearchHit, SearchOptions, SearchOutcome, Store, TransferStore, UpdateOptions, UpdateOutcome, Viewer,
} from './store.js'


const ENTRY_COLUMNS = `e.seq, e.id, e.title, e.body, e.summary, e.summary_title, e.scope, e.project_id, e.tags, e.url, e.status,
  e.resolution, e.thought_chain, e.forked_from, e.author_id, p.name AS author_name, e.created_at, e.updated_at, e.version, e.comment_count`
const GET_ENTRY_SQL = `SELECT ${ENTRY_COLUMNS} FROM entries e JOIN principals p ON p.id = e.author_id WHERE e.id = ?`

/** FTS5 bm25() column weights (title, tags, body) that order candidates before re-ranking (docs/search.md). */
export const BM25_WEIGHTS = {title: 4, tags: 2, body: 1}
/** Candidates re-ranked per search: at least this many, and twice the page size. */
const CANDIDATES_MIN = 50
/** Postings (summed document frequencies) that candidate terms may cover before common terms are left out. */
const CANDIDATE_POSTINGS = 10_000
const DF_CACHE_MAX = 50_000
const REMEMBERED_MAX = 1_000
/** Shortest indexed term a typo may stand for (search-terms.ts typoCandidates). */
const TYPO_MIN_TERM = 4
/** Words per query that typo tolerance looks up. */
const TYPO_LOOKUPS_MAX = 3
/** Completions of a word still being typed, the shortest first, and how much each counts next to a typed word. */
const COMPLETIONS_MAX = 8
const COMPLETION_WEIGHT = 0.5
/** How much longer than the typed prefix a completion may be. */
const COMPLETION_EXTRA_MAX = 12
/** How much a code token's phrase counts on top of its parts (docs/search.md: Cranfield's hyphenated words). */
const PHRASE_WEIGHT = 0.5

interface QueryTerm extends RankTerm {
  /** The term as an FTS5 string (a quoted word or phrase; never an operator). */
  match: string
}

/** An FTS5 expression matching any of the terms in title, tags or body. */
function ftsMatch(terms: QueryTerm[]): string {
  return `{title tags body} : (${terms.map((t) => t.match).join(' OR ')})`
}

/**
 * The terms that generate candidates: the rarest first, adding commoner ones while the postings they
 * cover stay within CANDIDATE_POSTINGS. The rest only re-rank; none at all when even the rarest term is
 * that common.
 */
function selectiveTerms(terms: QueryTerm[]): QueryTerm[] {
  const byRarity = [...terms].sort((a, b) => a.df - b.df)
  const chosen: QueryTerm[] = []
  let postings = 0
  for (const t of byRarity) {
    if (postings + t.df > CANDIDATE_POSTINGS) break
    chosen.push(t)
    postings += t.df
  }
  return chosen
}

/** SQLite varints (big-endian, 7 bits a byte, the ninth byte whole), as FTS5 stores its totals. */
function readVarints(buf: Buffer): number[] {
  const out: number[] = []
  let i = 0
  while (i < buf.length) {
    let v = 0
    let n = 0
    for (;;) {
      const byte = buf[i++]!
      if (n === 8) {
        v = v * 256 + byte
        break
      }
      v = v * 128 + (byte & 0x7f)
      n++
      if (byte < 0x80 || i >= buf.length) break
    }
    out.push(v)
  }
  return out
}

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
  private readonly stmts = new Map<string, Database.Statement>()
  private readonly dfCache = new Map<string, {df: number; changes: number}>()
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
    this.migrate()
    this.oauth = new SqliteOAuthStore(this.db)
    this.transfer = new SqliteTransferStore(this.db)
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
    return this.remembered(`principal:${id}`, () => (this.stmt('SELECT id, name, role, created_at FROM principals WHERE id = ?').get(id) as PrincipalRecord | undefined) ?? null)
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
    return this.remembered(`key:${hash}`, () => (this.stmt('SELECT * FROM api_keys WHERE hash = ?').get(hash) as ApiKeyRow | undefined) ?? null)
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

  async insertEntry(e: EntryRow, comments: CommentRow[] = []): Promise<void> {
    this.db.transaction(() => {
      const info = this.stmt(`INSERT INTO entries (id, title, body, summary, summary_title, scope, project_id, tags, url, status, resolution,
          thought_chain, forked_from, author_id, created_at, updated_at, version, comment_count)
        VALUES (@id, @title, @body, @summary, @summary_title, @scope, @project_id, @tags, @url, @status, @resolution,
          @thought_chain, @forked_from, @author_id, @created_at, @updated_at, @version, @comment_count)`).run({...toDb(e), comment_count: e.comment_count + comments.length})
      const seq = Number(info.lastInsertRowid)
      this.writeTags(seq, e.tags)
      this.addVocabulary([e.title, e.body, ...e.tags])
      for (const c of comments) this.insertCommentRow(seq, c)
    }).immediate()
  }

  private insertCommentRow(seq: number, c: CommentRow): void {
    this.stmt('INSERT INTO comments (id, entry_seq, body, type, author_id, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(c.id, seq, c.body, c.type, c.author_id, c.created_at)
  }

  /**
   * Records the text's index terms in `search_vocab`, where typo tolerance looks for near spellings
   * (migration 3). Terms of deleted text stay behind; a search drops any that no longer match.
   */
  private addVocabulary(texts: string[]): void {
    const insert = this.stmt('INSERT OR IGNORE INTO search_vocab (head, len, term) VALUES (?, ?, ?)')
    for (const text of texts) {
      for (const term of indexStems(text)) {
        const len = Array.from(term).length
        if (len >= TYPO_MIN_TERM) insert.run(String.fromCodePoint(term.codePointAt(0)!), len, term)
      }
    }
  }

  private writeTags(seq: number, tags: string[]): void {
    this.stmt('DELETE FROM entry_tags WHERE seq = ?').run(seq)
    const insert = this.stmt('INSERT OR IGNORE INTO entry_tags (tag, seq) VALUES (?, ?)')
    for (const tag of tags) insert.run(tag, seq)
  }

  async getEntry(id: string): Promise<EntryRow | null> {
    return this.getEntrySync(id)
  }

  async updateEntry(id: string, changes: EntryChanges, options: UpdateOptions): Promise<UpdateOutcome> {
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
      if (options.comment) sets.push('comment_count = comment_count + 1')
      this.stmt(`UPDATE entries SET ${[...sets, 'updated_at = @at', 'version = version + 1'].join(', ')} WHERE seq = @seq`).run(params)
      for (const c of options.commentBodies ?? []) this.stmt('UPDATE comments SET body = ? WHERE id = ? AND entry_seq = ?').run(c.body, c.id, current.seq)
      if (options.comment) this.insertCommentRow(current.seq, options.comment)
      if (changes.tags) this.writeTags(current.seq, changes.tags)
      this.addVocabulary([changes.title ?? '', changes.body ?? '', ...(changes.tags ?? [])])
      return {ok: true, entry: this.getEntrySync(id)!}
    }).immediate()
  }

  /** One entry by id. Rows come as arrays (`raw()`): better-sqlite3 builds a 20-key object per row ~4 µs slower. */
  private getEntrySync(id: string): EntryRow | null {
    // Its own key: a statement put in raw mode must not be handed to callers of stmt() expecting objects.
    let s = this.stmts.get(`raw:${GET_ENTRY_SQL}`)
    if (!s) {
      s = this.db.prepare(GET_ENTRY_SQL).raw()
      this.stmts.set(`raw:${GET_ENTRY_SQL}`, s)
    }
    const row = s.get(id) as unknown[] | undefined
    return row ? fromRaw(row) : null
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
    return rows.map(entryFromRow)
  }

  /**
   * Search in two stages (docs/search.md): FTS5 finds candidates with any-term matching and ranks them
   * with its bm25(); the best few are re-ranked in TypeScript with a tuned BM25F over all the terms.
   * Very common terms do not generate candidates when rarer ones give enough, so that a query with
   * "error" in it does not score half the store; they still count in the re-ranking and in `total`.
   */
  async searchEntries(viewer: Viewer, filter: EntryFilter, options: SearchOptions): Promise<SearchOutcome> {
    const terms = this.expandTerms(rankTerms(options.terms))
    if (terms.length === 0) return {hits: [], total: 0}
    const all = ftsMatch(terms)
    const {where, params} = filterSql(viewer, filter)
    const unfiltered = Object.values(filter).every((v) => v === undefined)
    // When the caller may see every entry and narrows nothing, FTS5 alone answers; else join the entries.
    const direct = unfiltered && this.seesEverything(viewer)
    const total = direct
      ? (this.stmt('SELECT count(*) AS n FROM entries_fts WHERE entries_fts MATCH ?').get(all) as {n: number}).n
      : (this.stmt(`SELECT count(*) AS n FROM entries_fts f JOIN entries e ON e.seq = f.rowid
          WHERE entries_fts MATCH @match AND ${where.join(' AND ')}`).get({...params, match: all}) as {n: number}).n
    if (total === 0) return {hits: [], total: 0}

    const depth = Math.max(CANDIDATES_MIN, 2 * options.limit)
    const selective = selectiveTerms(terms)
    let seqs = selective.length > 0 ? this.rankedCandidates(selective, direct, where, params, depth) : []
    if (seqs.length < Math.min(depth, total)) {
      // Only very common terms, or too few entries with the rarer ones: ranking every entry with a
      // common word would cost a scan, so take the newest matches, those with a title match first.
      seqs = [...new Set([...seqs, ...this.newestCandidates(terms, direct, where, params, depth)])]
    }
    const texts = this.stmt('SELECT seq, title, tags, body FROM entries WHERE seq IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(seqs)) as Array<{seq: number; title: string; tags: string; body: string}>
    const scorer = new Bm25fScorer(terms, this.collectionStats())
    const ranked = texts
      .map((t) => ({seq: t.seq, score: scorer.score({title: t.title, tags: (JSON.parse(t.tags) as string[]).join(' '), body: t.body})}))
      .sort((a, b) => b.score - a.score || b.seq - a.seq)
      .slice(0, options.limit)
    const rows = new Map((this.stmt(`SELECT ${ENTRY_COLUMNS} FROM entries e JOIN principals p ON p.id = e.author_id
      WHERE e.seq IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ranked.map((r) => r.seq))) as Row[]).map((r) => [r.seq as number, r]))
    const hits = ranked.map(({seq, score}): SearchHit => {
      const hit: SearchHit = {entry: entryFromRow(rows.get(seq)!), score: Number(score.toPrecision(6))}
      if (options.explain) Object.assign(hit, this.explainHit(seq, all))
      return hit
    })
    return {hits, total}
  }

  /** The newest `depth` entries with a term in the title, then with a term anywhere; FTS5 reads doclists backwards and stops. */
  private newestCandidates(terms: QueryTerm[], direct: boolean, where: string[], params: Row, depth: number): number[] {
    const sql = direct
      ? 'SELECT rowid AS seq FROM entries_fts WHERE entries_fts MATCH @match ORDER BY rowid DESC LIMIT @depth'
      : `SELECT e.seq FROM entries_fts f JOIN entries e ON e.seq = f.rowid
         WHERE entries_fts MATCH @match AND ${where.join(' AND ')} ORDER BY f.rowid DESC LIMIT @depth`
    const words = terms.map((t) => t.match).join(' OR ')
    const run = (match: string): number[] => this.stmt(sql).pluck().all({...(direct ? {} : params), match, depth}) as number[]
    return [...run(`{title} : (${words})`), ...run(ftsMatch(terms))]
  }

  /** The `depth` best entries by FTS5's bm25() for the terms, among those the filter lets through. */
  private rankedCandidates(terms: QueryTerm[], direct: boolean, where: string[], params: Row, depth: number): number[] {
    const w = BM25_WEIGHTS
    const rank = `bm25(entries_fts, ${w.title}, ${w.tags}, ${w.body})`
    const sql = direct
      ? `SELECT rowid AS seq FROM entries_fts WHERE entries_fts MATCH @match ORDER BY ${rank} LIMIT @depth`
      : `SELECT e.seq FROM entries_fts f JOIN entries e ON e.seq = f.rowid
         WHERE entries_fts MATCH @match AND ${where.join(' AND ')} ORDER BY ${rank} LIMIT @depth`
    return this.stmt(sql).pluck().all({...(direct ? {} : params), match: ftsMatch(terms), depth}) as number[]
  }

  /**
   * Which fields and words matched, and a highlighted excerpt of the body (`explain`, docs/api.md "Search"). The CAST
   * matters: better-sqlite3 binds a JS number as REAL, and FTS5 then ignores `rowid = ?` next to MATCH.
   */
  private explainHit(seq: number, match: string): Pick<SearchHit, 'matched' | 'snippet'> {
    const row = this.stmt(`SELECT highlight(entries_fts, 0, char(1), char(2)) AS title, highlight(entries_fts, 1, char(1), char(2)) AS tags,
        snippet(entries_fts, 2, char(1), char(2), '…', 24) AS body
      FROM entries_fts WHERE entries_fts MATCH ? AND rowid = CAST(? AS INTEGER)`).get(match, seq) as {title: string; tags: string; body: string} | undefined
    const fields: string[] = []
    const found = new Set<string>()
    for (const field of SEARCH_FIELDS) {
      const marked = [...String(row?.[field] ?? '').matchAll(/\u0001([^\u0002]*)\u0002/g)].map((m) => m[1]!.toLowerCase())
      if (marked.length > 0) fields.push(field)
      for (const m of marked) found.add(m)
    }
    return {matched: {fields, terms: [...found]}, snippet: String(row?.body ?? '').replaceAll('\u0001', '«').replaceAll('\u0002', '»')}
  }

  /**
   * Whether every entry is visible to the viewer: no one else's private entries and no project entries
   * outside the viewer's projects. Index seeks only (migration 3): one per project that has entries.
   */
  private seesEverything(viewer: Viewer): boolean {
    const me = viewer.principalId
    const othersPrivate = this.stmt(`SELECT EXISTS (SELECT 1 FROM entries WHERE scope = 'private' AND author_id < @me)
      OR EXISTS (SELECT 1 FROM entries WHERE scope = 'private' AND author_id > @me)
      OR EXISTS (SELECT 1 FROM entries WHERE scope = 'project' AND project_id IS NULL)`).pluck().get({me}) as number
    if (othersPrivate) return false
    const mine = new Set(this.stmt('SELECT project_id FROM memberships WHERE principal_id = ?').pluck().all(me) as string[])
    const nextProject = this.stmt(`SELECT project_id FROM entries WHERE scope = 'project' AND project_id > ? ORDER BY project_id LIMIT 1`).pluck()
    for (let after = ''; ;) {
      const project = nextProject.get(after) as string | undefined
      if (project === undefined) return true
      if (!mine.has(project)) return false
      after = project
    }
  }

  /** Entries in the index and mean field lengths, from FTS5's own totals record (one row read). */
  private collectionStats(): CollectionStats {
    const block = (this.stmt('SELECT block FROM entries_fts_data WHERE id = 1').pluck().get() as Buffer | undefined) ?? Buffer.alloc(0)
    const [docs = 0, title = 0, tags = 0, body = 0] = readVarints(block)
    const avg = (n: number): number => (docs > 0 ? n / docs : 0)
    return {docs, avgLength: {title: avg(title), tags: avg(tags), body: avg(body)}}
  }

  /**
   * How many entries contain the stem. Counting walks the term's whole doclist, so counts are cached
   * and reused while the rows changed since (`total_changes()`, an upper bound on how far the count can
   * have moved) stay under 1% of it: a rare term is recounted each time, a common one rarely.
   */
  private documentFrequency(stem: string): number {
    const changes = this.stmt('SELECT total_changes()').pluck().get() as number
    const cached = this.dfCache.get(stem)
    if (cached && changes - cached.changes <= cached.df / 100) return cached.df
    const df = (this.stmt('SELECT doc FROM entries_vocab WHERE term = ?').pluck().get(stem) as number | undefined) ?? 0
    if (this.dfCache.size >= DF_CACHE_MAX) this.dfCache.clear()
    this.dfCache.set(stem, {df, changes})
    return df
  }

  /**
   * The query's terms (search-terms.ts queryTerms) as index terms with their document frequencies, one
   * per stem or phrase, without those that match nothing. A longer word that matches nothing brings
   * instead the indexed terms one edit away (typo tolerance; the vocabulary holds stems, so a few
   * trailing characters may be dropped first). A prefix brings the shortest indexed terms it begins,
   * counting less than typed words; a phrase (a code token's parts) is one more term, rarer than its parts.
   */
  private expandTerms(terms: string[]): QueryTerm[] {
    const out = new Map<string, QueryTerm>()
    const add = (word: string, weight = 1): number => {
      const stem = stemOf(word)
      const known = out.get(stem)
      if (known) return known.df
      const df = this.documentFrequency(stem)
      if (df > 0) out.set(stem, {match: ftsString(word), stem, df, ...(weight !== 1 ? {weight} : {})})
      return df
    }
    const vocab = this.stmt('SELECT term FROM search_vocab WHERE head = ? AND len BETWEEN ? AND ?').pluck()
    let lookups = 0
    const prefixes: string[] = []
    for (const term of terms) {
      const parsed = parseTerm(term)
      if (parsed.kind === 'prefix') {
        prefixes.push(parsed.word)
        continue
      }
      if (parsed.kind === 'phrase') {
        const stems = parsed.words.map(stemOf)
        const key = stems.join(' ')
        if (out.has(key)) continue
        const match = ftsString(parsed.words.join(' '))
        const df = this.phraseFrequency(match)
        if (df > 0) out.set(key, {match, stem: key, df, phrase: stems, weight: PHRASE_WEIGHT})
        continue
      }
      const word = parsed.word
      if (add(word) > 0) continue
      const length = Array.from(word).length
      // A long question may hold many words the store lacks; a few corrections are what helps.
      if (length < 5 || !/^[\p{L}\p{N}]+$/u.test(word) || lookups++ >= TYPO_LOOKUPS_MAX) continue
      const head = String.fromCodePoint(word.codePointAt(0)!)
      const nearby = vocab.all(head, Math.max(TYPO_MIN_TERM, length - 4), length + 1) as string[]
      for (const candidate of typoCandidates(word, nearby)) add(candidate)
    }
    // Completions last, so that a word typed in full keeps its full weight.
    for (const prefix of prefixes) for (const completion of this.completions(prefix)) add(completion, COMPLETION_WEIGHT)
    return [...out.values()]
  }

  /** The shortest indexed terms (at most COMPLETIONS_MAX) that begin with the prefix: one index range per length. */
  private completions(prefix: string): string[] {
    if (!/^[\p{L}\p{N}]+$/u.test(prefix)) return []
    const length = Array.from(prefix).length
    const head = String.fromCodePoint(prefix.codePointAt(0)!)
    const range = this.stmt('SELECT term FROM search_vocab WHERE head = ? AND len = ? AND term >= ? AND term < ? ORDER BY term LIMIT ?').pluck()
    const out: string[] = []
    for (let len = Math.max(TYPO_MIN_TERM, length + 1); len <= length + COMPLETION_EXTRA_MAX && out.length < COMPLETIONS_MAX; len++) {
      out.push(...(range.all(head, len, prefix, `${prefix}\u{10FFFF}`, COMPLETIONS_MAX - out.length) as string[]))
    }
    return out
  }

  /** How many entries contain the phrase, cached like documentFrequency (FTS5 reads the parts' doclists). */
  private phraseFrequency(match: string): number {
    const changes = this.stmt('SELECT total_changes()').pluck().get() as number
    const key = `\u0000${match}`
    const cached = this.dfCache.get(key)
    if (cached && changes - cached.changes <= cached.df / 100) return cached.df
    const df = this.stmt('SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?').pluck().get(match) as number
    if (this.dfCache.size >= DF_CACHE_MAX) this.dfCache.clear()
    this.dfCache.set(key, {df, changes})
    return df
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
      this.insertCommentRow(entry.seq, c)
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

/** The visibility rule of docs/api.md, "Visibility and permissions", and its list/search filters, as SQL over `entries e`. */
function filterSql(viewer: Viewer, filter: EntryFilter): {where: string[]; params: Row} {
  const params: Row = {me: viewer.principalId}
  const where = [VISIBLE_TO_ME]
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
  }
}

