/**
 * @module The review queue (docs/api.md, "Review queue"): what a curator should look at — stale, flagged, similar
 * pairs, unverified, superseded, never retrieved in 90 days — counted, then the entries most used first, each with why it is there.
 * Decided in the driver's SQL (Store.history.review), the counts from a tally the writes keep (server/store/review-tally.ts),
 * so that every answer is current and fast at 100k entries (docs/performance.md, "Review queue").
 */
import {LIMIT_DEFAULT, REVIEW_KINDS, REVIEW_UNRETRIEVED_DAYS} from '../../src/shared/contract.js'
import type {ReviewPage, ReviewQuery, ReviewReason} from '../../src/shared/curation-schemas.js'
import type {ReviewCounts, SimilarOther} from '../store/history-store.js'
import type {EntryRow, Store} from '../store/store.js'
import {type Caller, viewerOf} from './context.js'
import {decodeCursor, encodeCursor} from './cursor.js'
import {freshness, type TrustContext} from './freshness.js'
import type {KnowledgeService} from './knowledge.js'
import {trustContexts} from './trust-context.js'
import {lowerUuid} from './validate.js'
import {standardView} from './views.js'
import {projectNotFound} from './not-found.js'

const DAY_MS = 86_400_000

export class ReviewService {
  constructor(
    private readonly store: Store,
    private readonly knowledge: KnowledgeService,
  ) {}

  async queue(caller: Caller, q: ReviewQuery): Promise<ReviewPage> {
    const now = Date.now()
    const projectId = q.project_id === undefined ? undefined : lowerUuid(q.project_id)
    if (projectId !== undefined && (await this.store.getMemberRole(projectId, caller.principal.id)) === null)
      throw projectNotFound(projectId)
    const limit = q.limit ?? LIMIT_DEFAULT.entries
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor)
    const cutoff = new Date(now - REVIEW_UNRETRIEVED_DAYS * DAY_MS).toISOString()
    const outcome = await this.store.history.review(
      {
        viewer: viewerOf(caller),
        ...(projectId === undefined ? {} : {projectId}),
        ...(q.kind === undefined ? {} : {kind: q.kind}),
        now: new Date(now).toISOString(),
        unretrievedBefore: cutoff,
      },
      {limit: limit + 1, ...(after ? {after: {retrieved: Number(after.at), id: after.id}} : {})},
    )
    const counts = outcome.counts
    const page = outcome.entries.slice(0, limit)
    const ctxOf = await trustContexts(this.store, page, now)
    const similar = await this.store.history.similarOf(
      viewerOf(caller),
      page.map((e) => e.id),
    )
    const items = page.map((e) => ({
      entry: standardView(e, ctxOf(e)),
      reasons: reasonsOf(e, ctxOf(e), cutoff, similar.get(e.id) ?? []),
    }))
    const last = page.at(-1)
    return {
      counts: Object.fromEntries(REVIEW_KINDS.map((k) => [k, k in counts ? counts[k as keyof ReviewCounts] : 0])) as ReviewPage['counts'],
      items,
      next_cursor: outcome.entries.length > limit && last ? encodeCursor({at: String(last.retrieved), id: last.id}) : null,
    }
  }
}

/** Why an entry is in the queue, in the order a curator reads them; a superseded one is there for that alone (reviewKinds). */
function reasonsOf(e: EntryRow, ctx: TrustContext, cutoff: string, similar: SimilarOther[]): ReviewReason[] {
  if (e.superseded_by !== null) return [{kind: 'superseded', detail: `superseded by ${e.superseded_by}`}]
  const out: ReviewReason[] = []
  for (const r of freshness(e, ctx).reasons) out.push({kind: 'stale', detail: r.detail ? `${r.kind}: ${r.detail}` : r.kind})
  const open = Object.entries(e.flags).filter(([, n]) => n > 0)
  if (open.length > 0) out.push({kind: 'flagged', detail: open.map(([reason, n]) => `${reason} ×${n}`).join(', ')})
  // One reason per open pair: merge or supersede one into the other, or say they are not the same.
  for (const o of similar)
    out.push({
      kind: 'similar',
      detail: `looks like ${o.id} "${o.title}" (similarity ${o.similarity.toFixed(2)})`,
      other: {id: o.id, title: o.title},
    })
  if (e.verified_at === null) out.push({kind: 'unverified', detail: 'never verified'})
  if ((e.last_retrieved_at === null || e.last_retrieved_at < cutoff) && e.created_at < cutoff)
    out.push({
      kind: 'never_retrieved',
      detail: e.last_retrieved_at === null ? 'never retrieved' : `not retrieved in ${REVIEW_UNRETRIEVED_DAYS} days`,
    })
  return out
}
