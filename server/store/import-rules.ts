/**
 * @module The rules of applying an import (docs/api.md, "Import"), written once for both drivers: which records
 * the store refuses and why, and what a record writes. It runs no SQL: each driver feeds it from its own
 * transaction through `ImportTx`. The rules are generators that yield each question put to the transaction,
 * so SQLite answers synchronously (`runSync`: an import on SQLite never gives the event loop a turn inside a
 * record) and PostgreSQL asynchronously (`runAsync`).
 */
import type {AuthorRef, Comment} from '../../src/shared/types.js'
import {VERIFY_AFTER_DAYS_DEFAULT} from '../../src/shared/contract.js'
import type {HistoryExport} from './history-store.js'
import {type ImportedEntry, importedRow, type Row, sameAsStored} from './rows.js'
import type {CommentRow, EntryRow, FlagRow, ProjectRow} from './store.js'
import type {FlagExport, ImportOptions, ImportOutcome, ImportRecord, ProjectExport} from './transfer-store.js'

/** Rejections listed in one outcome; an import with more is wrong throughout and the first ones tell why. */
const REJECTIONS_MAX = 1000

/** A line the import refuses; the message is the reason the report gives. */
class Rejection extends Error {}

type MaybePromise<T> = T | Promise<T>

/** What the rules ask of the driver's transaction (SQLite answers at once, PostgreSQL with promises). */
export interface ImportTx {
  principalExists(id: string): MaybePromise<boolean>
  /** The id of the principal named `name`, if any. */
  principalNamed(name: string): MaybePromise<string | undefined>
  insertPrincipal(ref: AuthorRef, at: string): MaybePromise<unknown>
  projectIdByRemote(remote: string): MaybePromise<string | undefined>
  project(id: string): MaybePromise<{name: string; verify_after_days: number} | undefined>
  memberRole(projectId: string, principalId: string): MaybePromise<string | undefined>
  renameProject(id: string, name: string): MaybePromise<unknown>
  setVerifyAfterDays(id: string, days: number): MaybePromise<unknown>
  insertProject(p: ProjectRow): MaybePromise<unknown>
  /** Whether the membership was added (false: it was there). */
  addMember(projectId: string, principalId: string, role: string, at: string): MaybePromise<boolean>
  /** The stored entry row whole, with its author's name (locked for the rest of the transaction where the dialect can). */
  entry(id: string): MaybePromise<Row | undefined>
  visible(id: string, me: string): MaybePromise<boolean>
  commentsOf(seq: number): MaybePromise<Comment[]>
  flagsOf(entryId: string): MaybePromise<FlagExport[]>
  /** Replaces entry `seq` whole, its comments and flags deleted. */
  overwriteEntry(seq: number, row: EntryRow): MaybePromise<unknown>
  insertEntry(row: EntryRow): MaybePromise<number>
  insertFlag(f: FlagRow): MaybePromise<unknown>
  /** The id of the entry comment `id` is on, if it exists. */
  commentEntry(id: string): MaybePromise<string | undefined>
  /** Whether the comment was added (false: its id is there already). */
  insertComment(seq: number, c: Omit<CommentRow, 'entry_id'>): MaybePromise<boolean>
  /** History records, kept by id (those already here are not written twice). */
  importHistory(entryId: string, rows: HistoryExport[]): MaybePromise<unknown>
}

/** A rule in progress: it yields what it asks of the transaction and is given the answer back. */
type Rule<T> = Generator<unknown, T, unknown>

/** The answer of the transaction to one question (a value, or a promise of one for `runAsync`). */
function* ask<T>(answer: MaybePromise<T>): Rule<T> {
  return (yield answer) as T
}

/** Runs a rule on a transaction that answers at once. */
export function runSync<T>(rule: Rule<T>): T {
  let step = rule.next()
  while (!step.done) step = rule.next(step.value)
  return step.value
}

/** Runs a rule on a transaction that answers with promises. */
export async function runAsync<T>(rule: Rule<T>): Promise<T> {
  let step = rule.next()
  while (!step.done) step = rule.next(await step.value)
  return step.value
}

/** `unchanged` counts as skipped too. */
type Outcome = 'created' | 'updated' | 'skipped' | 'unchanged'

/** An import's outcome as its records are applied. */
export class ImportTally {
  readonly outcome: ImportOutcome = {created: 0, updated: 0, skipped: 0, unchanged: 0, principals_created: 0, rejected: []}

  /**
   * Adds the rejection of a record that threw `e`, when it is one: a `Rejection`, or a constraint of the database
   * the rules did not foresee (`constraint`). Throws anything else.
   */
  reject(line: number, e: unknown, constraint: boolean): void {
    if (!(e instanceof Rejection) && !constraint) throw e
    if (this.outcome.rejected.length < REJECTIONS_MAX) this.outcome.rejected.push({line, reason: (e as Error).message})
  }

