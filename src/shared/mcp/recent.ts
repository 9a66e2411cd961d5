/**
 * @module `search_knowledge` without a query (docs/mcp.md): the most recently updated entries the caller may see, with
 * the same filters, detail and max_tokens as a search — what an agent reads to learn what the project knows lately.
 */
import {LIMIT_DEFAULT} from '../contract.js'
import type {Detail, SearchResult} from '../types.js'
import {searchAnswer, type ToolAnswer} from './render.js'
import {pick, type ToolContext} from './tool-kit.js'

export async function recentAnswer(
  ctx: ToolContext,
  args: Record<string, unknown>,
  project: string | undefined,
  detail: Detail,
): Promise<ToolAnswer> {
  const maxTokens = typeof args.max_tokens === 'number' ? args.max_tokens : undefined
  const page = await ctx.api.listEntries({
    ...(pick(args, ['scope', 'status', 'tag', 'freshness']) as Record<string, string>),
    ...(project ? {project_id: project} : {}),
    detail,
    limit: typeof args.limit === 'number' ? args.limit : LIMIT_DEFAULT.search,
  })
  if (page.items.length === 0)
    return {structured: {items: [], total: 0}, text: 'Nothing recorded yet here. add_knowledge once you have solved something.'}
  const result: SearchResult = {items: page.items, total: page.items.length, next_cursor: null}
  const answer = await searchAnswer(result, '', maxTokens)
  const more = page.next_cursor ? '\n(more entries: raise limit, or search with a query)' : ''
  return {...answer, text: `Recent entries, newest first:\n${answer.text}${more}`}
}
