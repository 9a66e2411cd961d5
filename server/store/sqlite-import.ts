/**
 * @module Applying an import in the SQLite store (docs/api.md, "Import"): every record in one transaction,
 * all or none, on a second connection to the file. The records are applied on a thread of their own
 * (sqlite-import-worker.ts; without its compiled module, in slices with the event loop let in between), so
 * `/health`, reads and other requests are served during a large import: reads go through
 * the main connection and see the store as it was until the import commits (WAL), and the driver's other
 * writes wait at the write gate (write-gate.ts) rather than in SQLite, which would stop the event loop.
 */
import {open} from 'node:fs/promises'
import {createRequire} from 'node:module'
import {Worker} from 'node:worker_threads'
import Database from 'better-sqlite3'
import type {AuthorRef, Comment} from '../../src/shared/types.js'
import {KbError} from '../../src/shared/errors.js'
import {TimeSlice} from '../lib/time-slice.js'
import {workerFile} from '../lib/worker-file.js'
import {SqliteEntryWriter} from './sqlite-entries.js'
import {StatementCache} from './sqlite-rows.js'
import {commentFromRow, flagFromRow, type ImportedEntry, type Row} from './rows.js'
import {SqliteTrustWriter} from './sqlite-trust.js'
import {HISTORY_SQL, historyArgs, type HistoryExport} from './history-store.js'
import {ImportTally, type ImportTx, runSync, storedAsIs as storedAsIsRule} from './import-rules.js'
import {SQLITE} from './sql/dialect.js'
import {commentsOfSql, entryWholeSql, IMPORT_SQL as SQL} from './sql/import.js'
import {MEMBER_SQL, PROJECT_SQL} from './sql/principals.js'
import type {CommentRow, EntryRow, FlagRow, ProjectRow} from './store.js'
import type {FlagExport, ImportOptions, ImportOutcome, ImportRecord} from './transfer-store.js'

/** What the driver's own connection writes with: used as is by a store with one connection (in memory). */
interface Writers {
  statements: StatementCache
  entries: SqliteEntryWriter
}

/**
 * Applies the records, or none of them: a rejected record or a dry run rolls everything back. The caller
 * holds the write gate; `onCommitted` runs once the records are in.
 */
export async function applyImport(
  main: Database.Database,
  mainWriters: Writers,
  records: Iterable<ImportRecord>,
  options: ImportOptions,
  onCommitted: () => void,
): Promise<ImportOutcome> {
  // On a file, the records are applied on a thread of their own (sqlite-import-worker.ts), off the event loop.
  if (!main.memory && WORKER) return applyOffThread(WORKER, main.name, records, options, onCommitted)
  const own = main.memory ? null : openImportConnection(main.name)
  const db = own ?? main
  const statements = own ? new StatementCache(own) : mainWriters.statements
  const entries = own ? new SqliteEntryWriter(statements) : mainWriters.entries
  const importer = new Importer(statements, entries, options)
  // A store in memory has one connection, which other requests would write into between slices: no slices there.
  const slice = own ? new TimeSlice() : null
  // The vocabulary of each record is added after it, in slices too (one large entry holds thousands of terms).
  const terms: string[] | null = own ? (entries.deferredTerms = []) : null
  // Each distinct term of the import inserted once (sqlite-entries.ts, knownTerms); the connection is the import's own.
  if (own) entries.knownTerms = new Set()
  try {
    db.exec('BEGIN IMMEDIATE')
    for (const record of records) {
      importer.apply(record)
      if (slice) await slice.pause()
      if (slice && terms) await addVocabularyInSlices(entries, terms, slice)
    }
    if (importer.outcome.rejected.length > 0 || options.dryRun) db.exec('ROLLBACK')
    else {
      // The COMMIT waits for the disk (synchronous = FULL) on the event loop: most of what it would wait for
      // is flushed beforehand by the thread pool, and the copy into the database file is made by a worker.
      if (own) await flushToDisk(`${own.name}-wal`)
      db.exec('COMMIT')
      onCommitted()
      if (own) await checkpointAside(own.name)
    }
    return importer.outcome
  } finally {
    if (db.inTransaction) db.exec('ROLLBACK')
    own?.close()
  }
}

/** Terms added to `search_vocab` at a time between pauses: ~5 ms of inserts. */
const TERMS_PER_SLICE = 500

/** Adds the record's deferred vocabulary terms, a slice at a time, and empties the list. */
async function addVocabularyInSlices(entries: SqliteEntryWriter, terms: string[], slice: TimeSlice): Promise<void> {
  for (let i = 0; i < terms.length; i += TERMS_PER_SLICE) {
    entries.addTerms(terms.slice(i, i + TERMS_PER_SLICE))
    await slice.pause()
  }
  terms.length = 0
}

/**
 * A second connection to the store's file, set up as the driver's own (sqlite.ts). `cacheKiB`: its page cache; the
 * event loop's import keeps it small (see below), the import thread, whose COMMIT holds no one up, a large one.
 */
