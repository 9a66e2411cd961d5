/**
 * @module What an entry looks like at each detail level (docs/api.md, "Detail levels"), with its freshness and
 * confidence decided by freshness.ts in the entry's project's context (trust-context.ts).
 */
import type {Branch, Comment, Detail, EntryFull, EntryStandard, EntrySummary, EntryView} from '../../src/shared/types.js'
import type {EntryRow} from '../store/store.js'
import {confidence, freshness, freshnessReasons, type TrustContext} from './freshness.js'

/**
 * The summary item: `freshness` is the state word only, `superseded_by` only when set (docs/api.md, "Summary form":
 * the budget counts both; a superseded entry's summary is computed with room for it).
 */
export function summaryView(e: EntryRow, ctx: TrustContext): EntrySummary {
  const item: EntrySummary = {
    id: e.id,
    title: e.summary_title,
    body: e.summary,
    status: e.status,
    freshness: freshnessReasons(e, ctx).length > 0 ? 'stale' : 'fresh',
  }
  if (e.superseded_by !== null) item.superseded_by = e.superseded_by
  return item
}

export function standardView(e: EntryRow, ctx: TrustContext): EntryStandard {
  return {
    id: e.id,
    title: e.title,
    body: e.body,
    status: e.status,
    tags: e.tags,
    scope: e.scope,
    url: e.url,
    project_id: e.project_id,
    author: e.author,
    forked_from: e.forked_from,
    created_at: e.created_at,
    updated_at: e.updated_at,
    version: e.version,
    comment_count: e.comment_count,
    freshness: freshness(e, ctx),
    anchors: e.anchors,
    flags: e.flags,
    confidence: confidence(e, ctx),
    superseded_by: e.superseded_by,
    usage: {retrieved: e.retrieved, last_retrieved_at: e.last_retrieved_at},
  }
}

/** `comments`: the entry's newest ones (the store's `newest` page); fewer than `comment_count` means truncated. */
export function fullView(e: EntryRow, ctx: TrustContext, comments: Comment[], branches: Branch[]): EntryFull {
  return {
    ...standardView(e, ctx),
    comments,
    comments_truncated: comments.length < e.comment_count,
    thought_chain: e.thought_chain,
    branches,
    resolution: e.resolution,
  }
}

/** The view of an entry at a level; `full` needs its comments and branches loaded by the caller. */
export function viewAt(detail: Detail, e: EntryRow, ctx: TrustContext, extra?: {comments: Comment[]; branches: Branch[]}): EntryView {
  if (detail === 'summary') return summaryView(e, ctx)
  if (detail === 'standard' || !extra) return standardView(e, ctx)
  return fullView(e, ctx, extra.comments, extra.branches)
}
