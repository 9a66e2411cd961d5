/**
 * @module Knowledge entries one at a time: create, read, change, resolve, comment, fork (publish: publish.ts;
 * list and search: queries.ts), with the permission rules of docs/api.md, "Visibility and permissions" (a
 * hidden entry is indistinguishable from a missing one).
 */
import {KbError} from '../../src/shared/errors.js'
import {COMMENT_TYPE_DEFAULT, COMMENTS_IN_FULL, TITLE_MAX} from '../../src/shared/contract.js'
import type {CommentBody, CreateEntryBody, ForkBody, PatchEntryBody, ResolveBody} from '../../src/shared/schemas.js'
import type {Comment, Detail, EntryCreated, EntryFull, EntryView, Page, Scope} from '../../src/shared/types.js'
import {nowIso, uuidv7} from '../lib/ids.js'
import type {CommentRow, EntryChanges, EntryRow, Store} from '../store/store.js'
import {type Caller, isOwner, viewerOf} from './context.js'
import {decodeCursor, encodeCursor} from './cursor.js'
import {summarize} from '../../src/shared/summary.js'
import {
  FieldErrors,
  lowerUuid,
  newEntryScope,
  normalizeBody,
  normalizeTags,
  normalizeThoughts,
  normalizeTitle,
  normalizeUrl,
} from './validate.js'
import {viewAt, fullView} from './views.js'
import {UNTRUSTED} from '../store/trust.js'
import {type ContextOf, trustContexts} from './trust-context.js'
import {anchorsFrom} from './trust.js'
import {clearFields, findingsOf, gate, sameSecret, type Tally} from './safe-publish.js'
import {actorOf, clearanceRecords, describeChanges, record} from './history.js'
import type {HistoryRow} from '../store/history-store.js'
import type {UsageCounter} from './usage.js'
import {type OnSimilar, SimilarFinder} from './similar.js'
import {ackSigner} from './ack-signature.js'
import type {Hit} from './sensitive.js'
import {entryNotFound, projectNotFound} from './not-found.js'

/** Reads and writes an edit without If-Match tries before it gives up on a busy entry (412). */
const UNGUARDED_ATTEMPTS = 10

export class KnowledgeService {
  /** Counts entries returned at standard or full (docs/api.md, "Usage"); set by the app. */
  usage: UsageCounter | undefined
  private readonly similar: SimilarFinder

  constructor(private readonly store: Store) {
    this.similar = new SimilarFinder(store)
  }

  /** Whether the caller may see the entry (docs/api.md, "Visibility and permissions"). */
  async canSee(caller: Caller, e: EntryRow): Promise<boolean> {
    if (e.scope === 'global') return true
    if (e.scope === 'private') return e.author.id === caller.principal.id
    return e.project_id !== null && (await this.store.getMemberRole(e.project_id, caller.principal.id)) !== null
  }

  /** The entry if it exists and the caller may see it; else 404. */
  async visible(caller: Caller, id: string): Promise<EntryRow> {
    const e = await this.store.getEntry(lowerUuid(id))
    if (!e || !(await this.canSee(caller, e))) throw entryNotFound(id)
    return e
  }

  /** The entry if the caller may change it: its author, or the owner principal (moderation). */
  async changeable(caller: Caller, id: string, action: string): Promise<EntryRow> {
    const e = await this.visible(caller, id)
    if (e.author.id !== caller.principal.id && !isOwner(caller)) {
      throw new KbError('forbidden', `only the author of entry ${e.id} (${e.author.name}) or the owner may ${action} it`)
    }
    return e
  }

  async full(caller: Caller, e: EntryRow, contextOf?: ContextOf): Promise<EntryFull> {
    const [comments, branches, ctx] = await Promise.all([
      this.store.listComments(e.id, {limit: COMMENTS_IN_FULL, newest: true}),
      this.store.listBranches(e.id, viewerOf(caller)),
      contextOf ?? trustContexts(this.store, [e]),
    ])
    return fullView(e, ctx(e), comments, branches)
  }

