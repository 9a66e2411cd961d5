/**
 * @module The PostgreSQL driver's export and import (the Store's `transfer` group): exports read in keyset
 * pages, an import is one transaction over every record (all or none), imports run one at a time across
 * daemons (an advisory lock). There is no online backup through the API: PostgreSQL's own tools (pg_dump,
 * base backups with WAL archiving) do it better, and docs/team-server.md says how.
 */
import {VERIFY_AFTER_DAYS_DEFAULT} from '../../src/shared/contract.js'
import {KbError} from '../../src/shared/errors.js'
import {PostgresTrustWriter} from './postgres-trust.js'
import {historyOfEntries, importHistory} from './postgres-history.js'
import type {AuthorRef, Comment} from '../../src/shared/types.js'
import {LOCKS, type PostgresDb, type Queryable, type Row} from './postgres-db.js'
import {IndexDelta, type PostgresEntryWriter} from './postgres-entries.js'
import {COMMENT_COLUMNS, COMMENT_ORDER, visibleTo} from './postgres-rows.js'
import {bindPostgres as bind} from './sql/bind.js'
import {POSTGRES} from './sql/dialect.js'
import {countExportSql, EXPORT_MEMBERS, exportCommentsSql, exportEntriesSql, exportFlagsSql, exportProjectsSql} from './sql/transfer.js'
import {
  commentFromRow,
  cutAtChars,
  exportPage,
  FLAG_COLUMNS,
  FLAG_ORDER,
  flagFromRow,
  type ImportedEntry,
  importedRow,
  projectExportFromRow,
  sameAsStored,
} from './rows.js'
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

/** The statement limit inside an import, whose counter updates cover every entry it writes (docs/team-server.md). */
const IMPORT_STATEMENT_TIMEOUT = '10min'
/** Rejections listed in one outcome; an import with more is wrong throughout and the first ones tell why. */
const REJECTIONS_MAX = 1000

/** Thrown inside the import transaction to roll it back (dry runs, rejected lines). */
class Rollback extends Error {}

/** A line the import refuses; the message is the reason the report gives. */
class Rejection extends Error {}

/** `unchanged` counts as skipped too. */
type Outcome = 'created' | 'updated' | 'skipped' | 'unchanged'

export class PostgresTransferStore implements TransferStore {
  constructor(
    private readonly db: PostgresDb,
    private readonly entries: PostgresEntryWriter,
  ) {}

  private readonly trust = new PostgresTrustWriter()

  async exportProjects(viewer: Viewer | null, filter: ExportFilter, page: {limit: number; after?: string}): Promise<ProjectExport[]> {
    const {sql, params} = exportProjectsSql(viewer, filter, page)
    const out: ProjectExport[] = []
    for (const r of await this.db.query(...bind(sql, params))) {
      const project = projectExportFromRow(r)
      // Who else is a member is the owner's to know; another principal's export names only the creator.
      if (!viewer) project.members = await this.db.query(...bind(EXPORT_MEMBERS, {project_id: project.id}))
      out.push(project)
    }
    return out
  }

  async countExportEntries(viewer: Viewer | null, filter: ExportFilter): Promise<number> {
    const {sql, params} = countExportSql(viewer, filter)
    return (await this.db.query<{n: number}>(...bind(sql, params)))[0]!.n
  }