export function openImportConnection(path: string, cacheKiB = 256): Database.Database {
  const db = new Database(path, {fileMustExist: true})
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  // No checkpoint inside the COMMIT: applyImport has one made aside.
  db.pragma('wal_autocheckpoint = 0')
  // A small page cache spills changed pages to the WAL as the import goes (flushed by the thread pool before
  // the COMMIT), so that few are left for the COMMIT to write and wait for: 30–40 ms instead of 80.
  db.pragma(`cache_size = -${cacheKiB}`)
  return db
}

const WORKER = workerFile(import.meta.url, 'server/store', 'sqlite-import-worker.js')

/** Records posted to the import thread at a time, and batches posted ahead of the one it is applying. */
const RECORDS_PER_BATCH = 256
const BATCHES_AHEAD = 2

/**
 * applyImport on the import thread: the records are read here (a slice at a time, other requests between) and posted
 * to it in batches; it applies them in one transaction on a connection of its own and commits or rolls back there,
 * then copies the WAL into the database file. The event loop only waits. A thread that fails leaves nothing written
 * (its transaction dies with its connection) and the import answers a problem.
 */
async function applyOffThread(
  file: URL,
  path: string,
  records: Iterable<ImportRecord>,
  options: ImportOptions,
  onCommitted: () => void,
): Promise<ImportOutcome> {
  const thread = new ImportThread(new Worker(file, {workerData: {path, options}}))
  threads.add(thread)
  try {
    const slice = new TimeSlice()
    let batch: ImportRecord[] = []
    let ahead = 0
    const post = async (): Promise<void> => {
      thread.post({records: batch})
      batch = []
      for (ahead++; ahead > BATCHES_AHEAD; ahead--) await thread.next()
    }
    for (const record of records) {
      batch.push(record)
      if (batch.length >= RECORDS_PER_BATCH) await post()
      await slice.pause()
    }
    if (batch.length > 0) await post()
    thread.post({end: true})
    for (; ahead > 0; ahead--) await thread.next()
    const done = await thread.next()
    if (!('outcome' in done)) throw new Error('the import thread answered out of turn')
    if (done.committed) onCommitted()
    await thread.exited
    return done.outcome
  } finally {
    threads.delete(thread)
    await thread.stop()
  }
}

const threads = new Set<ImportThread>()

/**
 * Stops every running import thread as a crash would (a test's way to fail one): each import answers a problem and
 * writes nothing. How many were stopped.
 */
export async function stopImportThreads(): Promise<number> {
  const stopping = [...threads]
  await Promise.all(stopping.map((t) => t.stop()))
  return stopping.length
}

/** What the import thread answers: a batch applied, the outcome, or the failure of a record's code. */
export type ImportThreadAnswer = {applied: number} | {outcome: ImportOutcome; committed: boolean} | {fault: string; code?: string}

/** The main side of the import thread: its answers in order, its failure (an error, an exit before the end) as a problem. */
class ImportThread {
  private readonly answers: ImportThreadAnswer[] = []
  private waiter: {resolve: (a: ImportThreadAnswer) => void; reject: (e: unknown) => void} | null = null
  private failure: unknown = null
  readonly exited: Promise<void>

  constructor(private readonly worker: Worker) {
    worker.on('message', (a: ImportThreadAnswer) => {
      if (this.waiter) this.waiter.resolve(a)
      else this.answers.push(a)
      this.waiter = null
    })
    const fail = (cause: unknown): void => {
      this.failure ??= new KbError(
        'unavailable',
        'the import stopped: the thread applying it failed; nothing was written, import it again',
        {
          cause,
        },
      )
      this.waiter?.reject(this.failure)
      this.waiter = null
    }
    worker.on('error', fail)
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()))
    void this.exited.then(() => fail(new Error('the import thread exited')))
  }

  post(message: {records: ImportRecord[]} | {end: true}): void {
    this.worker.postMessage(message)
  }

  /** The next answer; a fault of the thread's code is thrown as the error it was. */
  async next(): Promise<ImportThreadAnswer> {
    let answer = this.answers.shift()
    if (!answer) {
      if (this.failure) throw this.failure
      answer = await new Promise<ImportThreadAnswer>((resolve, reject) => (this.waiter = {resolve, reject}))
    }
    if ('fault' in answer) throw Object.assign(new Error(answer.fault), answer.code ? {code: answer.code} : {})
    return answer
  }

  async stop(): Promise<void> {
    await this.worker.terminate()
  }
}

/** Has the file's written pages reach the disk, in the thread pool. */
async function flushToDisk(path: string): Promise<void> {
  const file = await open(path, 'r')
  try {
    await file.sync()
  } finally {
    await file.close()
  }
}

// A worker of its own (code, not a file: the daemon also runs from TypeScript sources in tests).
const CHECKPOINT = `
const {parentPort, workerData} = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.path, {fileMustExist: true})
try {
  db.pragma('busy_timeout = 5000')
  parentPort.postMessage(db.pragma('wal_checkpoint(PASSIVE)'))
} finally {
  db.close()
}`

/**
 * Copies the WAL into the database file (and syncs it) from a worker thread, so that neither this import
 * nor the next write on the main connection does it on the event loop. Best effort: a checkpoint that
 * fails is made by a later commit.
 */
