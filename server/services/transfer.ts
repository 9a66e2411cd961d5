/**
 * @module Export, import and online backup (issue 8). An export is JSON Lines: a header line with the
 * format version, then projects, then entries with their comments, thought chains, resolutions and fork
 * lineage. An import reads the whole body first — every line validated with the API's own rules and
 * spooled, normalised, to a private temp file — and only when no line was rejected applies them all in
 * one store transaction, or none. Both steps run in slices between other requests (docs/api.md, "Import").
 */
import {closeSync, mkdtempSync, openSync, readSync, rmSync} from 'node:fs'
import {open} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Readable} from 'node:stream'
import {Type, type Static} from '@sinclair/typebox'
import {KbError} from '../../src/shared/errors.js'
import {canonicalRemote} from '../../src/shared/remote.js'
import {createValidator} from '../../src/shared/validator.js'
import {COMMENT_MAX, COMMENT_TYPE_DEFAULT, PRINCIPAL_NAME_PATTERN} from '../../src/shared/contract.js'
import {
  CommentTypeSchema, CreateEntryBody, Note, NullableUuid, ProjectName, ProjectRoleSchema, Remote, ScopeSchema, StatusSchema, Url, Uuid,
} from '../../src/shared/schemas.js'
import type {AuthorRef, Scope} from '../../src/shared/types.js'
import {fieldErrors} from '../http/problem.js'
import {nowIso} from '../lib/ids.js'
import {TimeSlice} from '../lib/time-slice.js'
import type {Store, Viewer} from '../store/store.js'
import type {EntryExport, ExportFilter, ImportOutcome, ImportRecord, ProjectExport, StoreSnapshot} from '../store/transfer-store.js'
import {type Caller, isOwner} from './context.js'
import {clearImported} from './safe-publish.js'
import type {SensitiveChoice} from './sensitive.js'
import {summarize} from '../../src/shared/summary.js'
import {FieldErrors, lowerUuid, newEntryScope, normalizeBody, normalizeTags, normalizeThoughts, normalizeTitle, normalizeUrl} from './validate.js'

export const EXPORT_KIND = 'kb-export'
export const EXPORT_VERSION = 1
/** The largest import body (docs/api.md); JSON requests keep their 1 MiB limit. */
export const IMPORT_BODY_LIMIT = 512 * 1024 * 1024
/** The longest line an import reads: an entry's body is at most 100,000 characters, so this leaves room for many comments. */
export const IMPORT_LINE_MAX = 16 * 1024 * 1024
/** Rejections listed in one report. */
const REJECTIONS_MAX = 1000
const PAGE = 200

const RFC3339 = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|z|[+-]\\d{2}:\\d{2})$'
const Time = Type.String({pattern: RFC3339, description: 'RFC 3339'})
const AuthorIn = Type.Object({id: Uuid, name: Type.String({pattern: PRINCIPAL_NAME_PATTERN})}, {additionalProperties: false})
const entryFields = CreateEntryBody.properties

export const HeaderLine = Type.Object(
  {
    kind: Type.Literal(EXPORT_KIND),
    version: Type.Integer(),
    exported_at: Type.Optional(Time),
    exported_by: Type.Optional(AuthorIn),
    server_version: Type.Optional(Type.String({maxLength: 100})),
    complete: Type.Optional(Type.Boolean()),
    /** How many entry lines follow: what `kb export` shows its progress against. */
    entries: Type.Optional(Type.Integer({minimum: 0})),
    scope: Type.Optional(ScopeSchema),
    project_id: Type.Optional(Uuid),
  },
  {additionalProperties: false},
)

export const ProjectLine = Type.Object(
  {
    kind: Type.Literal('project'),
    id: Uuid,
    name: ProjectName,
    remote: Remote,
    created_at: Type.Optional(Time),
    created_by: Type.Optional(AuthorIn),
    members: Type.Optional(
      Type.Array(Type.Object({id: Uuid, name: Type.String({pattern: PRINCIPAL_NAME_PATTERN}), role: ProjectRoleSchema}, {additionalProperties: false})),
    ),
  },
  {additionalProperties: false},
)
type ProjectLine = Static<typeof ProjectLine>

