/**
 * @module Applying an import in the SQLite store (docs/api.md, "Import"): every record in one transaction,
 * all or none, on a second connection to the file. The records are applied in slices with the event loop
 * let in between, so `/health`, reads and other requests are served during a large import: reads go through
 * the main connection and see the store as it was until the import commits (WAL), and the driver's other
 * writes wait at the write gate (write-gate.ts) rather than in SQLite, which would stop the event loop.
 */
import {open} from 'node:fs/promises'
import {createRequire} from 'node:module'
import {Worker} from 'node:worker_threads'
import Database from 'better-sqlite3'
import type {AuthorRef, Comment} from '../../src/shared/types.js'
import {TimeSlice} from '../lib/time-slice.js'
import {SqliteEntryWriter} from './sqlite-entries.js'
import {StatementCache, VISIBLE_TO_ME} from './sqlite-rows.js'
import {commentFromRow, FLAG_COLUMNS, FLAG_ORDER, flagFromRow, type ImportedEntry, importedRow, type Row, sameAsStored} from './rows.js'
import {SqliteTrustWriter} from './sqlite-trust.js'
import {HISTORY_SQL, historyArgs} from './history-store.js'
import {VERIFY_AFTER_DAYS_DEFAULT} from '../../src/shared/contract.js'
import type {FlagExport, ImportOptions, ImportOutcome, ImportRecord, ProjectExport} from './transfer-store.js'

/** Rejections listed in one outcome; an import with more is wrong throughout and the first ones tell why. */
const REJECTIONS_MAX = 1000

/** A line the import refuses; the message is the reason the report gives. */
class Rejection extends Error {}

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
  const own = main.memory ? null : openImportConnection(main.name)
  const db = own ?? main
  const statements = own ? new StatementCache(own) : mainWriters.statements
  const entries = own ? new SqliteEntryWriter(statements) : mainWriters.entries
  const importer = new Importer(statements, entries, options)
  // A store in memory has one connection, which other requests would write into between slices: no slices there.
  const slice = own ? new TimeSlice() : null
  // The vocabulary of each record is added after it, in slices too (one large entry holds thousands of terms).
  const terms: string[] | null = own ? (entries.deferredTerms = []) : null
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

