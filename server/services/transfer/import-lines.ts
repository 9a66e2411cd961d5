/**
 * @module One line of an import, checked and normalised as the API would a request (the same length
 * limits, tags, URLs and summary), or the header line; principals of the file are mapped to this server's.
 */
import {COMMENT_TYPE_DEFAULT} from '../../../src/shared/contract.js'
import {canonicalRemote} from '../../../src/shared/remote.js'
import {summarize} from '../../../src/shared/summary.js'
import type {AuthorRef} from '../../../src/shared/types.js'
import {fieldErrors} from '../../http/problem.js'
import {nowIso, uuidv7} from '../../lib/ids.js'
import type {HistoryExport} from '../../store/history-store.js'
import type {EntryExport, ImportRecord, ProjectExport} from '../../store/transfer-store.js'
import {type Caller, isOwner} from '../context.js'
import {anchorsFrom} from '../trust.js'
import {
  FieldErrors,
  lowerUuid,
  newEntryScope,
  normalizeBody,
  normalizeTags,
  normalizeThoughts,
  normalizeTitle,
  normalizeUrl,
} from '../validate.js'
import {
  checkEntry,
  checkHeader,
  checkProject,
  EXPORT_KIND,
  EXPORT_VERSION,
  type EntryLine,
  type HeaderLine,
  type ProjectLine,
} from './format.js'

/** A line the validation refused, with the reason the report gives. */
export class LineError extends Error {}

/** What validating one import needs across its lines. */
export interface ImportContext {
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

/** One line checked and normalised as the API would a request, or the header line. */
export function validateLine(ctx: ImportContext, lineNo: number, text: string): HeaderLine | ImportRecord {
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
    if (kind !== EXPORT_KIND)
      throw new LineError(`the first line must be the header {"kind":"${EXPORT_KIND}","version":${EXPORT_VERSION}} (is this a kb export?)`)
    const version = (value as {version?: unknown}).version
    if (version !== EXPORT_VERSION)
      throw new LineError(`export format version ${JSON.stringify(version)} is not supported; this server reads version ${EXPORT_VERSION}`)
    if (!checkHeader(value)) throw new LineError(describe(checkHeader.errors))
    return value as HeaderLine
  }
  if (kind === EXPORT_KIND) throw new LineError('a second header line; concatenated exports must be imported one by one')
  if (kind === 'project') {
    if (!checkProject(value)) throw new LineError(describe(checkProject.errors))
    const project = projectRecord(ctx, value as ProjectLine)
    if (seen.has(`p:${project.id}`)) throw new LineError(`project ${project.id} appears on an earlier line too`)
    seen.add(`p:${project.id}`)
    return {line: lineNo, kind: 'project', project}
  }
  if (kind === 'entry') {
    if (!checkEntry(value)) throw new LineError(describe(checkEntry.errors))
    const entry = entryRecord(ctx, value as EntryLine)
    if (seen.has(`e:${entry.id}`)) throw new LineError(`entry ${entry.id} appears on an earlier line too`)
    seen.add(`e:${entry.id}`)
    return {line: lineNo, kind: 'entry', entry}
  }
  throw new LineError(`unknown kind ${JSON.stringify(kind)}; lines are "project" or "entry"`)
}

/** A project line as the record the store applies. */
function projectRecord(ctx: ImportContext, p: ProjectLine): ProjectExport {
  const ref = refIn(ctx)
  const {caller} = ctx
  const remote = canonicalRemote(p.remote)
  if (!remote) throw new LineError(`remote: "${p.remote}" is not a git remote URL`)
  const name = p.name.trim()
  if (name === '') throw new LineError('name: must not be blank')
  const project: ProjectExport = {
    id: lowerUuid(p.id),
    name,
    remote,
    created_at: time(p.created_at) ?? nowIso(),
    created_by: p.created_by ? ref(p.created_by) : {id: caller.principal.id, name: caller.principal.name},
  }
  if (p.members) project.members = p.members.map((m) => ({...ref(m), role: m.role}))
  if (p.verify_after_days !== undefined) project.verify_after_days = p.verify_after_days
  return project
}

