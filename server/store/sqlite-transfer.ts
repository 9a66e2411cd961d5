/**
 * @module The SQLite driver's export, import and online backup (the Store's `transfer` group): exports
 * read in keyset pages, an import is one transaction over every record (all or none), a backup is
 * SQLite's online backup API into a file beside the store.
 */
import {randomUUID} from 'node:crypto'
import {closeSync, openSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type Database from 'better-sqlite3'
import type {AuthorRef, Comment} from '../../src/shared/types.js'
import {type SqliteEntryWriter, toDb} from './sqlite-entries.js'
import {commentFromRow, entryFromRow, type Row, type StatementCache, VISIBLE_TO_ME} from './sqlite-rows.js'
import type {EntryRow, Viewer} from './store.js'
import type {
  EntryExport, ExportFilter, ImportOptions, ImportOutcome, ImportRecord, ProjectExport, StoreSnapshot, TransferStore,
} from './transfer-store.js'

/** Rejections listed in one outcome; an import with more is wrong throughout and the first ones tell why. */
const REJECTIONS_MAX = 1000

/** Thrown inside the import transaction to roll it back (dry runs, rejected lines). */
class Rollback extends Error {}

/** A line the import refuses; the message is the reason the report gives. */
class Rejection extends Error {}


export class SqliteTransferStore implements TransferStore {
  constructor(
    private readonly db: Database.Database,
    private readonly statements: StatementCache,
    private readonly entries: SqliteEntryWriter,
  ) {}

  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql)
  }

  async exportProjects(viewer: Viewer | null, filter: ExportFilter, page: {limit: number; after?: string}): Promise<ProjectExport[]> {
    const where = ['p.id > @after']
    const params: Row = {after: page.after ?? '', limit: page.limit}
    if (viewer) {
      where.push('p.id IN (SELECT project_id FROM memberships WHERE principal_id = @me)')
      params.me = viewer.principalId
    }
    if (filter.projectId !== undefined) {
      where.push('p.id = @project')
      params.project = filter.projectId
    }
    const rows = this.stmt(`SELECT p.id, p.name, p.remote, p.created_at, p.created_by, c.name AS creator_name
      FROM projects p JOIN principals c ON c.id = p.created_by WHERE ${where.join(' AND ')} ORDER BY p.id LIMIT @limit`).all(params) as Row[]
    const members = this.stmt(`SELECT m.principal_id AS id, p.name, m.role FROM memberships m JOIN principals p ON p.id = m.principal_id
      WHERE m.project_id = ? ORDER BY m.created_at, m.principal_id`)
    return rows.map((r) => {
      const project: ProjectExport = {
        id: r.id as string, name: r.name as string, remote: r.remote as string, created_at: r.created_at as string,
        created_by: {id: r.created_by as string, name: r.creator_name as string},
      }
      // Who else is a member is the owner's to know; another principal's export names only the creator.
      if (!viewer) project.members = members.all(project.id) as ProjectExport['members']
      return project
    })
  }

  /** The conditions and parameters selecting the entries of an export. */
  private exportWhere(viewer: Viewer | null, filter: ExportFilter): {where: string[]; params: Row} {
    const where: string[] = []
    const params: Row = {}
    if (viewer) {
      where.push(VISIBLE_TO_ME)
      params.me = viewer.principalId
    }
    if (filter.scope !== undefined) {
      where.push('e.scope = @scope')
      params.scope = filter.scope
    }
    if (filter.projectId !== undefined) {
      where.push('e.project_id = @project')
      params.project = filter.projectId
    }
    return {where, params}
  }

  async countExportEntries(viewer: Viewer | null, filter: ExportFilter): Promise<number> {
    const {where, params} = this.exportWhere(viewer, filter)
    return this.stmt(`SELECT count(*) FROM entries e WHERE ${where.length > 0 ? where.join(' AND ') : '1'}`).pluck().get(params) as number
  }

  async exportEntries(viewer: Viewer | null, filter: ExportFilter, page: {limit: number; after?: number}): Promise<{entries: EntryExport[]; next?: number}> {
    const {where, params} = this.exportWhere(viewer, filter)
    where.unshift('e.seq > @after')
    Object.assign(params, {after: page.after ?? 0, limit: page.limit})
    const rows = this.stmt(`SELECT e.*, p.name AS author_name FROM entries e JOIN principals p ON p.id = e.author_id
      WHERE ${where.join(' AND ')} ORDER BY e.seq LIMIT @limit`).all(params) as Row[]
    const comments = new Map<number, Comment[]>()
    const commentRows = this.stmt(`SELECT c.entry_seq, c.id, c.body, c.type, c.author_id, p.name AS author_name, c.created_at
      FROM comments c JOIN principals p ON p.id = c.author_id
      WHERE c.entry_seq IN (SELECT value FROM json_each(?)) ORDER BY c.entry_seq, c.created_at, c.rowid`).all(JSON.stringify(rows.map((r) => r.seq))) as Row[]
    for (const c of commentRows) {
      const list = comments.get(c.entry_seq as number) ?? []
      list.push(commentFromRow(c))
      comments.set(c.entry_seq as number, list)
    }
    const entries = rows.map((r) => exportedEntry(r, comments.get(r.seq as number) ?? []))
    const last = rows.at(-1)
    return rows.length === page.limit && last ? {entries, next: last.seq as number} : {entries}
  }

  async applyImport(records: Iterable<ImportRecord>, options: ImportOptions): Promise<ImportOutcome> {
    const outcome: ImportOutcome = {created: 0, updated: 0, skipped: 0, principals_created: 0, rejected: []}
    const run = this.db.transaction(() => {
      for (const record of records) {
        try {
          const result = record.kind === 'project' ? this.importProject(record.project, options, outcome) : this.importEntry(record.entry, options, outcome)
          outcome[result]++
        } catch (e) {
          const constraint = (e as {code?: string}).code?.startsWith('SQLITE_CONSTRAINT')
          if (!(e instanceof Rejection) && !constraint) throw e
          if (outcome.rejected.length < REJECTIONS_MAX) outcome.rejected.push({line: record.line, reason: (e as Error).message})
        }
      }
      if (outcome.rejected.length > 0 || options.dryRun) throw new Rollback()
    })
    try {
      run.immediate()
    } catch (e) {
      if (!(e instanceof Rollback)) throw e
    }
    return outcome
  }

  /** The principal by id, created (owner imports only) when missing; its name must not belong to another. */
  private principal(ref: AuthorRef, options: ImportOptions, outcome: ImportOutcome, what: string): void {
    if (this.stmt('SELECT 1 FROM principals WHERE id = ?').get(ref.id)) return
    if (!options.importer.owner) throw new Rejection(`${what} ${ref.name} (${ref.id}) is not a principal of this server; only the owner may import other principals`)
    const other = this.stmt('SELECT id FROM principals WHERE name = ?').pluck().get(ref.name) as string | undefined
    if (other) throw new Rejection(`${what} ${ref.id} is named ${ref.name}, but that name belongs to principal ${other} here`)
    this.stmt(`INSERT INTO principals (id, name, role, created_at) VALUES (?, ?, 'member', ?)`).run(ref.id, ref.name, options.at)
    outcome.principals_created++
  }

  private importProject(p: ProjectExport, options: ImportOptions, outcome: ImportOutcome): 'created' | 'updated' | 'skipped' {
    const me = options.importer
    const byRemote = this.stmt('SELECT id FROM projects WHERE remote = ?').pluck().get(p.remote) as string | undefined
    if (byRemote !== undefined && byRemote !== p.id) throw new Rejection(`remote ${p.remote} already belongs to project ${byRemote} here`)
    const existing = this.stmt('SELECT name FROM projects WHERE id = ?').get(p.id) as {name: string} | undefined
    const role = this.stmt('SELECT role FROM memberships WHERE project_id = ? AND principal_id = ?').pluck()
    const addMember = this.stmt('INSERT OR IGNORE INTO memberships (project_id, principal_id, role, created_at) VALUES (?, ?, ?, ?)')
    if (existing) {
      const myRole = role.get(p.id, me.id) as string | undefined
      if (!me.owner && myRole === undefined) throw new Rejection(`project ${p.id} exists and you are not a member of it`)
      if (options.onConflict === 'skip') return 'skipped'
      let changed = false
      if (existing.name !== p.name) {
        if (!me.owner && myRole !== 'maintainer') throw new Rejection(`only a maintainer of project ${p.id} or the owner may rename it`)
        this.stmt('UPDATE projects SET name = ? WHERE id = ?').run(p.name, p.id)
        changed = true
      }
      if (me.owner) {
        for (const m of p.members ?? []) {
          this.principal(m, options, outcome, 'member')
          changed = addMember.run(p.id, m.id, m.role, options.at).changes > 0 || changed
        }
      }
      return changed ? 'updated' : 'skipped'
    }
    const creator = me.owner ? p.created_by : {id: me.id, name: me.name}
    if (me.owner) this.principal(creator, options, outcome, 'creator')
    this.stmt('INSERT INTO projects (id, name, remote, created_by, created_at) VALUES (?, ?, ?, ?, ?)').run(p.id, p.name, p.remote, creator.id, p.created_at)
    addMember.run(p.id, creator.id, 'maintainer', p.created_at)
    if (me.owner) {
      for (const m of p.members ?? []) {
        this.principal(m, options, outcome, 'member')
        addMember.run(p.id, m.id, m.role, p.created_at)
      }
    }
    return 'created'
  }

  private importEntry(e: ImportedEntry, options: ImportOptions, outcome: ImportOutcome): 'created' | 'updated' | 'skipped' {
    const me = options.importer
    if (!me.owner && e.author.id !== me.id) throw new Rejection(`entry ${e.id} is by ${e.author.name} (${e.author.id}); only the owner may import entries of other authors`)
    this.principal(e.author, options, outcome, 'author')
    for (const c of e.comments) this.principal(c.author, options, outcome, `comment ${c.id}: author`)
    if (e.project_id !== null) {
      if (!this.stmt('SELECT 1 FROM projects WHERE id = ?').get(e.project_id)) {
        throw new Rejection(`project ${e.project_id} is neither on this server nor on an earlier line of the file`)
      }
      if (!me.owner && !this.stmt('SELECT 1 FROM memberships WHERE project_id = ? AND principal_id = ?').get(e.project_id, me.id)) {
        throw new Rejection(`you are not a member of project ${e.project_id}`)
      }
    }
    const existing = this.stmt('SELECT e.*, p.name AS author_name FROM entries e JOIN principals p ON p.id = e.author_id WHERE e.id = ?').get(e.id) as Row | undefined
    if (existing && !me.owner && !this.visible(e.id, me.id)) {
      // A hidden entry stays indistinguishable from a missing one (docs/security.md): a dry run reports the
      // creation this line would be without it. Only the import itself must refuse to reuse the id.
      if (options.dryRun) return 'created'
      throw new Rejection(`entry ${e.id} cannot be created here: the id is taken`)
    }
    let seq: number
    if (existing) {
      if (options.onConflict === 'skip') return 'skipped'
      if (!me.owner && existing.author_id !== me.id) throw new Rejection(`entry ${e.id} exists here and is not yours; only its author or the owner may overwrite it`)
      const comments = this.commentsOf(existing.seq as number)
      const current = exportedEntry(existing, comments)
      if (JSON.stringify(current) === JSON.stringify(canonical(e))) return 'skipped'
      // Overwriting replaces the comments whole: a member may not erase what others wrote.
      if (!me.owner && comments.some((c) => c.author.id !== me.id)) throw new Rejection(`entry ${e.id} has comments by others here; only the owner may overwrite it`)
      seq = existing.seq as number
      this.entries.overwrite(seq, importedRow(e))
      this.stmt('DELETE FROM comments WHERE entry_seq = ?').run(seq)
    } else {
      seq = this.entries.insert(importedRow(e))
    }
    const elsewhere = this.stmt('SELECT e.id FROM comments c JOIN entries e ON e.seq = c.entry_seq WHERE c.id = ?').pluck()
    for (const c of e.comments) {
      const owner = elsewhere.get(c.id) as string | undefined
      if (owner !== undefined && !me.owner && !this.visible(owner, me.id)) {
        if (options.dryRun) continue
        throw new Rejection(`comment ${c.id} cannot be created here: the id is taken`)
      }
      if (owner !== undefined) throw new Rejection(`comment ${c.id} already exists here on entry ${owner}`)
      this.entries.insertComment(seq, {id: c.id, body: c.body, type: c.type, author_id: c.author.id, created_at: c.created_at})
    }
    return existing ? 'updated' : 'created'
  }

  /** Whether principal `me` may see entry `id` (the rule of every read). */
  private visible(id: string, me: string): boolean {
    return this.stmt(`SELECT 1 FROM entries e WHERE e.id = @id AND ${VISIBLE_TO_ME}`).get({id, me}) !== undefined
  }

  private commentsOf(seq: number): Comment[] {
    return (this.stmt(`SELECT c.id, c.body, c.type, c.author_id, p.name AS author_name, c.created_at FROM comments c
      JOIN principals p ON p.id = c.author_id WHERE c.entry_seq = ? ORDER BY c.created_at, c.rowid`).all(seq) as Row[]).map(commentFromRow)
  }

  async snapshot(): Promise<StoreSnapshot> {
    const name = this.db.name
    const dir = name === ':memory:' || name === '' ? tmpdir() : join(name, '..')
    const path = join(dir, `.kb-backup-${randomUUID()}.sqlite`)
    const release = async (): Promise<void> => {
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, {force: true})
    }
    // Created owner-only before SQLite writes into it: the copy holds key hashes and private entries.
    closeSync(openSync(path, 'wx', 0o600))
    try {
      // The online backup copies pages a step at a time between other requests; writes made meanwhile
      // through this same connection are carried into the copy, so it ends as one consistent state.
      await this.db.backup(path)
    } catch (e) {
      await release()
      throw e
    }
    return {path, bytes: statSync(path).size, contentType: 'application/vnd.sqlite3', release}
  }
}

function exportedEntry(r: Row, comments: Comment[]): EntryExport {
  // Everything stored but what the server derives again on import (summary) or counts (comments).
  const {summary: _summary, summary_title: _title, comment_count: _count, ...entry} = entryFromRow(r)
  return {...entry, comments}
}

type ImportedEntry = EntryExport & {summary: string; summary_title: string}

/** An import record as the entry row it becomes (its comments are rows of their own). */
function importedRow(e: ImportedEntry): EntryRow {
  const {comments, ...entry} = e
  return {...entry, comment_count: comments.length}
}

/** An import record in exactly the shape (and key order) an export of it has, to tell unchanged from changed. */
function canonical(e: ImportedEntry): EntryExport {
  const comments = e.comments.map((c) => ({id: c.id, body: c.body, type: c.type, author: {id: c.author.id, name: c.author.name}, created_at: c.created_at}))
  return exportedEntry({...toDb(importedRow(e)), author_name: e.author.name}, comments)
}
