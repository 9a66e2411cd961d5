/**
 * @module What an entry looks like at each detail level (docs/api.md, "Detail levels").
 */
import type {Branch, Comment, Detail, EntryFull, EntryStandard, EntrySummary, EntryView} from '../../src/shared/types.js'
import type {EntryRow} from '../store/store.js'

export function summaryView(e: EntryRow): EntrySummary {
  return {id: e.id, title: e.summary_title, body: e.summary, status: e.status}
}

export function standardView(e: EntryRow): EntryStandard {
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
  }
}

/** `comments`: the entry's newest ones (the store's `newest` page); fewer than `comment_count` means truncated. */
export function fullView(e: EntryRow, comments: Comment[], branches: Branch[]): EntryFull {
  return {
    ...standardView(e),
    comments,
    comments_truncated: comments.length < e.comment_count,
    thought_chain: e.thought_chain,
    branches,
    resolution: e.resolution,
  }
}

/** The view of an entry at a level; `full` needs its comments and branches loaded by the caller. */
export function viewAt(detail: Detail, e: EntryRow, extra?: {comments: Comment[]; branches: Branch[]}): EntryView {
  if (detail === 'summary') return summaryView(e)
  if (detail === 'standard' || !extra) return standardView(e)
  return fullView(e, extra.comments, extra.branches)
}