const CommentIn = Type.Object(
  {
    id: Uuid,
    body: Type.String({minLength: 1, maxLength: COMMENT_MAX}),
    type: Type.Optional(CommentTypeSchema),
    author: Type.Optional(AuthorIn),
    created_at: Type.Optional(Time),
  },
  {additionalProperties: false},
)

export const EntryLine = Type.Object(
  {
    kind: Type.Literal('entry'),
    id: Uuid,
    title: entryFields.title,
    body: entryFields.body,
    scope: entryFields.scope,
    project_id: entryFields.project_id,
    tags: entryFields.tags,
    url: entryFields.url,
    status: Type.Optional(StatusSchema),
    resolution: Type.Optional(
      Type.Union([
        Type.Object(
          {note: Note, url: Url, resolved_by: AuthorIn, resolved_at: Time},
          {additionalProperties: false},
        ),
        Type.Null(),
      ]),
    ),
    thought_chain: entryFields.thought_chain,
    forked_from: Type.Optional(NullableUuid),
    author: Type.Optional(AuthorIn),
    created_at: Type.Optional(Time),
    updated_at: Type.Optional(Time),
    version: Type.Optional(Type.Integer({minimum: 1})),
    comments: Type.Optional(Type.Array(CommentIn)),
  },
  {additionalProperties: false},
)
type EntryLine = Static<typeof EntryLine>

// Lines are checked like request bodies: strict types, no coercion, unknown fields refused.
const ajv = createValidator('json')
const checkHeader = ajv.compile(HeaderLine)
const checkProject = ajv.compile(ProjectLine)
const checkEntry = ajv.compile(EntryLine)

export interface ImportReport extends ImportOutcome {
  dry_run: boolean
}

export interface ImportRequest {
  onConflict: 'skip' | 'overwrite'
  dryRun: boolean
  /** What to do about findings in entries bound for a shared scope (docs/api.md, "Safe publish"). */
  sensitive: SensitiveChoice
}

export function tooLarge(): KbError {
  return new KbError('payload_too_large', `an import body holds at most ${IMPORT_BODY_LIMIT / 1024 / 1024} MiB; split the export (e.g. kb export --project)`, {
    // The rest of the body is not read: the connection cannot carry another request after it.
    headers: {Connection: 'close'},
  })
}

/** A line the validation refused, with the reason the report gives. */
class LineError extends Error {}

/** What validating one import needs across its lines. */
interface ImportContext {
  caller: Caller
  headerSeen: boolean
  /** Ids of projects and entries on earlier lines. */
  seen: Set<string>
  /**
   * The exporting principal, when it is not a principal here: what it wrote becomes the importer's
   * (moving one's own knowledge base to another server, where one has another id).
   */
  alias: string | null
}

export class TransferService {
  constructor(private readonly store: Store, private readonly version: string) {}

  /** The lines of an export of what the caller may see (everything, for the owner), each ending in a newline. */
  async *exportLines(caller: Caller, q: {scope?: Scope; project_id?: string}): AsyncGenerator<string> {
    const owner = isOwner(caller)
    const viewer: Viewer | null = owner ? null : {principalId: caller.principal.id}
    const filter: ExportFilter = {}
    if (q.scope) filter.scope = q.scope
    if (q.project_id) {
      filter.projectId = lowerUuid(q.project_id)
      const known = owner ? await this.store.getProject(filter.projectId) : await this.store.getMemberRole(filter.projectId, caller.principal.id)
      if (!known) throw new KbError('not_found', `project ${filter.projectId} does not exist or you are not a member`)
    }
    const header: Static<typeof HeaderLine> = {
      kind: EXPORT_KIND, version: EXPORT_VERSION, exported_at: nowIso(), exported_by: {id: caller.principal.id, name: caller.principal.name},
      server_version: this.version, complete: owner && !filter.scope && !filter.projectId, entries: await this.store.transfer.countExportEntries(viewer, filter),
      ...(filter.scope ? {scope: filter.scope} : {}), ...(filter.projectId ? {project_id: filter.projectId} : {}),
    }
    yield `${JSON.stringify(header)}\n`
    for (let after: string | undefined; ;) {
      const projects = await this.store.transfer.exportProjects(viewer, filter, {limit: PAGE, ...(after ? {after} : {})})
      if (projects.length > 0) yield projects.map((p) => `${JSON.stringify({kind: 'project', ...p})}\n`).join('')
      if (projects.length < PAGE) break
      after = projects.at(-1)!.id
    }
    for (let after: number | undefined; ;) {
      const page = await this.store.transfer.exportEntries(viewer, filter, {limit: PAGE, ...(after ? {after} : {})})
      if (page.entries.length > 0) yield page.entries.map((e) => `${JSON.stringify({kind: 'entry', ...e})}\n`).join('')
      if (page.next === undefined) break
      after = page.next
    }
  }