  /** All comments of an entry the caller can see, oldest first, a page at a time. */
  async comments(caller: Caller, id: string, q: {limit: number; cursor?: string}): Promise<Page<Comment>> {
    const e = await this.visible(caller, id)
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor)
    const rows = await this.store.listComments(e.id, {limit: q.limit + 1, ...(after ? {after: {created_at: after.at, id: after.id}} : {})})
    const items = rows.slice(0, q.limit)
    const last = items.at(-1)
    return {items, next_cursor: rows.length > q.limit && last ? encodeCursor({at: last.created_at, id: last.id}) : null}
  }

  /** The entry at a level; `contextOf` (trust-context.ts) when the caller has read the projects of many entries at once. */
  async view(caller: Caller, e: EntryRow, detail: Detail, contextOf?: ContextOf, retrieval = true): Promise<EntryView> {
    const ctx = contextOf ?? (await trustContexts(this.store, [e]))
    // A read or a search hit at standard or full is a retrieval (docs/api.md, "Usage"); a listing is browsing.
    if (retrieval && detail !== 'summary') this.usage?.note(e.id, nowIso())
    return detail === 'full' ? this.full(caller, e, ctx) : viewAt(detail, e, ctx(e))
  }

  /** Resolves the project an entry goes into, checking membership; null when none applies. */
  private async projectFor(caller: Caller, requested: string | null | undefined, path: string): Promise<string | null> {
    const id = requested === undefined ? caller.credential.projectId : requested
    if (id === null) return null
    const projectId = lowerUuid(id)
    if ((await this.store.getMemberRole(projectId, caller.principal.id)) === null) {
      throw projectNotFound(projectId, path)
    }
    return projectId
  }

  /** A new entry, with the entries the caller can see that look like it (docs/api.md, "Similar entries on write"). */
  async create(caller: Caller, input: CreateEntryBody, onSimilar: OnSimilar = 'report'): Promise<EntryCreated> {
    const errors = new FieldErrors()
    const title = normalizeTitle(input.title, errors)
    const body = normalizeBody(input.body, errors)
    const url = input.url === undefined ? null : normalizeUrl(input.url, errors)
    const thoughts = normalizeThoughts(input.thought_chain ?? [], errors)
    const anchors = anchorsFrom(input.anchors ?? [], [], errors)
    errors.throwIfAny()
    const projectId = await this.projectFor(caller, input.project_id, 'project_id')
    const scope = newEntryScope(input.scope, projectId)
    if (scope === 'project' && !projectId) {
      throw new KbError('validation_failed', 'scope "project" needs a project_id (or a key bound to a project)', {
        errors: [{path: 'project_id', message: 'required when scope is project'}],
      })
    }
    // A client-chosen id (docs/api.md, "Knowledge entries"): taken is 409, whether or not the caller may see who has it.
    const id = input.id === undefined ? uuidv7() : lowerUuid(input.id)
    if (input.id !== undefined && (await this.store.getEntry(id))) throw idTaken(id)
    const at = nowIso()
    const entry: EntryRow = {
      id,
      title,
      body,
      summary: '',
      summary_title: '',
      scope,
      project_id: projectId,
      tags: normalizeTags(input.tags ?? []),
      url,
      status: 'open',
      resolution: null,
      thought_chain: thoughts,
      forked_from: null,
      author: {id: caller.principal.id, name: caller.principal.name},
      created_at: at,
      updated_at: at,
      version: 1,
      comment_count: 0,
      ...UNTRUSTED,
      anchors,
    }
    const similar = await this.similar.check(caller, entry, onSimilar)
    const check = scope === 'private' ? null : {choice: input, action: `creating an entry in ${scope} scope`}
    const created = await this.insertCleared(caller, entry, check, {action: 'created'})
    await this.similar.record(created.id, similar)
    return {...created, similar}
  }

  /** Stores a new entry: cleared first when it goes straight into a shared scope (docs/api.md, "Safe publish"). */
  private async insertCleared(
    caller: Caller,
    entry: EntryRow,
    check: {choice: CreateEntryBody | ForkBody; action: string; only?: (h: Hit) => boolean} | null,
    what: {action: 'created' | 'forked'; note?: string},
  ): Promise<EntryFull> {
    const notes: CommentRow[] = []
    const actor = await actorOf(this.store, caller)
    const history = [record(actor, entry.id, what.action, {}, what.note ?? null, entry.created_at)]
    if (check) {
      const signer = await ackSigner(this.store, entry.id, entry.scope, entry.project_id)
      const c = await gate(entry, check.choice, {action: check.action, status: 422, entryId: entry.id, caller, only: check.only, signer})
      const r = c.redacted
      Object.assign(entry, {title: r.title, body: r.body, url: r.url, tags: r.tags, thought_chain: r.thought_chain})
      notes.push(...c.notes)
      history.push(...clearanceRecords(actor, entry.id, c.tally, entry.created_at))
    }
    const s = summarize(entry.id, entry.title, entry.body)
    entry.summary = s.body
    entry.summary_title = s.title
    try {
      await this.store.insertEntry(entry, notes, history)
    } catch (e) {
      // Two creates racing for one client-chosen id: the second meets the primary key.
      if (isUniqueViolation(e) && (await this.store.getEntry(entry.id))) throw idTaken(entry.id)
      throw e
    }
    if (notes.length === 0) return fullView(entry, (await trustContexts(this.store, [entry]))(entry), [], [])
    const stored = await this.store.getEntry(entry.id)
    if (!stored) throw entryNotFound(entry.id)
    return this.full(caller, stored)
  }

  async patch(caller: Caller, id: string, input: PatchEntryBody, ifMatch: number[] | null, attempt = 0): Promise<EntryFull> {
    const current = await this.changeable(caller, id, 'edit')
    const errors = new FieldErrors()
    const changes: EntryChanges = {}
    if (input.title !== undefined) changes.title = normalizeTitle(input.title, errors)
    if (input.body !== undefined) changes.body = normalizeBody(input.body, errors)
    if (input.url !== undefined) changes.url = normalizeUrl(input.url, errors)
    if (input.thought_chain !== undefined) changes.thought_chain = normalizeThoughts(input.thought_chain, errors)
    if (input.tags !== undefined) changes.tags = normalizeTags(input.tags)
    if (input.anchors !== undefined) changes.anchors = anchorsFrom(input.anchors, current.anchors, errors)
    errors.throwIfAny()
    if (input.status !== undefined && input.status !== current.status) {
      changes.status = input.status
      changes.resolution = input.status === 'open' ? null : {note: null, url: null, resolved_by: ref(caller), resolved_at: nowIso()}
    }
    const cleared = current.scope === 'private' ? null : await this.clearEdit(caller, current, changes, input)
    const notes = cleared?.notes ?? []
    if (changes.title !== undefined || changes.body !== undefined) {
      const s = summarize(current.id, changes.title ?? current.title, changes.body ?? current.body, current.superseded_by)
      changes.summary = s.body
      changes.summary_title = s.title
    }
    if (ifMatch !== null && !ifMatch.includes(current.version)) throw stale(current)
    if (notes.length === 0 && !hasRealChange(current, changes)) return this.full(caller, current)
    // The store re-checks the version atomically, so a write that raced ours since the read is not lost.
    // The author's change of what the entry says closes every open flag (docs/api.md, "Flags").
    const content = (['title', 'body', 'anchors'] as const).some(
      (k) => changes[k] !== undefined && hasRealChange(current, {[k]: changes[k]}),
    )
    const closeFlags = content && current.author.id === caller.principal.id
    const at = nowIso()
    const outcome = await this.store.updateEntry(current.id, changes, {
      at,
      expectedVersion: current.version,
      comments: notes,
      closeFlags,
      history: await this.editRecords(caller, current, changes, cleared?.tally, at),
    })
    if (!outcome.ok && outcome.reason === 'stale' && ifMatch === null && attempt < UNGUARDED_ATTEMPTS) {
      // Daemons sharing a database write truly at once: a short random pause lets the retry land between them.
      await new Promise((r) => setTimeout(r, Math.random() * 5 * (attempt + 1)))
      return this.patch(caller, id, input, ifMatch, attempt + 1)
    }
    if (!outcome.ok) throw outcome.reason === 'stale' ? stale(current) : entryNotFound(id)
    return this.full(caller, outcome.entry)
  }

  /** The history of an edit: `edited` with the fields, `resolved`/`reopened` for a status change, and what clearance did. */
  private async editRecords(
    caller: Caller,
    current: EntryRow,
    changes: EntryChanges,
    tally: Tally | undefined,
    at: string,
  ): Promise<HistoryRow[]> {
    const actor = await actorOf(this.store, caller)
    const {status, ...fields} = describeChanges(current, changes)
    const out: HistoryRow[] = []
    if (Object.keys(fields).length > 0) out.push(record(actor, current.id, 'edited', fields, null, at))
    if (status !== undefined)
      out.push(record(actor, current.id, changes.status === 'resolved' ? 'resolved' : 'reopened', {status}, null, at))
    if (tally) out.push(...clearanceRecords(actor, current.id, tally, at))
    return out
  }

  /**
   * An edit of a shared entry is cleared on what it brings: findings its new text holds that the entry did
   * not hold already (in the same field). Redaction rewrites `changes`; the acknowledgement records are returned.
   */
  private async clearEdit(
    caller: Caller,
    current: EntryRow,
    changes: EntryChanges,
    input: PatchEntryBody,
  ): Promise<{notes: CommentRow[]; tally: Tally}> {
    const known = new Set((await findingsOf({...current, resolution: null})).hits.map(sameSecret))
    const incoming = {
      title: changes.title ?? '',
      body: changes.body ?? '',
      url: changes.url ?? null,
      tags: changes.tags ?? [],
      thought_chain: changes.thought_chain ?? [],
    }
    const c = await gate(incoming, input, {
      action: `editing an entry in ${current.scope} scope`,
      status: 422,
      entryId: current.id,
      caller,
      only: (h) => !known.has(sameSecret(h)),
      signer: await ackSigner(this.store, current.id, current.scope, current.project_id),
    })
    if (changes.title !== undefined) changes.title = c.redacted.title
    if (changes.body !== undefined) changes.body = c.redacted.body
    if (changes.url !== undefined) changes.url = c.redacted.url
    if (changes.tags !== undefined) changes.tags = c.redacted.tags
    if (changes.thought_chain !== undefined) changes.thought_chain = c.redacted.thought_chain
    return {notes: c.notes, tally: c.tally}
  }

  async remove(caller: Caller, id: string, ifMatch: number[] | null): Promise<void> {
    const e = await this.changeable(caller, id, 'delete')
    if (ifMatch !== null && !ifMatch.includes(e.version)) throw stale(e)
    await this.store.deleteEntry(e.id)
  }

  async resolve(caller: Caller, id: string, input: ResolveBody): Promise<EntryFull> {
    const e = await this.changeable(caller, id, 'resolve')
    const errors = new FieldErrors()
    let url = input.url === undefined ? null : normalizeUrl(input.url, errors)
    errors.throwIfAny()
    if (e.status === 'resolved') return this.full(caller, e)
    let note = input.note === undefined || input.note === null || input.note.trim() === '' ? null : input.note
    let notes: CommentRow[] = []
    let tally: Tally | undefined
    if (e.scope !== 'private') {
      // The resolution joins what the entry's readers see: cleared as an edit is (docs/api.md, "Safe publish").
      const fields = [
        ...(note === null ? [] : [{field: 'resolution/note', text: note}]),
        ...(url === null ? [] : [{field: 'resolution/url', text: url}]),
      ]
      const c = await clearFields(fields, input, {
        action: `resolving an entry in ${e.scope} scope`,
        status: 422,
        entryId: e.id,
        caller,
        signer: await ackSigner(this.store, e.id, e.scope, e.project_id),
      })
      if (c.values.has('resolution/note')) note = c.values.get('resolution/note') ?? null
      if (c.values.has('resolution/url')) url = c.values.get('resolution/url') ?? null
      notes = c.notes
      tally = c.tally
    }
    const at = nowIso()
    const actor = await actorOf(this.store, caller)
    const history = [record(actor, e.id, 'resolved', {status: 'open → resolved'}, null, at)]
    if (tally) history.push(...clearanceRecords(actor, e.id, tally, at))
    const outcome = await this.store.updateEntry(
      e.id,
      {status: 'resolved', resolution: {note, url, resolved_by: ref(caller), resolved_at: at}},
      {at, comments: notes, history},
    )
    if (!outcome.ok) throw entryNotFound(id)
    return this.full(caller, outcome.entry)
  }

  async comment(caller: Caller, id: string, input: CommentBody): Promise<Comment> {
    const e = await this.visible(caller, id)
    const {comment, rows, history} = await this.commentRows(caller, e, input)
    if (rows.length > 1) {
      // The comment and the record of what it let through, in one transaction.
      const outcome = await this.store.updateEntry(e.id, {}, {at: comment.created_at, comments: rows, history})
      if (!outcome.ok) throw entryNotFound(id)
      const {entry_id: _entry, author_id: _author, ...rest} = comment
      return {...rest, author: ref(caller)}
    }
    const added = await this.store.addComment(comment, history)
    if (!added) throw entryNotFound(id)
    return added.comment
  }

  /**
   * A comment of the caller on `e` as rows to write, not yet written: the comment (cleared as an edit is on a shared
   * entry, docs/api.md "Safe publish"), the records of what it let through, and its history records. A merge writes
   * several of them with the rest of the merge in one transaction (server/services/curation.ts).
   */
  async commentRows(
    caller: Caller,
    e: EntryRow,
    input: CommentBody,
    at = nowIso(),
  ): Promise<{comment: CommentRow; rows: CommentRow[]; history: HistoryRow[]}> {
    if (input.body.trim() === '')
      throw new KbError('validation_failed', 'body: must not be blank', {errors: [{path: 'body', message: 'must not be blank'}]})
    const comment: CommentRow = {
      id: uuidv7(),
      entry_id: e.id,
      body: input.body,
      type: input.type ?? COMMENT_TYPE_DEFAULT,
      author_id: caller.principal.id,
      created_at: at,
    }
    const actor = await actorOf(this.store, caller)
    const history = [record(actor, e.id, 'commented', {comment: comment.type}, null, comment.created_at)]
    if (e.scope === 'private') return {comment, rows: [comment], history}
    // A comment on a shared entry reaches its readers at once: cleared as an edit is (docs/api.md, "Safe publish").
    const c = await clearFields([{field: 'comment', text: input.body}], input, {
      action: `commenting on an entry in ${e.scope} scope`,
      status: 422,
      entryId: e.id,
      caller,
      signer: await ackSigner(this.store, e.id, e.scope, e.project_id),
    })
    comment.body = c.values.get('comment') ?? comment.body
    history.push(...clearanceRecords(actor, e.id, c.tally, comment.created_at))
    return {comment, rows: [comment, ...c.notes], history}
  }

  /** A fork, with the entries other than its parent that look like it where it goes (docs/api.md, "Similar entries on write"). */
  async fork(caller: Caller, id: string, input: ForkBody, onSimilar: OnSimilar = 'report'): Promise<EntryCreated> {
    const parent = await this.visible(caller, id)
    const errors = new FieldErrors()
    const title = input.title === undefined ? forkTitle(parent.title) : normalizeTitle(input.title, errors)
    errors.throwIfAny()
    let projectId: string | null
    if (input.project_id !== undefined) projectId = await this.projectFor(caller, input.project_id, 'project_id')
    else if (parent.project_id && (await this.store.getMemberRole(parent.project_id, caller.principal.id))) projectId = parent.project_id
    else projectId = await this.projectFor(caller, undefined, 'project_id')
    const scope: Scope = input.scope ?? 'private'
    if (scope === 'project' && !projectId) {
      throw new KbError('validation_failed', 'scope "project" needs a project_id', {
        errors: [{path: 'project_id', message: 'required when scope is project'}],
      })
    }
    const at = nowIso()
    const entry: EntryRow = {
      ...parent,
      id: uuidv7(),
      title,
      summary: '',
      summary_title: '',
      scope,
      project_id: projectId,
      status: 'open',
      resolution: null,
      forked_from: parent.id,
      author: ref(caller),
      created_at: at,
      updated_at: at,
      version: 1,
      comment_count: 0,
      // A fork is new knowledge: its anchors come along, the parent's verifications and flags do not.
      ...UNTRUSTED,
      anchors: parent.anchors,
    }
    // A fork reaches new readers unless it stays private or among the parent's own (docs/api.md, "Safe publish").
    const sameAudience = scope === 'private' || parent.scope === 'global' || (parent.scope === scope && parent.project_id === projectId)
    // Only a fork that reaches new readers is checked: a private copy beside its parent is the point of forking.
    const similar = sameAudience ? [] : await this.similar.check(caller, entry, onSimilar, [parent.id])
    const what = {action: 'forked', note: `forked from ${parent.id}`} as const
    if (scope === 'private') {
      const created = await this.insertCleared(caller, entry, null, what)
      await this.similar.record(created.id, similar)
      return {...created, similar}
    }
    // Among the parent's own readers, what the fork brings (its title) is still new text: only findings the
    // parent did not already hold in the same field count (docs/security.md, "When the scan runs").
    const known = sameAudience ? new Set((await findingsOf({...parent, resolution: null})).hits.map(sameSecret)) : null
    const only = known ? (h: Hit): boolean => !known.has(sameSecret(h)) : undefined
    const created = await this.insertCleared(caller, entry, {choice: input, action: `forking into ${scope} scope`, only}, what)
    await this.similar.record(created.id, similar)
    return {...created, similar}
  }
}

