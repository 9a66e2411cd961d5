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
import type {SqliteEntryWriter} from './sqlite-entries.js'
import {applyImport, storedAsIs} from './sqlite-import.js'
import type {SqliteHistoryStore} from './sqlite-history.js'
import type {StatementCache} from './sqlite-rows.js'
import {cutAtChars, exportPage, type ImportedEntry, projectExportFromRow, type Row} from './rows.js'
import {SQLITE} from './sql/dialect.js'
import {storedIdsSql} from './sql/import.js'
import {countExportSql, EXPORT_MEMBERS, exportCommentsSql, exportEntriesSql, exportFlagsSql, exportProjectsSql} from './sql/transfer.js'
import type {Viewer} from './store.js'
import type {
  EntryExport,
  ExportFilter,
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
    const {sql, params} = exportProjectsSql(viewer, filter, page)
    return (this.stmt(sql).all(params) as Row[]).map((r) => {
      const project = projectExportFromRow(r)
      // Who else is a member is the owner's to know; another principal's export names only the creator.
      if (!viewer) project.members = this.stmt(EXPORT_MEMBERS).all({project_id: project.id}) as ProjectExport['members']
      return project
    })
  }

  async countExportEntries(viewer: Viewer | null, filter: ExportFilter): Promise<number> {
    const {sql, params} = countExportSql(viewer, filter)
    return (this.stmt(sql).get(params) as {n: number}).n
  }

  async exportEntries(
    viewer: Viewer | null,
    filter: ExportFilter,
    page: {limit: number; after?: number; maxChars?: number},
  ): Promise<{entries: EntryExport[]; next?: number}> {
    const {sql, params} = exportEntriesSql(viewer, filter, page)
    // Row by row, so that the page can end at `maxChars` without reading the rest of the `limit`.
    const cut = cutAtChars(this.stmt(sql).iterate(params) as IterableIterator<Row>, page)
    return exportPage(cut, {
      comments: this.stmt(exportCommentsSql(SQLITE)).all({seqs: SQLITE.list(cut.rows.map((r) => r.seq))}) as Row[],
      flags: this.stmt(exportFlagsSql(SQLITE)).all({ids: SQLITE.list(cut.rows.map((r) => r.id))}) as Row[],
      history: this.history.ofEntries(cut.rows.map((r) => r.id as string)),
    })
  }

  /** Every record in one transaction on a connection of its own, in slices between other requests (sqlite-import.ts). */
  async applyImport(records: Iterable<ImportRecord>, options: ImportOptions): Promise<ImportOutcome> {
    return this.gate.exclusive(() =>
      applyImport(this.db, {statements: this.statements, entries: this.entries}, records, options, this.onCommitted),
    )
  }

  async storedIds(ids: string[]): Promise<Set<string>> {
    const rows = this.stmt(storedIdsSql(SQLITE)).all({ids: SQLITE.list(ids)}) as Array<{id: string}>
    return new Set(rows.map((r) => r.id))
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