  /**
   * Reads an import body (JSON Lines) to the end, validating every line; then, if none was rejected,
   * applies them all in one transaction (a dry run rolls it back). Nothing is applied otherwise.
   */
  async import(caller: Caller, body: Readable, request: ImportRequest): Promise<ImportReport> {
    const dir = mkdtempSync(join(tmpdir(), 'kb-import-'))
    const spool = join(dir, 'records.jsonl')
    try {
      const rejected = await this.validateAndSpool(caller, body, spool, request.sensitive)
      const empty: ImportReport = {created: 0, updated: 0, skipped: 0, principals_created: 0, rejected, dry_run: request.dryRun}
      if (rejected.length > 0) return empty
      const outcome = await this.store.transfer.applyImport(readSpool(spool), {
        onConflict: request.onConflict, dryRun: request.dryRun, at: nowIso(),
        importer: {id: caller.principal.id, name: caller.principal.name, owner: isOwner(caller)},
      })
      if (outcome.rejected.length > 0) return {...empty, rejected: outcome.rejected}
      return {...outcome, dry_run: request.dryRun}
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  }

  /** A consistent copy of the whole store, for the owner only. */
  async snapshot(caller: Caller): Promise<StoreSnapshot> {
    if (!isOwner(caller)) throw new KbError('forbidden', 'only the owner may take a backup of the whole store; `kb export` exports what you may see')
    return this.store.transfer.snapshot()
  }

  /** Splits the body into lines, validates each, and writes the normalised records to `spool`; returns the rejections. */
  private async validateAndSpool(caller: Caller, body: Readable, spool: string, sensitive: SensitiveChoice): Promise<Array<{line: number; reason: string}>> {
    const out = await open(spool, 'wx', 0o600)
    const rejected: Array<{line: number; reason: string}> = []
    const reject = (line: number, reason: string): void => {
      if (rejected.length < REJECTIONS_MAX) rejected.push({line, reason})
    }
    const ctx: ImportContext = {caller, headerSeen: false, seen: new Set(), alias: null}
    // A body that arrived whole is validated line after line without waiting on I/O: let other requests in between.
    const slice = new TimeSlice()
    const decoder = new TextDecoder('utf-8', {fatal: true})
    let pending: string[] = []
    let pendingBytes = 0
    const flush = async (): Promise<void> => {
      if (pending.length === 0) return
      await out.write(pending.join(''))
      pending = []
      pendingBytes = 0
    }
    let lineNo = 0
    let total = 0
    let parts: Buffer[] = []
    let partBytes = 0
    let oversized = false
    const finishLine = async (): Promise<void> => {
      await slice.pause()
      lineNo++
      const bytes = partBytes
      const buf = parts.length === 1 ? parts[0]! : Buffer.concat(parts)
      parts = []
      partBytes = 0
      if (oversized) {
        oversized = false
        return reject(lineNo, `line is longer than ${IMPORT_LINE_MAX / 1024 / 1024} MiB (${bytes} bytes)`)
      }
      let text: string
      try {
        text = decoder.decode(buf)
      } catch {
        return reject(lineNo, 'line is not valid UTF-8')
      }
      if (text.trim() === '') return
      try {
        const record = this.validateLine(ctx, lineNo, text)
        if (record.kind === EXPORT_KIND) {
          ctx.headerSeen = true
          const from = record.exported_by ? lowerUuid(record.exported_by.id) : null
          if (from && from !== caller.principal.id && !(await this.store.getPrincipal(from))) ctx.alias = from
        } else {
          if (record.kind === 'entry') {
            const cleared = await clearImported(record.entry, sensitive, caller)
            if (typeof cleared === 'string') throw new LineError(cleared)
            record.entry = cleared
          }
          pending.push(`${JSON.stringify(record)}\n`)
          pendingBytes += text.length
          if (pendingBytes > 1024 * 1024) await flush()
        }
      } catch (e) {
        if (!(e instanceof LineError)) throw e
        // The first line with content is the header's place, right or wrong: later lines are records.
        ctx.headerSeen = true
        reject(lineNo, e.message)
      }
    }
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        total += chunk.length
        if (total > IMPORT_BODY_LIMIT) throw tooLarge()
        let start = 0
        for (let nl = chunk.indexOf(10, start); ; nl = chunk.indexOf(10, start)) {
          const end = nl === -1 ? chunk.length : nl
          if (!oversized && partBytes + (end - start) > IMPORT_LINE_MAX) {
            oversized = true
            parts = []
          }
          if (!oversized) parts.push(chunk.subarray(start, end))
          partBytes += end - start
          if (nl === -1) break
          await finishLine()
          start = nl + 1
        }
      }
      if (partBytes > 0 || oversized) await finishLine()
      await flush()
    } finally {
      await out.close()
    }
    if (lineNo === 0 || (!ctx.headerSeen && rejected.length === 0)) {
      reject(1, `the body is empty; an import is a kb export: a first line {"kind":"${EXPORT_KIND}","version":${EXPORT_VERSION}}, then project and entry lines`)
    }
    return rejected
  }

  /** One line checked and normalised as the API would a request, or the header line. */
  private validateLine(ctx: ImportContext, lineNo: number, text: string): Static<typeof HeaderLine> | ImportRecord {
    const {seen} = ctx
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (e) {
      throw new LineError(`not valid JSON: ${(e as Error).message}`)
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new LineError('not a JSON object')
    const kind = (value as {kind?: unknown}).kind
    if (!ctx.headerSeen) {
      if (kind !== EXPORT_KIND) throw new LineError(`the first line must be the header {"kind":"${EXPORT_KIND}","version":${EXPORT_VERSION}} (is this a kb export?)`)
      const version = (value as {version?: unknown}).version
      if (version !== EXPORT_VERSION) throw new LineError(`export format version ${JSON.stringify(version)} is not supported; this server reads version ${EXPORT_VERSION}`)
      if (!checkHeader(value)) throw new LineError(describe(checkHeader.errors))
      return value as Static<typeof HeaderLine>
    }
    if (kind === EXPORT_KIND) throw new LineError('a second header line; concatenated exports must be imported one by one')
    if (kind === 'project') {
      if (!checkProject(value)) throw new LineError(describe(checkProject.errors))
      const project = this.project(ctx, value as ProjectLine)
      if (seen.has(`p:${project.id}`)) throw new LineError(`project ${project.id} appears on an earlier line too`)
      seen.add(`p:${project.id}`)
      return {line: lineNo, kind: 'project', project}
    }
    if (kind === 'entry') {
      if (!checkEntry(value)) throw new LineError(describe(checkEntry.errors))
      const entry = this.entry(ctx, value as EntryLine)
      if (seen.has(`e:${entry.id}`)) throw new LineError(`entry ${entry.id} appears on an earlier line too`)
      seen.add(`e:${entry.id}`)
      return {line: lineNo, kind: 'entry', entry}
    }
    throw new LineError(`unknown kind ${JSON.stringify(kind)}; lines are "project" or "entry"`)
  }

  private project(ctx: ImportContext, p: ProjectLine): ProjectExport {
    const ref = refIn(ctx)
    const {caller} = ctx
    const remote = canonicalRemote(p.remote)
    if (!remote) throw new LineError(`remote: "${p.remote}" is not a git remote URL`)
    const name = p.name.trim()
    if (name === '') throw new LineError('name: must not be blank')
    const project: ProjectExport = {
      id: lowerUuid(p.id), name, remote, created_at: time(p.created_at) ?? nowIso(),
      created_by: p.created_by ? ref(p.created_by) : {id: caller.principal.id, name: caller.principal.name},
    }
    if (p.members) project.members = p.members.map((m) => ({...ref(m), role: m.role}))
    return project
  }

  private entry(ctx: ImportContext, e: EntryLine): EntryExport & {summary: string; summary_title: string} {
    const ref = refIn(ctx)
    const {caller} = ctx
    const errors = new FieldErrors()
    const id = lowerUuid(e.id)
    const title = normalizeTitle(e.title, errors)
    const body = normalizeBody(e.body, errors)
    const url = e.url === undefined ? null : normalizeUrl(e.url, errors)
    const thoughts = normalizeThoughts(e.thought_chain ?? [], errors)
    const projectId = e.project_id ? lowerUuid(e.project_id) : null
    const scope = newEntryScope(e.scope, projectId)
    if (scope === 'project' && !projectId) errors.add('project_id', 'required when scope is project')
    const me: AuthorRef = {id: caller.principal.id, name: caller.principal.name}
    // Only the owner imports in other principals' names (docs/security.md); the entry's own author is the store's check.
    const foreign = (a: AuthorRef): boolean => a.id !== me.id && !isOwner(caller)
    const author = e.author ? ref(e.author) : me
    const createdAt = time(e.created_at) ?? nowIso()
    const updatedAt = time(e.updated_at) ?? createdAt
    let resolution = e.resolution ? {...e.resolution, resolved_by: ref(e.resolution.resolved_by), resolved_at: time(e.resolution.resolved_at)!} : null
    if (resolution && resolution.url !== null) resolution.url = normalizeUrl(resolution.url, errors, 'resolution/url')
    if (resolution && foreign(resolution.resolved_by)) {
      errors.add('resolution/resolved_by', `${resolution.resolved_by.name} is not you; only the owner may import resolutions of other principals`)
    }
    const status = e.status ?? (resolution ? 'resolved' : 'open')
    if (status === 'open' && resolution) errors.add('resolution', 'must be null for an open entry')
    if (status === 'resolved' && !resolution) resolution = {note: null, url: null, resolved_by: author, resolved_at: updatedAt}
    const commentIds = new Set<string>()
    const comments = (e.comments ?? []).map((c, i) => {
      if (c.body.trim() === '') errors.add(`comments/${i}/body`, 'must not be blank')
      const cid = lowerUuid(c.id)
      if (commentIds.has(cid)) errors.add(`comments/${i}/id`, 'appears twice')
      commentIds.add(cid)
      const by = c.author ? ref(c.author) : me
      if (foreign(by)) errors.add(`comments/${i}/author`, `${by.name} is not you; only the owner may import comments of other authors`)
      return {id: cid, body: c.body, type: c.type ?? COMMENT_TYPE_DEFAULT, author: by, created_at: time(c.created_at) ?? createdAt}
    })
    if (errors.list.length > 0) throw new LineError(errors.list.map((x) => `${x.path}: ${x.message}`).join('; '))
    const s = summarize(id, title, body)
    return {
      id, title, body, scope, project_id: projectId, tags: normalizeTags(e.tags ?? []), url, status, resolution, thought_chain: thoughts,
      forked_from: e.forked_from ? lowerUuid(e.forked_from) : null, author, created_at: createdAt, updated_at: updatedAt,
      version: e.version ?? 1, comments, summary: s.body, summary_title: s.title,
    }
  }
}