/** "<parent title> (fork)", with the parent's title shortened (by code points) when both would not fit. */
function forkTitle(parentTitle: string): string {
  const suffix = ' (fork)'
  const chars = Array.from(parentTitle)
  if (chars.length + suffix.length <= TITLE_MAX) return parentTitle + suffix
  return (
    chars
      .slice(0, TITLE_MAX - suffix.length - 1)
      .join('')
      .trimEnd() +
    '…' +
    suffix
  )
}

function ref(caller: Caller): {id: string; name: string} {
  return {id: caller.principal.id, name: caller.principal.name}
}

export function stale(current: EntryRow): KbError {
  return new KbError('precondition_failed', `entry ${current.id} has changed (now version ${current.version}); fetch it again and retry`, {
    headers: {ETag: `"${current.version}"`},
  })
}

function hasRealChange(current: EntryRow, changes: EntryChanges): boolean {
  return Object.entries(changes).some(([k, v]) => JSON.stringify(v) !== JSON.stringify((current as unknown as Record<string, unknown>)[k]))
}

function idTaken(id: string): KbError {
  return new KbError('id_taken', `an entry with id ${id} exists; send the create without an id, or with a new one`)
}

/** A write refused by a unique index (SQLite's constraint codes, PostgreSQL's SQLSTATE 23505). */
function isUniqueViolation(e: unknown): boolean {
  const code = String((e as {code?: unknown})?.code ?? '')
  return code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}
