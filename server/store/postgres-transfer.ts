/**
 * @module The PostgreSQL driver's export and import (the Store's `transfer` group): exports read in keyset
 * pages, an import is one transaction over every record (all or none), imports run one at a time across
 * daemons (an advisory lock). There is no online backup through the API: PostgreSQL's own tools (pg_dump,
 * base backups with WAL archiving) do it better, and docs/team-server.md says how.
 */
import {KbError} from '../../src/shared/errors.js'
import {historyOfEntries} from './postgres-history.js'
import {LOCKS, type PostgresDb} from './postgres-db.js'
import {IndexDelta, type PostgresEntryWriter} from './postgres-entries.js'
import {PostgresImportTx} from './postgres-import.js'
import {ImportTally, runAsync, storedAsIs} from './import-rules.js'
import {bindPostgres as bind} from './sql/bind.js'
import {POSTGRES} from './sql/dialect.js'
import {storedIdsSql} from './sql/import.js'
import {countExportSql, EXPORT_MEMBERS, exportCommentsSql, exportEntriesSql, exportFlagsSql, exportProjectsSql} from './sql/transfer.js'
import {cutAtChars, exportPage, type ImportedEntry, projectExportFromRow} from './rows.js'
import type {Viewer} from './store.js'
import type * as T from './transfer-store.js'

/** The statement limit inside an import, whose counter updates cover every entry it writes (docs/team-server.md). */
const IMPORT_STATEMENT_TIMEOUT = '10min'
/** Thrown inside the import transaction to roll it back (dry runs, rejected lines). */
class Rollback extends Error {}

export class PostgresTransferStore implements T.TransferStore {
  constructor(
    private readonly db: PostgresDb,
    private readonly entries: PostgresEntryWriter,
  ) {}

  async exportProjects(viewer: Viewer | null, filter: T.ExportFilter, page: {limit: number; after?: string}): Promise<T.ProjectExport[]> {
    const {sql, params} = exportProjectsSql(viewer, filter, page)
    const out: T.ProjectExport[] = []
    for (const r of await this.db.query(...bind(sql, params))) {
      const project = projectExportFromRow(r)
      // Who else is a member is the owner's to know; another principal's export names only the creator.
      if (!viewer) project.members = await this.db.query(...bind(EXPORT_MEMBERS, {project_id: project.id}))
      out.push(project)
    }
    return out
  }

  async countExportEntries(viewer: Viewer | null, filter: T.ExportFilter): Promise<number> {
    const {sql, params} = countExportSql(viewer, filter)
    return (await this.db.query<{n: number}>(...bind(sql, params)))[0]!.n
  }

  async exportEntries(
    viewer: Viewer | null,
    filter: T.ExportFilter,
    page: {limit: number; after?: number; maxChars?: number},
  ): Promise<{entries: T.EntryExport[]; next?: number}> {
    const {sql, params} = exportEntriesSql(viewer, filter, page)
    const cut = cutAtChars(await this.db.query(...bind(sql, params)), page)
    const [comments, flags, history] = [
      await this.db.query(...bind(exportCommentsSql(POSTGRES), {seqs: POSTGRES.list(cut.rows.map((r) => r.seq))})),
      await this.db.query(...bind(exportFlagsSql(POSTGRES), {ids: POSTGRES.list(cut.rows.map((r) => r.id))})),
      await historyOfEntries(
        this.db,
        cut.rows.map((r) => r.id as string),
      ),
    ]
    return exportPage(cut, {comments, flags, history})
  }

  /**
   * One transaction, imports serialized across daemons, the rules those of import-rules.ts. A constraint they did not foresee
   * (SQLSTATE class 23) aborts a PostgreSQL transaction, so it is reported as its line's rejection and ends
   * the reading there; every other rejection is found and listed, as on SQLite.
   */
  async applyImport(records: Iterable<T.ImportRecord>, options: T.ImportOptions): Promise<T.ImportOutcome> {
    const tally = new ImportTally()
    try {
      await this.db.tx(async (q) => {
        await q.run('SELECT pg_advisory_xact_lock($1)', [LOCKS.import])
        // Its last statements write the counters of every entry at once: longer than a request's limit allows.
        await q.run(`SET LOCAL statement_timeout = '${IMPORT_STATEMENT_TIMEOUT}'`)
        const delta = new IndexDelta()
        const tx = new PostgresImportTx(q, {entries: this.entries, delta})
        for (const record of records) {
          try {
            await runAsync(tally.apply(tx, record, options))
          } catch (e) {
            const constraint = String((e as {code?: unknown}).code ?? '').startsWith('23')
            tally.reject(record.line, e, constraint)
            if (constraint) throw new Rollback()
          }
        }
        if (tally.outcome.rejected.length > 0 || options.dryRun) throw new Rollback()
        await delta.flush(q)
      })
    } catch (e) {
      if (!(e instanceof Rollback)) throw e
    }
    return tally.outcome
  }

  async storedIds(ids: string[]): Promise<Set<string>> {
    const rows = await this.db.query(...bind(storedIdsSql(POSTGRES), {ids: POSTGRES.list(ids)}))
    return new Set(rows.map((r) => r.id as string))
  }

  async storedAsIs(e: ImportedEntry, importer: T.ImportOptions['importer']): Promise<boolean> {
    return runAsync(storedAsIs(new PostgresImportTx(this.db, null), e, importer))
  }

  async snapshot(): Promise<T.StoreSnapshot> {
    throw new KbError(
      'conflict',
      'this server keeps its data in PostgreSQL, which `kb backup` does not copy; back it up with pg_dump or a base backup (docs/team-server.md, "Backups")',
    )
  }
}