/** A second connection to the store's file, set up as the driver's own (sqlite.ts). */
function openImportConnection(path: string): Database.Database {
  const db = new Database(path, {fileMustExist: true})
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  // No checkpoint inside the COMMIT: applyImport has one made aside.
  db.pragma('wal_autocheckpoint = 0')
  // A small page cache spills changed pages to the WAL as the import goes (flushed by the thread pool before
  // the COMMIT), so that few are left for the COMMIT to write and wait for: 30–40 ms instead of 80.
  db.pragma('cache_size = -256')
  return db
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

class Importer {
  readonly outcome: ImportOutcome = {created: 0, updated: 0, skipped: 0, unchanged: 0, principals_created: 0, rejected: []}

  constructor(
    private readonly statements: StatementCache,
    private readonly entries: SqliteEntryWriter,
    private readonly options: ImportOptions,
  ) {
    this.trust = new SqliteTrustWriter(statements)
  }

  private readonly trust: SqliteTrustWriter

  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql)
  }

  /** Applies one record, or adds its rejection to the outcome. */
  apply(record: ImportRecord): void {
    try {
      const result = record.kind === 'project' ? this.importProject(record.project) : this.importEntry(record.entry, record.unscanned)
      if (result === 'unchanged') this.outcome.skipped++
      this.outcome[result]++
    } catch (e) {
      const constraint = (e as {code?: string}).code?.startsWith('SQLITE_CONSTRAINT')
      if (!(e instanceof Rejection) && !constraint) throw e
      if (this.outcome.rejected.length < REJECTIONS_MAX) this.outcome.rejected.push({line: record.line, reason: (e as Error).message})
    }
  }

  /** The principal by id, created (owner imports only) when missing; its name must not belong to another. */
  private principal(ref: AuthorRef, what: string): void {
    if (this.stmt('SELECT 1 FROM principals WHERE id = ?').get(ref.id)) return
    if (!this.options.importer.owner)
      throw new Rejection(`${what} ${ref.name} (${ref.id}) is not a principal of this server; only the owner may import other principals`)
    const other = this.stmt('SELECT id FROM principals WHERE name = ?').pluck().get(ref.name) as string | undefined
    if (other) throw new Rejection(`${what} ${ref.id} is named ${ref.name}, but that name belongs to principal ${other} here`)
    this.stmt(`INSERT INTO principals (id, name, role, created_at) VALUES (?, ?, 'member', ?)`).run(ref.id, ref.name, this.options.at)
    this.outcome.principals_created++
  }

  private importProject(p: ProjectExport): 'created' | 'updated' | 'skipped' {
    const {importer: me, onConflict, at} = this.options
    const byRemote = this.stmt('SELECT id FROM projects WHERE remote = ?').pluck().get(p.remote) as string | undefined
    if (byRemote !== undefined && byRemote !== p.id) throw new Rejection(`remote ${p.remote} already belongs to another project here`)
    const existing = this.stmt('SELECT name, verify_after_days FROM projects WHERE id = ?').get(p.id) as
      {name: string; verify_after_days: number} | undefined
    const role = this.stmt('SELECT role FROM memberships WHERE project_id = ? AND principal_id = ?').pluck()
    const addMember = this.stmt('INSERT OR IGNORE INTO memberships (project_id, principal_id, role, created_at) VALUES (?, ?, ?, ?)')
    if (existing) {
      const myRole = role.get(p.id, me.id) as string | undefined
      if (!me.owner && myRole === undefined) throw new Rejection(`project ${p.id} exists and you are not a member of it`)
      if (onConflict === 'skip') return 'skipped'
      let changed = false
      if (existing.name !== p.name) {
        if (!me.owner && myRole !== 'maintainer') throw new Rejection(`only a maintainer of project ${p.id} or the owner may rename it`)
        this.stmt('UPDATE projects SET name = ? WHERE id = ?').run(p.name, p.id)
        changed = true
      }
      if (p.verify_after_days !== undefined && existing.verify_after_days !== p.verify_after_days) {
        if (!me.owner && myRole !== 'maintainer')
          throw new Rejection(`only a maintainer of project ${p.id} or the owner may change its verify_after_days`)
        this.stmt('UPDATE projects SET verify_after_days = ? WHERE id = ?').run(p.verify_after_days, p.id)
        changed = true
      }
      if (me.owner) {
        for (const m of p.members ?? []) {
          this.principal(m, 'member')
          changed = addMember.run(p.id, m.id, m.role, at).changes > 0 || changed
        }
      }
      return changed ? 'updated' : 'skipped'
    }
    const creator = me.owner ? p.created_by : {id: me.id, name: me.name}
    if (me.owner) this.principal(creator, 'creator')
    this.stmt('INSERT INTO projects (id, name, remote, created_by, created_at, verify_after_days) VALUES (?, ?, ?, ?, ?, ?)').run(
      p.id,
      p.name,
      p.remote,
      creator.id,
      p.created_at,
      p.verify_after_days ?? VERIFY_AFTER_DAYS_DEFAULT,
    )
    addMember.run(p.id, creator.id, 'maintainer', p.created_at)
    if (me.owner) {
      for (const m of p.members ?? []) {
        this.principal(m, 'member')
        addMember.run(p.id, m.id, m.role, p.created_at)
      }
    }
    return 'created'
  }

  private importEntry(e: ImportedEntry, unscanned = false): 'created' | 'updated' | 'skipped' | 'unchanged' {
    const me = this.options.importer
    if (!me.owner && e.author.id !== me.id)
      throw new Rejection(`entry ${e.id} is by ${e.author.name} (${e.author.id}); only the owner may import entries of other authors`)
    this.principal(e.author, 'author')
    for (const c of e.comments) this.principal(c.author, `comment ${c.id}: author`)
    for (const f of e.open_flags) this.principal(f.by, 'flag: by')
    if (e.project_id !== null) {
      if (!this.stmt('SELECT 1 FROM projects WHERE id = ?').get(e.project_id)) {
        throw new Rejection(`project ${e.project_id} is neither on this server nor on an earlier line of the file`)
      }
      if (!me.owner && !this.stmt('SELECT 1 FROM memberships WHERE project_id = ? AND principal_id = ?').get(e.project_id, me.id)) {
        throw new Rejection(`you are not a member of project ${e.project_id}`)
      }
    }
    const existing = this.stmt(
      'SELECT e.*, p.name AS author_name FROM entries e JOIN principals p ON p.id = e.author_id WHERE e.id = ?',
    ).get(e.id) as Row | undefined
    if (existing && !me.owner && !this.visible(e.id, me.id)) {
      // A hidden entry stays indistinguishable from a missing one (docs/security.md): a dry run reports the
      // creation this line would be without it. Only the import itself must refuse to reuse the id.
      if (this.options.dryRun) return 'created'
      throw new Rejection(`entry ${e.id} cannot be created here: the id is taken`)
    }
    const same = (): boolean =>
      sameAsStored(existing!, commentsOf(this.statements, existing!.seq as number), flagsOf(this.statements, e.id), e)
    if (unscanned) {
      if (existing && same()) return 'unchanged'
      throw new Rejection(`entry ${e.id} changed here while the file was read; import it again`)
    }
    let seq: number
    if (existing) {
      if (this.options.onConflict === 'skip') return 'skipped'
      if (!me.owner && existing.author_id !== me.id)
        throw new Rejection(`entry ${e.id} exists here and is not yours; only its author or the owner may overwrite it`)
      const comments = commentsOf(this.statements, existing.seq as number)
      if (same()) return 'unchanged'
      // Overwriting replaces the comments whole: a member may not erase what others wrote.
      if (!me.owner && comments.some((c) => c.author.id !== me.id))
        throw new Rejection(`entry ${e.id} has comments by others here; only the owner may overwrite it`)
      seq = existing.seq as number
      this.entries.overwrite(seq, importedRow(e))
      this.stmt('DELETE FROM comments WHERE entry_seq = ?').run(seq)
      this.stmt('DELETE FROM flags WHERE entry_id = ?').run(e.id)
    } else {
      seq = this.entries.insert(importedRow(e))
    }
    for (const f of e.open_flags) {
      this.trust.insertFlag({
        entry_id: e.id,
        principal_id: f.by.id,
        reason: f.reason,
        note: f.note,
        duplicate_of: f.duplicate_of,
        created_at: f.created_at,
      })
    }
    const elsewhere = this.stmt('SELECT e.id FROM comments c JOIN entries e ON e.seq = c.entry_seq WHERE c.id = ?').pluck()
    for (const c of e.comments) {
      const owner = elsewhere.get(c.id) as string | undefined
      if (owner !== undefined && !me.owner && !this.visible(owner, me.id)) {
        if (this.options.dryRun) continue
        throw new Rejection(`comment ${c.id} cannot be created here: the id is taken`)
      }
      if (owner !== undefined) throw new Rejection(`comment ${c.id} already exists here on entry ${owner}`)
      this.entries.insertComment(seq, {id: c.id, body: c.body, type: c.type, author_id: c.author.id, created_at: c.created_at})
    }
    // History records are kept by id: those already here (an earlier import of the same file) are not written twice.
    const insertHistory = this.stmt(HISTORY_SQL.insert.replace('INSERT INTO', 'INSERT OR IGNORE INTO'))
    for (const h of e.history ?? []) insertHistory.run(...historyArgs({...h, entry_id: e.id}))
    return existing ? 'updated' : 'created'
  }

  /** Whether principal `me` may see entry `id` (the rule of every read). */
  private visible(id: string, me: string): boolean {
    return this.stmt(`SELECT 1 FROM entries e WHERE e.id = @id AND ${VISIBLE_TO_ME}`).get({id, me}) !== undefined
  }
}