async function checkpointAside(path: string): Promise<void> {
  const worker = new Worker(CHECKPOINT, {eval: true, workerData: {driver: createRequire(import.meta.url).resolve('better-sqlite3'), path}})
  await new Promise<void>((resolve) => {
    worker.once('message', () => resolve())
    worker.once('error', () => resolve())
    worker.once('exit', () => resolve())
  })
}

/** `ImportTx` on a SQLite connection: every answer at once. */
class SqliteImportTx implements ImportTx {
  private readonly trust: SqliteTrustWriter

  constructor(
    private readonly statements: StatementCache,
    private readonly entries: SqliteEntryWriter | null,
  ) {
    this.trust = new SqliteTrustWriter(statements)
  }

  private get(sql: string, params: Row): Row | undefined {
    return this.statements.get(sql).get(params) as Row | undefined
  }

  private run(sql: string, params: Row): number {
    return this.statements.get(sql).run(params).changes
  }

  private get writer(): SqliteEntryWriter {
    if (!this.entries) throw new Error('a read-only import transaction writes no entries')
    return this.entries
  }

  principalExists = (id: string): boolean => this.get(SQL.principalExists, {id}) !== undefined
  principalNamed = (name: string): string | undefined => this.get(SQL.principalNamed, {name})?.id as string | undefined
  insertPrincipal = (ref: AuthorRef, at: string): number => this.run(SQL.insertPrincipal, {...ref, created_at: at})
  projectIdByRemote = (remote: string): string | undefined => this.get(SQL.projectIdByRemote, {remote})?.id as string | undefined
  project = (id: string): {name: string; verify_after_days: number} | undefined =>
    this.get(SQL.project, {id}) as {name: string; verify_after_days: number} | undefined
  memberRole = (projectId: string, principalId: string): string | undefined =>
    this.get(MEMBER_SQL.role, {project_id: projectId, principal_id: principalId})?.role as string | undefined
  renameProject = (id: string, name: string): number => this.run(PROJECT_SQL.rename, {id, name})
  setVerifyAfterDays = (id: string, days: number): number => this.run(PROJECT_SQL.setVerifyAfterDays, {id, verify_after_days: days})
  insertProject = (p: ProjectRow): number => this.run(PROJECT_SQL.insert, {...p})
  addMember = (projectId: string, principalId: string, role: string, at: string): boolean =>
    this.run(MEMBER_SQL.add, {project_id: projectId, principal_id: principalId, role, created_at: at}) > 0
  entry = (id: string): Row | undefined => this.get(entryWholeSql(SQLITE), {id})
  visible = (id: string, me: string): boolean => this.get(SQL.entryVisible, {id, me}) !== undefined
  commentsOf = (seq: number): Comment[] => (this.statements.get(commentsOfSql(SQLITE)).all({seq}) as Row[]).map(commentFromRow)
  flagsOf = (id: string): FlagExport[] => (this.statements.get(SQL.flagsOf).all({id}) as Row[]).map(flagFromRow)
  overwriteEntry = (seq: number, row: EntryRow): void => {
    this.writer.overwrite(seq, row)
    this.run(SQL.deleteComments, {seq})
    this.run(SQL.deleteFlags, {id: row.id})
  }
  insertEntry = (row: EntryRow): number => this.writer.insert(row)
  insertFlag = (f: FlagRow): void => this.trust.insertFlag(f)
  commentEntry = (id: string): string | undefined => this.get(SQL.commentEntry, {id})?.id as string | undefined
  insertComment = (seq: number, c: Omit<CommentRow, 'entry_id'>): boolean => this.run(SQL.insertComment, {...c, entry_seq: seq}) === 1
  importHistory = (entryId: string, rows: HistoryExport[]): void => {
    // History records are kept by id: those already here (an earlier import of the same file) are not written twice.
    const insert = this.statements.get(HISTORY_SQL.insert.replace('INSERT INTO', 'INSERT OR IGNORE INTO'))
    for (const h of rows) insert.run(...historyArgs({...h, entry_id: entryId}))
  }
}

/** Applies records through the shared rules (import-rules.ts) on the SQLite transaction. */
export class Importer {
  private readonly tally = new ImportTally()
  private readonly tx: SqliteImportTx

  constructor(
    statements: StatementCache,
    entries: SqliteEntryWriter,
    private readonly options: ImportOptions,
  ) {
    this.tx = new SqliteImportTx(statements, entries)
  }

  get outcome(): ImportOutcome {
    return this.tally.outcome
  }

  /** Applies one record, or adds its rejection to the outcome. */
  apply(record: ImportRecord): void {
    try {
      runSync(this.tally.apply(this.tx, record, this.options))
    } catch (e) {
      this.tally.reject(record.line, e, (e as {code?: string}).code?.startsWith('SQLITE_CONSTRAINT') === true)
    }
  }
}

/** TransferStore.storedAsIs on the driver's own connection (a read: no gate, no transaction). */
export function storedAsIs(statements: StatementCache, e: ImportedEntry, importer: ImportOptions['importer']): boolean {
  return runSync(storedAsIsRule(new SqliteImportTx(statements, null), e, importer))
}