  async exportEntries(
    viewer: Viewer | null,
    filter: ExportFilter,
    page: {limit: number; after?: number; maxChars?: number},
  ): Promise<{entries: EntryExport[]; next?: number}> {
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
   * One transaction, imports serialized across daemons. A constraint the checks below did not foresee
   * (SQLSTATE class 23) aborts a PostgreSQL transaction, so it is reported as its line's rejection and ends
   * the reading there; every other rejection is found and listed, as on SQLite.
   */
  async applyImport(records: Iterable<ImportRecord>, options: ImportOptions): Promise<ImportOutcome> {
    const outcome: ImportOutcome = {created: 0, updated: 0, skipped: 0, unchanged: 0, principals_created: 0, rejected: []}
    try {
      await this.db.tx(async (q) => {
        await q.run('SELECT pg_advisory_xact_lock($1)', [LOCKS.import])
        // Its last statements write the counters of every entry at once: longer than a request's limit allows.
        await q.run(`SET LOCAL statement_timeout = '${IMPORT_STATEMENT_TIMEOUT}'`)
        const delta = new IndexDelta()
        for (const record of records) {
          try {
            const result =
              record.kind === 'project'
                ? await this.importProject(q, record.project, options, outcome)
                : await this.importEntry(q, record.entry, options, outcome, delta, record.unscanned)
            if (result === 'unchanged') outcome.skipped++
            outcome[result]++
          } catch (e) {
            const constraint = String((e as {code?: unknown}).code ?? '').startsWith('23')
            if (!(e instanceof Rejection) && !constraint) throw e
            if (outcome.rejected.length < REJECTIONS_MAX) outcome.rejected.push({line: record.line, reason: (e as Error).message})
            if (constraint) throw new Rollback()
          }
        }
        if (outcome.rejected.length > 0 || options.dryRun) throw new Rollback()
        await delta.flush(q)
      })
    } catch (e) {
      if (!(e instanceof Rollback)) throw e
    }
    return outcome
  }

  /** The principal by id, created (owner imports only) when missing; its name must not belong to another. */
  private async principal(q: Queryable, ref: AuthorRef, options: ImportOptions, outcome: ImportOutcome, what: string): Promise<void> {
    if ((await q.query('SELECT 1 FROM principals WHERE id = $1', [ref.id])).length > 0) return
    if (!options.importer.owner)
      throw new Rejection(`${what} ${ref.name} (${ref.id}) is not a principal of this server; only the owner may import other principals`)
    const [other] = await q.query<{id: string}>('SELECT id FROM principals WHERE name = $1', [ref.name])
    if (other) throw new Rejection(`${what} ${ref.id} is named ${ref.name}, but that name belongs to principal ${other.id} here`)
    await q.run(`INSERT INTO principals (id, name, role, created_at) VALUES ($1, $2, 'member', $3)`, [ref.id, ref.name, options.at])
    outcome.principals_created++
  }

  private async importProject(q: Queryable, p: ProjectExport, options: ImportOptions, outcome: ImportOutcome): Promise<Outcome> {
    const me = options.importer
    const [byRemote] = await q.query<{id: string}>('SELECT id FROM projects WHERE remote = $1', [p.remote])
    if (byRemote !== undefined && byRemote.id !== p.id) throw new Rejection(`remote ${p.remote} already belongs to another project here`)
    const [existing] = await q.query<{name: string; verify_after_days: number}>(
      'SELECT name, verify_after_days FROM projects WHERE id = $1',
      [p.id],
    )
    const addMember = async (id: string, role: string, at: string): Promise<boolean> =>
      (await q.run('INSERT INTO memberships (project_id, principal_id, role, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
        p.id,
        id,
        role,
        at,
      ])) > 0
    if (existing) {
      const [mine] = await q.query<{role: string}>('SELECT role FROM memberships WHERE project_id = $1 AND principal_id = $2', [
        p.id,
        me.id,
      ])
      if (!me.owner && mine === undefined) throw new Rejection(`project ${p.id} exists and you are not a member of it`)
      if (options.onConflict === 'skip') return 'skipped'
      let changed = false
      if (existing.name !== p.name) {
        if (!me.owner && mine?.role !== 'maintainer') throw new Rejection(`only a maintainer of project ${p.id} or the owner may rename it`)
        await q.run('UPDATE projects SET name = $1 WHERE id = $2', [p.name, p.id])
        changed = true
      }
      if (p.verify_after_days !== undefined && existing.verify_after_days !== p.verify_after_days) {
        if (!me.owner && mine?.role !== 'maintainer')
          throw new Rejection(`only a maintainer of project ${p.id} or the owner may change its verify_after_days`)
        await q.run('UPDATE projects SET verify_after_days = $1 WHERE id = $2', [p.verify_after_days, p.id])
        changed = true
      }
      if (me.owner) {
        for (const m of p.members ?? []) {
          await this.principal(q, m, options, outcome, 'member')
          changed = (await addMember(m.id, m.role, options.at)) || changed
        }
      }
      return changed ? 'updated' : 'skipped'
    }
    const creator = me.owner ? p.created_by : {id: me.id, name: me.name}
    if (me.owner) await this.principal(q, creator, options, outcome, 'creator')
    await q.run('INSERT INTO projects (id, name, remote, created_by, created_at, verify_after_days) VALUES ($1, $2, $3, $4, $5, $6)', [
      p.id,
      p.name,
      p.remote,
      creator.id,
      p.created_at,
      p.verify_after_days ?? VERIFY_AFTER_DAYS_DEFAULT,
    ])
    await addMember(creator.id, 'maintainer', p.created_at)
    if (me.owner) {
      for (const m of p.members ?? []) {
        await this.principal(q, m, options, outcome, 'member')
        await addMember(m.id, m.role, p.created_at)
      }
    }
    return 'created'
  }

