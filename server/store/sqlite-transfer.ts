/**
 * @module The SQLite driver's export, import and online backup (the Store's `transfer` group): exports
 * read in keyset pages, an import is one transaction over every record (all or none; sqlite-import.ts), a
 * backup is SQLite's online backup API into a file beside the store.
 */
import {randomUUID} from 'node:crypto'
import {closeSync, openSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type Database from 'better-sqlite3'
import type {Comment} from '../../src/shared/types.js'
import type {SqliteEntryWriter} from './sqlite-entries.js'
import {applyImport, storedAsIs} from './sqlite-import.js'
import type {SqliteHistoryStore} from './sqlite-history.js'
import {type StatementCache, VISIBLE_TO_ME} from './sqlite-rows.js'
import {commentFromRow, exportedEntry, FLAG_COLUMNS, FLAG_ORDER, flagFromRow, type ImportedEntry, type Row} from './rows.js'
import type {Viewer} from './store.js'
import type {
  EntryExport,
  ExportFilter,
  FlagExport,
  ImportOptions,
  ImportOutcome,
  ImportRecord,
  ProjectExport,
  StoreSnapshot,
  TransferStore,
} from './transfer-store.js'
import type {WriteGate} from './write-gate.js'

export class SqliteTransferStore implements TransferStore {
  constructor(
    private readonly db: Database.Database,
    private readonly statements: StatementCache,
    private readonly entries: SqliteEntryWriter,
    private readonly gate: WriteGate,
    /** Called once an import committed, for caches that follow this connection's own changes only. */
    private readonly onCommitted: () => void,
    private readonly history: SqliteHistoryStore,
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
    const rows = this.stmt(
      `SELECT p.id, p.name, p.remote, p.created_at, p.created_by, c.name AS creator_name, p.verify_after_days
      FROM projects p JOIN principals c ON c.id = p.created_by WHERE ${where.join(' AND ')} ORDER BY p.id LIMIT @limit`,
    ).all(params) as Row[]
    const members = this.stmt(`SELECT m.principal_id AS id, p.name, m.role FROM memberships m JOIN principals p ON p.id = m.principal_id
      WHERE m.project_id = ? ORDER BY m.created_at, m.principal_id`)
    return rows.map((r) => {
      const project: ProjectExport = {
        id: r.id as string,
        name: r.name as string,
        remote: r.remote as string,
        created_at: r.created_at as string,
        created_by: {id: r.created_by as string, name: r.creator_name as string},
        verify_after_days: r.verify_after_days as number,
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
    return this.stmt(`SELECT count(*) FROM entries e WHERE ${where.length > 0 ? where.join(' AND ') : '1'}`)
      .pluck()
      .get(params) as number
  }

  async exportEntries(
    viewer: Viewer | null,
    filter: ExportFilter,
    page: {limit: number; after?: number; maxChars?: number},
  ): Promise<{entries: EntryExport[]; next?: number}> {
    const {where, params} = this.exportWhere(viewer, filter)
    where.unshift('e.seq > @after')
    Object.assign(params, {after: page.after ?? 0, limit: page.limit})
    const rows: Row[] = []
    let chars = 0
    // Row by row, so that the page can end at `maxChars` without reading the rest of the `limit`.
    for (const r of this.stmt(
      `SELECT e.*, p.name AS author_name FROM entries e JOIN principals p ON p.id = e.author_id
      WHERE ${where.join(' AND ')} ORDER BY e.seq LIMIT @limit`,
    ).iterate(params) as IterableIterator<Row>) {
      rows.push(r)
      chars += String(r.body).length + String(r.thought_chain).length + String(r.resolution ?? '').length
      if (page.maxChars !== undefined && chars >= page.maxChars) break
    }
    const full = rows.length === page.limit || (page.maxChars !== undefined && chars >= page.maxChars)
    const comments = new Map<number, Comment[]>()
    const commentRows = this.stmt(
      `SELECT c.entry_seq, c.id, c.body, c.type, c.author_id, p.name AS author_name, c.created_at
      FROM comments c JOIN principals p ON p.id = c.author_id
      WHERE c.entry_seq IN (SELECT value FROM json_each(?)) ORDER BY c.entry_seq, c.created_at, c.rowid`,
    ).all(JSON.stringify(rows.map((r) => r.seq))) as Row[]
    for (const c of commentRows) {
      const list = comments.get(c.entry_seq as number) ?? []
      list.push(commentFromRow(c))
      comments.set(c.entry_seq as number, list)
    }
    const flags = new Map<string, FlagExport[]>()
    const flagRows = this.stmt(
      `SELECT ${FLAG_COLUMNS} FROM flags f JOIN principals p ON p.id = f.principal_id
      WHERE f.entry_id IN (SELECT value FROM json_each(?)) ORDER BY ${FLAG_ORDER}`,
    ).all(JSON.stringify(rows.map((r) => r.id))) as Row[]
    for (const f of flagRows) flags.set(f.entry_id as string, [...(flags.get(f.entry_id as string) ?? []), flagFromRow(f)])
    const history = this.history.ofEntries(rows.map((r) => r.id as string))
    const entries = rows.map((r) => ({
      ...exportedEntry(r, comments.get(r.seq as number) ?? [], flags.get(r.id as string) ?? []),
      history: history.get(r.id as string) ?? [],
    }))
    const last = rows.at(-1)
    return full && last ? {entries, next: last.seq as number} : {entries}
  }

  /** Every record in one transaction on a connection of its own, in slices between other requests (sqlite-import.ts). */
  async applyImport(records: Iterable<ImportRecord>, options: ImportOptions): Promise<ImportOutcome> {
    return this.gate.exclusive(() =>
      applyImport(this.db, {statements: this.statements, entries: this.entries}, records, options, this.onCommitted),
    )
  }

  async storedAsIs(entry: ImportedEntry, importer: ImportOptions['importer']): Promise<boolean> {
    return storedAsIs(this.statements, entry, importer)
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