/** An entry line as the record the store applies, its summary computed as a create's would be. */
function entryRecord(ctx: ImportContext, e: EntryLine): EntryExport & {summary: string; summary_title: string} {
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
  let resolution = e.resolution
    ? {...e.resolution, resolved_by: ref(e.resolution.resolved_by), resolved_at: time(e.resolution.resolved_at)!}
    : null
  if (resolution && resolution.url !== null) resolution.url = normalizeUrl(resolution.url, errors, 'resolution/url')
  if (resolution && foreign(resolution.resolved_by)) {
    errors.add(
      'resolution/resolved_by',
      `${resolution.resolved_by.name} is not you; only the owner may import resolutions of other principals`,
    )
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
  const trust = trustOf(e, ref, foreign, errors)
  if (errors.list.length > 0) throw new LineError(errors.list.map((x) => `${x.path}: ${x.message}`).join('; '))
  const supersededBy = e.superseded_by ? lowerUuid(e.superseded_by) : null
  const s = summarize(id, title, body, supersededBy)
  return {
    id,
    title,
    body,
    scope,
    project_id: projectId,
    tags: normalizeTags(e.tags ?? []),
    url,
    status,
    resolution,
    thought_chain: thoughts,
    forked_from: e.forked_from ? lowerUuid(e.forked_from) : null,
    author,
    created_at: createdAt,
    updated_at: updatedAt,
    version: e.version ?? 1,
    ...trust,
    superseded_by: supersededBy,
    retrieved: e.retrieved ?? 0,
    last_retrieved_at: time(e.last_retrieved_at ?? undefined) ?? null,
    comments,
    history: historyOf(ctx, e),
    summary: s.body,
    summary_title: s.title,
  }
}

/**
 * The trust fields of an entry line (docs/api.md, "Anchors, freshness, verify and flags"), absent in older files:
 * anchors with what their checks found, verifications, corrections and open flags (one per principal; only the
 * owner imports those of other principals, as for comments).
 */
function trustOf(
  e: EntryLine,
  ref: (a: AuthorRef) => AuthorRef,
  foreign: (a: AuthorRef) => boolean,
  errors: FieldErrors,
): Pick<EntryExport, 'anchors' | 'verified_at' | 'verified_by' | 'verifications' | 'corrections' | 'open_flags'> {
  const anchors = anchorsFrom(e.anchors ?? [], [], errors).map((a, i) => {
    const stored = e.anchors![i]!
    return {
      ...a,
      state: stored.state ?? a.state,
      moved_to: stored.moved_to ? {path: stored.moved_to.path, lines: stored.moved_to.lines} : null,
      checked_at: time(stored.checked_at ?? undefined) ?? null,
      checked_commit: stored.checked_commit ?? null,
    }
  })
  if (anchors.length < (e.anchors ?? []).length) errors.add('anchors', 'the same anchor (path, lines, symbol) appears twice')
  const verifiedBy = e.verified_by ? ref(e.verified_by) : null
  const by = new Set<string>()
  const flags = (e.open_flags ?? []).map((f, i) => {
    const who = ref(f.by)
    if (foreign(who)) errors.add(`open_flags/${i}/by`, `${who.name} is not you; only the owner may import flags of other principals`)
    if (by.has(who.id)) errors.add(`open_flags/${i}/by`, 'one open flag per principal')
    by.add(who.id)
    const duplicateOf = f.duplicate_of ? lowerUuid(f.duplicate_of) : null
    if (duplicateOf !== null && f.reason !== 'duplicate') errors.add(`open_flags/${i}/duplicate_of`, 'only with reason "duplicate"')
    return {by: who, reason: f.reason, note: f.note ?? null, duplicate_of: duplicateOf, created_at: time(f.created_at)!}
  })
  return {
    anchors,
    verified_at: time(e.verified_at ?? undefined) ?? null,
    verified_by: verifiedBy,
    verifications: (e.verifications ?? []).map((v) => ({principal_id: ref({id: v.principal_id, name: ''}).id, at: time(v.at)!})),
    corrections: e.corrections ?? 0,
    open_flags: flags,
  }
}

/**
 * The history of an entry line (docs/api.md, "History"), the exporter's own records as the importer's when aliased,
 * then the record of this import. A record is kept by its id: one already here is not written twice.
 */
function historyOf(ctx: ImportContext, e: EntryLine): HistoryExport[] {
  const ref = refIn(ctx)
  const records: HistoryExport[] = (e.history ?? []).map((h) => {
    const actor = ref({id: h.actor_id, name: h.actor_name})
    return {...h, id: lowerUuid(h.id), at: time(h.at)!, actor_id: actor.id, actor_name: actor.name}
  })
  const c = ctx.caller
  records.push({
    id: uuidv7(),
    at: nowIso(),
    action: 'imported',
    actor_id: c.principal.id,
    actor_name: c.principal.name,
    via: 'import',
    client: c.credential.name ?? null,
    changes: {},
    note: null,
  })
  return records
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
  return fieldErrors(errors ?? [])
    .map((e) => `${e.path}: ${e.message}`)
    .join('; ')
}