function flagsOf(statements: StatementCache, entryId: string): FlagExport[] {
  return (
    statements
      .get(`SELECT ${FLAG_COLUMNS} FROM flags f JOIN principals p ON p.id = f.principal_id WHERE f.entry_id = ? ORDER BY ${FLAG_ORDER}`)
      .all(entryId) as Row[]
  ).map(flagFromRow)
}

function commentsOf(statements: StatementCache, seq: number): Comment[] {
  return (
    statements
      .get(
        `SELECT c.id, c.body, c.type, c.author_id, p.name AS author_name, c.created_at FROM comments c
      JOIN principals p ON p.id = c.author_id WHERE c.entry_seq = ? ORDER BY c.created_at, c.rowid`,
      )
      .all(seq) as Row[]
  ).map(commentFromRow)
}

/** TransferStore.storedAsIs on the driver's own connection (a read: no gate, no transaction). */
export function storedAsIs(statements: StatementCache, e: ImportedEntry, importer: ImportOptions['importer']): boolean {
  const existing = statements
    .get('SELECT e.*, p.name AS author_name FROM entries e JOIN principals p ON p.id = e.author_id WHERE e.id = ?')
    .get(e.id) as Row | undefined
  if (!existing) return false
  if (!importer.owner && !statements.get(`SELECT 1 FROM entries e WHERE e.id = @id AND ${VISIBLE_TO_ME}`).get({id: e.id, me: importer.id}))
    return false
  return sameAsStored(existing, commentsOf(statements, existing.seq as number), flagsOf(statements, e.id), e)
}
