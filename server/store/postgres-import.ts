/**
 * @module `ImportTx` on a PostgreSQL transaction (or the pool, for reads): the shared import rules of
 * import-rules.ts answered with the statements of sql/import.ts, the entry row locked as it is read.
 */
import type {AuthorRef, Comment} from '../../src/shared/types.js'
import type {Queryable} from './postgres-db.js'
import type {IndexDelta, PostgresEntryWriter} from './postgres-entries.js'
import {importHistory} from './postgres-history.js'
import {PostgresTrustWriter} from './postgres-trust.js'
import type {HistoryExport} from './history-store.js'
import type {ImportTx} from './import-rules.js'
import {commentFromRow, flagFromRow, type Row} from './rows.js'
import {bindPostgres as bind, type Params} from './sql/bind.js'
import {POSTGRES} from './sql/dialect.js'
import {commentsOfSql, entryWholeSql, IMPORT_SQL as SQL} from './sql/import.js'
import {MEMBER_SQL, PROJECT_SQL} from './sql/principals.js'
import type {CommentRow, EntryRow, FlagRow, ProjectRow} from './store.js'
import type {FlagExport} from './transfer-store.js'

const trust = new PostgresTrustWriter()

export class PostgresImportTx implements ImportTx {
  /** `writer` is null for reads outside a transaction (storedAsIs): the entry row is then not locked. */
  constructor(
    private readonly q: Queryable,
    private readonly writer: {entries: PostgresEntryWriter; delta: IndexDelta} | null,
  ) {}

  private async first(sql: string, params: Params): Promise<Row | undefined> {
    return (await this.q.query(...bind(sql, params)))[0]
  }

  private run(sql: string, params: Params): Promise<number> {
    return this.q.run(...bind(sql, params))
  }

  private get entries(): {entries: PostgresEntryWriter; delta: IndexDelta} {
    if (!this.writer) throw new Error('a read-only import transaction writes no entries')
    return this.writer
  }

  /**
   * Principals found or created by this transaction: an import names the same few authors on every line, and each
   * question is a round trip (an import deletes no principal, so one found stays found).
   */
  private readonly principals = new Set<string>()

  principalExists = async (id: string): Promise<boolean> => {
    if (this.principals.has(id)) return true
    const found = (await this.first(SQL.principalExists, {id})) !== undefined
    if (found) this.principals.add(id)
    return found
  }
  principalNamed = async (name: string): Promise<string | undefined> =>
    (await this.first(SQL.principalNamed, {name}))?.id as string | undefined
  insertPrincipal = async (ref: AuthorRef, at: string): Promise<number> => {
    const n = await this.run(SQL.insertPrincipal, {...ref, created_at: at})
    this.principals.add(ref.id)
    return n
  }
  projectIdByRemote = async (remote: string): Promise<string | undefined> =>
    (await this.first(SQL.projectIdByRemote, {remote}))?.id as string | undefined
  project = async (id: string): Promise<{name: string; verify_after_days: number} | undefined> =>
    (await this.first(SQL.project, {id})) as {name: string; verify_after_days: number} | undefined
  memberRole = async (projectId: string, principalId: string): Promise<string | undefined> =>
    (await this.first(MEMBER_SQL.role, {project_id: projectId, principal_id: principalId}))?.role as string | undefined
  renameProject = (id: string, name: string): Promise<number> => this.run(PROJECT_SQL.rename, {id, name})
  setVerifyAfterDays = (id: string, days: number): Promise<number> =>
    this.run(PROJECT_SQL.setVerifyAfterDays, {id, verify_after_days: days})
  insertProject = (p: ProjectRow): Promise<number> => this.run(PROJECT_SQL.insert, {...p})
  addMember = async (projectId: string, principalId: string, role: string, at: string): Promise<boolean> =>
    (await this.run(MEMBER_SQL.add, {project_id: projectId, principal_id: principalId, role, created_at: at})) > 0
  entry = (id: string): Promise<Row | undefined> =>
    this.first(this.writer ? entryWholeSql(POSTGRES) : entryWholeSql({...POSTGRES, lockEntry: ''}), {id})
  visible = async (id: string, me: string): Promise<boolean> => (await this.first(SQL.entryVisible, {id, me})) !== undefined
  commentsOf = async (seq: number): Promise<Comment[]> => (await this.q.query(...bind(commentsOfSql(POSTGRES), {seq}))).map(commentFromRow)
  flagsOf = async (id: string): Promise<FlagExport[]> => (await this.q.query(...bind(SQL.flagsOf, {id}))).map(flagFromRow)
  overwriteEntry = async (seq: number, row: EntryRow): Promise<void> => {
    await this.entries.entries.overwrite(this.q, seq, row, this.entries.delta)
    await this.run(SQL.deleteComments, {seq})
    await this.run(SQL.deleteFlags, {id: row.id})
  }
  insertEntry = (row: EntryRow): Promise<number> => this.entries.entries.insert(this.q, row, this.entries.delta)
  insertFlag = (f: FlagRow): Promise<void> => trust.insertFlag(this.q, f)
  commentEntry = async (id: string): Promise<string | undefined> => (await this.first(SQL.commentEntry, {id}))?.id as string | undefined
  insertComment = async (seq: number, c: Omit<CommentRow, 'entry_id'>): Promise<boolean> =>
    (await this.run(SQL.insertComment, {...c, entry_seq: seq})) === 1
  importHistory = (entryId: string, rows: HistoryExport[]): Promise<void> => importHistory(this.q, entryId, rows)
}
