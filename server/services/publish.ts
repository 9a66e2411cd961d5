/**
 * @module Publishing: widening an entry's scope (private → project → global) once what the wider audience
 * would read is cleared (docs/api.md, "Safe publish"), and the preview of what that would expose.
 */
import {ackSigner} from './ack-signature.js'
import {SCOPES} from '../../src/shared/contract.js'
import {KbError} from '../../src/shared/errors.js'
import type {PublishBody} from '../../src/shared/schemas.js'
import {summarize} from '../../src/shared/summary.js'
import type {Comment, EntryFull, PublishPreview, Scope} from '../../src/shared/types.js'
import {nowIso} from '../lib/ids.js'
import type {EntryChanges, EntryRow, Store} from '../store/store.js'
import type {Caller} from './context.js'
import {type KnowledgeService, stale} from './knowledge.js'
import {type Clearance, findingsOf, gate} from './safe-publish.js'
import {redactFields, report} from './sensitive.js'
import {actorOf, clearanceRecords, record} from './history.js'
import {entryNotFound} from './not-found.js'

/** Comments read per page while gathering all of an entry's. */
const COMMENT_PAGE = 500

export class PublishService {
  constructor(
    private readonly store: Store,
    private readonly knowledge: KnowledgeService,
  ) {}

  /** Every comment of the entry, oldest first: a wider audience reads them all, not the page a view shows. */
  private async allComments(entryId: string): Promise<Comment[]> {
    const all: Comment[] = []
    for (;;) {
      const last = all.at(-1)
      const page = await this.store.listComments(entryId, {
        limit: COMMENT_PAGE,
        ...(last ? {after: {created_at: last.created_at, id: last.id}} : {}),
      })
      all.push(...page)
      if (page.length < COMMENT_PAGE) return all
    }
  }

  /** The scope publishing goes to: the one asked for, else the next wider; 409 unless it widens. */
  private publishTarget(e: EntryRow, scope: Scope | undefined): Scope {
    let target: Scope
    if (scope !== undefined) target = scope
    else if (e.scope === 'private') target = e.project_id ? 'project' : 'global'
    else target = 'global'
    // SCOPES runs narrowest to widest.
    if (SCOPES.indexOf(target) <= SCOPES.indexOf(e.scope)) {
      throw new KbError('conflict', `entry ${e.id} is already ${e.scope}; publish only widens the scope (private → project → global)`)
    }
    if (target === 'project' && !e.project_id) {
      throw new KbError('conflict', `entry ${e.id} belongs to no project; publish it to global instead`)
    }
    return target
  }

  /** What publishing would expose and what redaction would make of it (docs/api.md, "Safe publish"); changes nothing. */
  async preview(caller: Caller, id: string, scope: Scope | undefined): Promise<PublishPreview> {
    const e = await this.knowledge.changeable(caller, id, 'publish')
    const target = this.publishTarget(e, scope)
    const {fields, hits} = await findingsOf({...e, comments: await this.allComments(e.id)})
    return {scope: target, ...report(fields, hits), redacted: Object.fromEntries(redactFields(fields, hits))}
  }

  /**
   * Widens the scope once the entry, its comments and its resolution are cleared: redacted and widened in
   * one new version, with the acknowledgement recorded in the same transaction. The version read is the
   * version scanned: a change that lands in between sends the publish round again.
   */
  async publish(caller: Caller, id: string, input: PublishBody, attempt = 0): Promise<EntryFull> {
    const e = await this.knowledge.changeable(caller, id, 'publish')
    const target = this.publishTarget(e, input.scope)
    const c = await gate({...e, comments: await this.allComments(e.id)}, input, {
      action: `publishing to ${target}`,
      status: 409,
      entryId: e.id,
      caller,
      signer: await ackSigner(this.store, e.id, target, e.project_id),
    })
    const at = nowIso()
    const actor = await actorOf(this.store, caller)
    const history = [
      record(actor, e.id, 'published', {scope: `${e.scope} → ${target}`}, null, at),
      ...clearanceRecords(actor, e.id, c.tally, at),
    ]
    const outcome = await this.store.updateEntry(
      e.id,
      {...redactionChanges(e, c), scope: target},
      {
        at,
        expectedVersion: e.version,
        commentBodies: c.redacted.comments,
        comments: c.notes,
        history,
      },
    )
    if (!outcome.ok && outcome.reason === 'stale' && attempt < 3) return this.publish(caller, id, input, attempt + 1)
    if (!outcome.ok) throw outcome.reason === 'stale' ? stale(e) : entryNotFound(id)
    return this.knowledge.full(caller, outcome.entry)
  }
}

/** The fields of an entry a clearance redacted, with its summary recomputed when title or body changed. */
function redactionChanges(e: EntryRow, c: Clearance): EntryChanges {
  if (!c.changed) return {}
  const r = c.redacted
  const changes: EntryChanges = {}
  if (r.title !== e.title) changes.title = r.title
  if (r.body !== e.body) changes.body = r.body
  if (r.url !== e.url) changes.url = r.url
  if (r.tags.length !== e.tags.length) changes.tags = r.tags
  if (r.thought_chain.some((t, i) => t.thought !== e.thought_chain[i]!.thought)) changes.thought_chain = r.thought_chain
  if (r.resolution?.note !== e.resolution?.note || r.resolution?.url !== e.resolution?.url) changes.resolution = r.resolution
  if (changes.title !== undefined || changes.body !== undefined) {
    const s = summarize(e.id, r.title, r.body, e.superseded_by)
    changes.summary = s.body
    changes.summary_title = s.title
  }
  return changes
}