  private async importEntry(
    q: Queryable,
    e: ImportedEntry,
    options: ImportOptions,
    outcome: ImportOutcome,
    delta: IndexDelta,
    unscanned = false,
  ): Promise<Outcome> {
    const me = options.importer
    if (!me.owner && e.author.id !== me.id)
      throw new Rejection(`entry ${e.id} is by ${e.author.name} (${e.author.id}); only the owner may import entries of other authors`)
    await this.principal(q, e.author, options, outcome, 'author')
    for (const c of e.comments) await this.principal(q, c.author, options, outcome, `comment ${c.id}: author`)
    for (const f of e.open_flags) await this.principal(q, f.by, options, outcome, 'flag: by')
    if (e.project_id !== null) {
      if ((await q.query('SELECT 1 FROM projects WHERE id = $1', [e.project_id])).length === 0) {
        throw new Rejection(`project ${e.project_id} is neither on this server nor on an earlier line of the file`)
      }
      if (
        !me.owner &&
        (await q.query('SELECT 1 FROM memberships WHERE project_id = $1 AND principal_id = $2', [e.project_id, me.id])).length === 0
      ) {
        throw new Rejection(`you are not a member of project ${e.project_id}`)
      }
    }
    const [existing] = await q.query(
      'SELECT e.*, p.name AS author_name FROM entries e JOIN principals p ON p.id = e.author_id WHERE e.id = $1 FOR UPDATE OF e',
      [e.id],
    )
    if (existing && !me.owner && !(await visible(q, e.id, me.id))) {
      // A hidden entry stays indistinguishable from a missing one (docs/security.md): a dry run reports the
      // creation this line would be without it. Only the import itself must refuse to reuse the id.
      if (options.dryRun) return 'created'
      throw new Rejection(`entry ${e.id} cannot be created here: the id is taken`)
    }
    const same = async (): Promise<boolean> =>
      sameAsStored(existing!, await this.commentsOf(q, existing!.seq as number), await this.flagsOf(q, e.id), e)
    if (unscanned) {
      if (existing && (await same())) return 'unchanged'
      throw new Rejection(`entry ${e.id} changed here while the file was read; import it again`)
    }
    let seq: number
    if (existing) {
      if (options.onConflict === 'skip') return 'skipped'
      if (!me.owner && existing.author_id !== me.id)
        throw new Rejection(`entry ${e.id} exists here and is not yours; only its author or the owner may overwrite it`)
      const comments = await this.commentsOf(q, existing.seq as number)
      if (await same()) return 'unchanged'
      // Overwriting replaces the comments whole: a member may not erase what others wrote.
      if (!me.owner && comments.some((c) => c.author.id !== me.id))
        throw new Rejection(`entry ${e.id} has comments by others here; only the owner may overwrite it`)
      seq = existing.seq as number
      await this.entries.overwrite(q, seq, importedRow(e), delta)
      await q.run('DELETE FROM comments WHERE entry_seq = $1', [seq])
      await q.run('DELETE FROM flags WHERE entry_id = $1', [e.id])
    } else {
      seq = await this.entries.insert(q, importedRow(e), delta)
    }
    for (const f of e.open_flags) {
      await this.trust.insertFlag(q, {
        entry_id: e.id,
        principal_id: f.by.id,
        reason: f.reason,
        note: f.note,
        duplicate_of: f.duplicate_of,
        created_at: f.created_at,
      })
    }
    for (const c of e.comments) {
      const [elsewhere] = await q.query<{id: string}>('SELECT e.id FROM comments c JOIN entries e ON e.seq = c.entry_seq WHERE c.id = $1', [
        c.id,
      ])
      if (elsewhere && !me.owner && !(await visible(q, elsewhere.id, me.id))) {
        if (options.dryRun) continue
        throw new Rejection(`comment ${c.id} cannot be created here: the id is taken`)
      }
      if (elsewhere) throw new Rejection(`comment ${c.id} already exists here on entry ${elsewhere.id}`)
      if (
        !(await this.entries.insertComment(q, seq, {
          id: c.id,
          body: c.body,
          type: c.type,
          author_id: c.author.id,
          created_at: c.created_at,
        }))
      ) {
        throw new Rejection(`comment ${c.id} appears twice`)
      }
    }
    await importHistory(q, e.id, e.history)
    return existing ? 'updated' : 'created'
  }

  private async flagsOf(q: Queryable, entryId: string): Promise<FlagExport[]> {
    const rows = await q.query<Row>(
      `SELECT ${FLAG_COLUMNS} FROM flags f JOIN principals p ON p.id = f.principal_id WHERE f.entry_id = $1 ORDER BY ${FLAG_ORDER}`,
      [entryId],
    )
    return rows.map(flagFromRow)
  }

  private async commentsOf(q: Queryable, seq: number): Promise<Comment[]> {
    const rows = await q.query<Row>(
      `SELECT ${COMMENT_COLUMNS} FROM comments c JOIN principals p ON p.id = c.author_id WHERE c.entry_seq = $1 ORDER BY ${COMMENT_ORDER}`,
      [seq],
    )
    return rows.map(commentFromRow)
  }

  async storedAsIs(e: ImportedEntry, importer: ImportOptions['importer']): Promise<boolean> {
    const [existing] = await this.db.query(
      'SELECT e.*, p.name AS author_name FROM entries e JOIN principals p ON p.id = e.author_id WHERE e.id = $1',
      [e.id],
    )
    if (!existing || (!importer.owner && !(await visible(this.db, e.id, importer.id)))) return false
    return sameAsStored(existing, await this.commentsOf(this.db, existing.seq as number), await this.flagsOf(this.db, e.id), e)
  }

  async snapshot(): Promise<StoreSnapshot> {
    throw new KbError(
      'conflict',
      'this server keeps its data in PostgreSQL, which `kb backup` does not copy; back it up with pg_dump or a base backup (docs/team-server.md, "Backups")',
    )
  }
}

/** Whether principal `me` may see entry `id` (the rule of every read). */
async function visible(q: Queryable, id: string, me: string): Promise<boolean> {
  return (await q.query(`SELECT 1 FROM entries e WHERE e.id = $1 AND ${visibleTo('$2')}`, [id, me])).length > 0
}