/** A principal reference of the file as it is stored here: the exporter's own, when aliased, become the importer's. */
function refIn(ctx: ImportContext): (a: {id: string; name: string}) => AuthorRef {
  return (a) => {
    const id = lowerUuid(a.id)
    return id === ctx.alias ? {id: ctx.caller.principal.id, name: ctx.caller.principal.name} : {id, name: a.name}
  }
}

/** An RFC 3339 time as the API writes them (UTC, milliseconds); the schema has checked the form. */
function time(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const d = new Date(value)
  if (Number.isNaN(d.getTime())) throw new LineError(`"${value}" is not a valid time`)
  return d.toISOString()
}

function describe(errors: Parameters<typeof fieldErrors>[0] | null | undefined): string {
  return fieldErrors(errors ?? []).map((e) => `${e.path}: ${e.message}`).join('; ')
}

/** The spooled records, read back synchronously: the store applies them inside one transaction. */
function* readSpool(path: string): Generator<ImportRecord> {
  const fd = openSync(path, 'r')
  try {
    const chunk = Buffer.alloc(1024 * 1024)
    let rest: Buffer = Buffer.alloc(0)
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null)
      if (n === 0) break
      let data = Buffer.concat([rest, chunk.subarray(0, n)])
      for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10)) {
        yield JSON.parse(data.subarray(0, nl).toString('utf8')) as ImportRecord
        data = data.subarray(nl + 1)
      }
      rest = Buffer.from(data)
    }
  } finally {
    closeSync(fd)
  }
}