  /** The rule of one record, its result counted. */
  *apply(tx: ImportTx, record: ImportRecord, options: ImportOptions): Rule<void> {
    const result =
      record.kind === 'project'
        ? yield* importProject(tx, record.project, options, this.outcome)
        : yield* importEntry(tx, record.entry, options, this.outcome, record.unscanned)
    if (result === 'unchanged') this.outcome.skipped++
    this.outcome[result]++
  }
}

/** The principal by id, created (owner imports only) when missing; its name must not belong to another. */
function* principal(tx: ImportTx, ref: AuthorRef, options: ImportOptions, outcome: ImportOutcome, what: string): Rule<void> {
  if (yield* ask(tx.principalExists(ref.id))) return
  if (!options.importer.owner)
    throw new Rejection(`${what} ${ref.name} (${ref.id}) is not a principal of this server; only the owner may import other principals`)
  const other = yield* ask(tx.principalNamed(ref.name))
  if (other !== undefined) throw new Rejection(`${what} ${ref.id} is named ${ref.name}, but that name belongs to principal ${other} here`)
  yield* ask(tx.insertPrincipal(ref, options.at))
  outcome.principals_created++
}

function* importProject(tx: ImportTx, p: ProjectExport, options: ImportOptions, outcome: ImportOutcome): Rule<Outcome> {
  const me = options.importer
  const byRemote = yield* ask(tx.projectIdByRemote(p.remote))
  if (byRemote !== undefined && byRemote !== p.id) throw new Rejection(`remote ${p.remote} already belongs to another project here`)
  const existing = yield* ask(tx.project(p.id))
  if (existing) {
    const myRole = yield* ask(tx.memberRole(p.id, me.id))
    if (!me.owner && myRole === undefined) throw new Rejection(`project ${p.id} exists and you are not a member of it`)
    if (options.onConflict === 'skip') return 'skipped'
    const maintainer = me.owner || myRole === 'maintainer'
    let changed = false
    if (existing.name !== p.name) {
      if (!maintainer) throw new Rejection(`only a maintainer of project ${p.id} or the owner may rename it`)
      yield* ask(tx.renameProject(p.id, p.name))
      changed = true
    }
    if (p.verify_after_days !== undefined && existing.verify_after_days !== p.verify_after_days) {
      if (!maintainer) throw new Rejection(`only a maintainer of project ${p.id} or the owner may change its verify_after_days`)
      yield* ask(tx.setVerifyAfterDays(p.id, p.verify_after_days))
      changed = true
    }
    if (me.owner) changed = (yield* members(tx, p, options, outcome, options.at)) || changed
    return changed ? 'updated' : 'skipped'
  }
  const creator = me.owner ? p.created_by : {id: me.id, name: me.name}
  if (me.owner) yield* principal(tx, creator, options, outcome, 'creator')
  const verify = p.verify_after_days ?? VERIFY_AFTER_DAYS_DEFAULT
  yield* ask(
    tx.insertProject({
      id: p.id,
      name: p.name,
      remote: p.remote,
      created_by: creator.id,
      created_at: p.created_at,
      verify_after_days: verify,
    }),
  )
  yield* ask(tx.addMember(p.id, creator.id, 'maintainer', p.created_at))
  if (me.owner) yield* members(tx, p, options, outcome, p.created_at)
  return 'created'
}

/** The owner's import of a project's members (principals created as needed); whether any was added. */
function* members(tx: ImportTx, p: ProjectExport, options: ImportOptions, outcome: ImportOutcome, at: string): Rule<boolean> {
  let added = false
  for (const m of p.members ?? []) {
    yield* principal(tx, m, options, outcome, 'member')
    added = (yield* ask(tx.addMember(p.id, m.id, m.role, at))) || added
  }
  return added
}

/** Who may write the entry at all: its author (or the owner), its principals known, its project one they are in. */
function* entryAllowed(tx: ImportTx, e: ImportedEntry, options: ImportOptions, outcome: ImportOutcome): Rule<void> {
  const me = options.importer
  if (!me.owner && e.author.id !== me.id)
    throw new Rejection(`entry ${e.id} is by ${e.author.name} (${e.author.id}); only the owner may import entries of other authors`)
  yield* principal(tx, e.author, options, outcome, 'author')
  for (const c of e.comments) yield* principal(tx, c.author, options, outcome, `comment ${c.id}: author`)
  for (const f of e.open_flags) yield* principal(tx, f.by, options, outcome, 'flag: by')
  if (e.project_id === null) return
  if ((yield* ask(tx.project(e.project_id))) === undefined)
    throw new Rejection(`project ${e.project_id} is neither on this server nor on an earlier line of the file`)
  if (!me.owner && (yield* ask(tx.memberRole(e.project_id, me.id))) === undefined)
    throw new Rejection(`you are not a member of project ${e.project_id}`)
}

