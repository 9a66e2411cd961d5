/**
 * @module What `kb search` does once its flags are read: the request, the rows, the token budget's line. One source
 * for the oclif command (commands/search.ts) and the lean path that skips oclif (lean-search.ts).
 */
import type {ApiClient} from '../shared/client.js'
import {DETAIL_DEFAULT, LIMIT_DEFAULT, LIMIT_MAX, MAX_TOKENS_MAX} from '../shared/contract.js'
import {KbError} from '../shared/errors.js'
import type {Detail, Scope, SearchResult, Status} from '../shared/types.js'
import {detailOr, freshnessFrom, limitOr} from './flag-values.js'
import {dim, oneLine, searchRows, type OutputMode} from './output/format.js'

/** The search command's own flags, as parsed. */
export interface SearchFlags {
  scope?: Scope
  status?: Status
  tag?: string
  limit?: number
  detail?: Detail
  fresh?: boolean
  stale?: boolean
  'include-superseded'?: boolean
  'max-tokens'?: number
}

/**
 * The bounds of the search's integer flags: the command declares them with these, and the lean path reads any other
 * flag that takes a value and lists no options as a string (the rest of each flag it reads from oclif's manifest).
 */
export const SEARCH_INTEGER_FLAGS = {
  limit: {min: 1, max: LIMIT_MAX},
  'max-tokens': {min: 1, max: MAX_TOKENS_MAX},
} as const

/** What the search needs of whoever runs it (the command base, or the lean path). */
export interface SearchContext {
  client(): Promise<ApiClient>
  projectId(): Promise<string | null>
  mode: OutputMode
  json: boolean
  /** Human output: a line, never in --json mode. */
  out(text: string): void
}

/** Searches for the words `words` (the positional arguments) and prints the hits; the result is what --json prints. */
export async function runSearch(c: SearchContext, flags: SearchFlags, words: string[]): Promise<SearchResult> {
  const q = words.join(' ')
  if (q.trim() === '') throw new KbError('usage', 'give words to search for: kb search <words…>')
  const client = await c.client()
  const projectId = await c.projectId()
  const result = await client.search({
    q,
    ...(flags.scope ? {scope: flags.scope} : {}),
    ...(flags.status ? {status: flags.status} : {}),
    ...(flags.tag ? {tag: flags.tag} : {}),
    ...freshnessFrom(flags),
    ...(flags['include-superseded'] ? {include: 'superseded' as const} : {}),
    ...(projectId ? {project_id: projectId} : {}),
    detail: detailOr(flags.detail, DETAIL_DEFAULT.search),
    limit: limitOr(flags.limit, LIMIT_DEFAULT.search),
    ...(flags['max-tokens'] !== undefined ? {max_tokens: flags['max-tokens']} : {}),
  })
  if (result.items.length === 0) {
    if (c.mode.tty) c.out(`No entries match "${oneLine(q)}".`)
  } else {
    c.out(searchRows(result.items, c.mode))
    if (c.mode.tty && result.total > result.items.length)
      c.out(dim(c.mode, `${result.items.length} of ${result.total} matches; --limit shows more.`))
  }
  if (flags['max-tokens'] !== undefined && result.tokens_used !== undefined && !c.json) {
    const line = `${result.tokens_used} of ${flags['max-tokens']} tokens used${result.truncated ? '; truncated: hits were shortened or left out to fit' : ''}`
    // Piped rows stay rows: off a terminal the budget's outcome goes to stderr.
    if (c.mode.tty) c.out(dim(c.mode, line))
    else process.stderr.write(`kb: ${line}\n`)
  }
  return result
}
