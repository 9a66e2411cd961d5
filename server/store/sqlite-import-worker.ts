/**
 * @module The thread a SQLite import is applied on (sqlite-import.ts, applyOffThread): the records arrive in batches and
 * are applied in one transaction on a connection of its own, each distinct vocabulary term inserted once; at the end it
 * commits (or rolls back a dry run or a rejected record), answers the outcome, and copies the WAL into the database
 * file before it ends. Its COMMIT waits for the disk here, so the connection keeps a large page cache.
 */
import {parentPort, workerData} from 'node:worker_threads'
import {Importer, openImportConnection, type ImportThreadAnswer} from './sqlite-import.js'
import {SqliteEntryWriter} from './sqlite-entries.js'
import {StatementCache} from './sqlite-rows.js'
import type {ImportOptions, ImportRecord} from './transfer-store.js'

/** The import connection's page cache: pages changed by the import stay in memory until the COMMIT writes them. */
const CACHE_KIB = 64 * 1024

const {path, options} = workerData as {path: string; options: ImportOptions}
const port = parentPort!
const db = openImportConnection(path, CACHE_KIB)
const statements = new StatementCache(db)
const entries = new SqliteEntryWriter(statements)
entries.knownTerms = new Set()
const importer = new Importer(statements, entries, options)
db.exec('BEGIN IMMEDIATE')

const answer = (a: ImportThreadAnswer): void => port.postMessage(a)

port.on('message', (m: {records: ImportRecord[]} | {end: true}) => {
  try {
    if ('records' in m) {
      for (const record of m.records) importer.apply(record)
      answer({applied: m.records.length})
      return
    }
    const commit = importer.outcome.rejected.length === 0 && !options.dryRun
    db.exec(commit ? 'COMMIT' : 'ROLLBACK')
    answer({outcome: importer.outcome, committed: commit})
    // No other connection waits for this one: the copy into the database file is made here, best effort.
    if (commit) db.pragma('wal_checkpoint(PASSIVE)')
    end()
  } catch (e) {
    const code = (e as {code?: unknown}).code
    answer({fault: e instanceof Error ? (e.stack ?? e.message) : String(e), ...(typeof code === 'string' ? {code} : {})})
    end()
  }
})

function end(): void {
  if (db.inTransaction) db.exec('ROLLBACK')
  db.close()
  port.close()
}