function* importEntry(tx: ImportTx, e: ImportedEntry, options: ImportOptions, outcome: ImportOutcome, unscanned = false): Rule<Outcome> {
  const me = options.importer
  yield* entryAllowed(tx, e, options, outcome)
  const existing = yield* ask(tx.entry(e.id))
  if (existing && !me.owner && !(yield* ask(tx.visible(e.id, me.id)))) {
    // A hidden entry stays indistinguishable from a missing one (docs/security.md): a dry run reports the
    // creation this line would be without it. Only the import itself must refuse to reuse the id.
    if (options.dryRun) return 'created'
    throw new Rejection(`entry ${e.id} cannot be created here: the id is taken`)
  }
  const same = function* (stored: Row): Rule<boolean> {
    const comments = yield* ask(tx.commentsOf(stored.seq as number))
    return sameAsStored(stored, comments, yield* ask(tx.flagsOf(e.id)), e)
  }
  if (unscanned) {
    if (existing && (yield* same(existing))) return 'unchanged'
    throw new Rejection(`entry ${e.id} changed here while the file was read; import it again`)
  }
  let seq: number
  if (existing) {
    if (options.onConflict === 'skip') return 'skipped'
    if (!me.owner && existing.author_id !== me.id)
      throw new Rejection(`entry ${e.id} exists here and is not yours; only its author or the owner may overwrite it`)
    if (yield* same(existing)) return 'unchanged'
    // Overwriting replaces the comments whole: a member may not erase what others wrote.
    const comments = yield* ask(tx.commentsOf(existing.seq as number))
    if (!me.owner && comments.some((c) => c.author.id !== me.id))
      throw new Rejection(`entry ${e.id} has comments by others here; only the owner may overwrite it`)
    seq = existing.seq as number
    yield* ask(tx.overwriteEntry(seq, importedRow(e)))
  } else {
    seq = yield* ask(tx.insertEntry(importedRow(e)))
  }
  for (const f of e.open_flags) {
    const flag = {
      entry_id: e.id,
      principal_id: f.by.id,
      reason: f.reason,
      note: f.note,
      duplicate_of: f.duplicate_of,
      created_at: f.created_at,
    }
    yield* ask(tx.insertFlag(flag))
  }
  yield* importComments(tx, e, seq, options)
  yield* ask(tx.importHistory(e.id, e.history ?? []))
  return existing ? 'updated' : 'created'
}

/** An entry's comments: one id twice in the line is refused, and so is an id that is here already (hidden as an entry's is). */
function* importComments(tx: ImportTx, e: ImportedEntry, seq: number, options: ImportOptions): Rule<void> {
  const me = options.importer
  const ids = new Set<string>()
  for (const c of e.comments) {
    // The API's line check refuses this first (docs/api.md, "Import"); the store holds to it for any caller.
    if (ids.has(c.id)) throw new Rejection(`comment ${c.id} appears twice`)
    ids.add(c.id)
  }
  for (const c of e.comments) {
    const elsewhere = yield* ask(tx.commentEntry(c.id))
    if (elsewhere !== undefined && !me.owner && !(yield* ask(tx.visible(elsewhere, me.id)))) {
      if (options.dryRun) continue
      throw new Rejection(`comment ${c.id} cannot be created here: the id is taken`)
    }
    if (elsewhere !== undefined) throw new Rejection(`comment ${c.id} already exists here on entry ${elsewhere}`)
    const comment = {id: c.id, body: c.body, type: c.type, author_id: c.author.id, created_at: c.created_at}
    if (!(yield* ask(tx.insertComment(seq, comment)))) throw new Rejection(`comment ${c.id} appears twice`)
  }
}

/** TransferStore.storedAsIs: whether the entry is stored exactly as the record has it, where the importer may see it. */
export function* storedAsIs(tx: ImportTx, e: ImportedEntry, importer: ImportOptions['importer']): Rule<boolean> {
  const existing = yield* ask(tx.entry(e.id))
  if (!existing || (!importer.owner && !(yield* ask(tx.visible(e.id, importer.id))))) return false
  const comments = yield* ask(tx.commentsOf(existing.seq as number))
  return sameAsStored(existing, comments, yield* ask(tx.flagsOf(e.id)), e)
}
