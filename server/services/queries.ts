/**
 * @module Reading many entries: `GET /knowledge` (a filtered list in keyset pages) and `GET /search` (ranked,
 * optionally packed into a token budget), each under the caller's visibility (docs/api.md).
 */
import {UUID_PATTERN} from '../../src/shared/contract.js'
import type {Detail, EntryView, FreshnessState, Scope, SearchResult} from '../../src/shared/types.js'
import type {EntryFilter, EntryRow, Store} from '../store/store.js'
import {type Caller, viewerOf} from './context.js'
import {decodeCursor, encodeCursor} from './cursor.js'
import type {KnowledgeService} from './knowledge.js'
import {confidence} from './freshness.js'
import {packIntoTokens} from './token-budget.js'
import {type ContextOf, trustContexts} from './trust-context.js'
import {lowerUuid} from './validate.js'
import {projectNotFound} from './not-found.js'

const UUID = new RegExp(UUID_PATTERN)

/** The filters `GET /knowledge` and `GET /search` share. */
interface FilterQuery {
  scope?: Scope
  project_id?: string
  status?: 'open' | 'resolved'
  tag?: string
  author?: string
  freshness?: FreshnessState
  /** `superseded`: superseded entries too (docs/api.md, "Supersede"). */
  include?: 'superseded'
}

/** The author filters that name the caller. */
const SELF = new Set(['me', '@me'])

export class EntryQueries {
  constructor(
    private readonly store: Store,
    private readonly knowledge: KnowledgeService,
  ) {}

  /**
   * An author filter by id or name, or `me` / `@me` for the caller (docs/api.md, "Filters"): undefined when none is
   * asked for, null when no such principal exists.
   */
  private async resolveAuthor(caller: Caller, author: string | undefined): Promise<string | undefined | null> {
    if (author === undefined) return undefined
    if (SELF.has(author.toLowerCase())) return caller.principal.id
    const byId = UUID.test(author) ? await this.store.getPrincipal(author.toLowerCase()) : null
    const p = byId ?? (await this.store.getPrincipalByName(author))
    return p ? p.id : null
  }

  /** The filter in the store's terms; `now` is the clock freshness is decided at, the same for the filter and the views. */
  private async filter(caller: Caller, q: FilterQuery, now: number): Promise<EntryFilter | null> {
    // A project you are not a member of is 404, as if it did not exist (docs/api.md, "Errors").
    if (q.project_id && (await this.store.getMemberRole(lowerUuid(q.project_id), caller.principal.id)) === null) {
      throw projectNotFound(lowerUuid(q.project_id), 'project_id')
    }
    const authorId = await this.resolveAuthor(caller, q.author)
    if (authorId === null) return null // an unknown author has written nothing
    const f: EntryFilter = {}
    if (q.scope) f.scope = q.scope
    if (q.project_id) f.projectId = lowerUuid(q.project_id)
    if (q.status) f.status = q.status
    if (q.tag) f.tag = q.tag.toLowerCase()
    if (authorId) f.authorId = authorId
    if (q.include === 'superseded') f.includeSuperseded = true
    if (q.freshness) f.freshness = {state: q.freshness, now: new Date(now).toISOString()}
    return f
  }

  async list(
    caller: Caller,
    q: FilterQuery & {limit: number; cursor?: string; detail: Detail},
  ): Promise<{items: EntryView[]; next_cursor: string | null}> {
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor)
    const now = Date.now()
    const filter = await this.filter(caller, q, now)
    if (!filter) return {items: [], next_cursor: null}
    const rows = await this.store.listEntries(viewerOf(caller), filter, {
      limit: q.limit + 1,
      ...(after ? {after: {updated_at: after.at, id: after.id}} : {}),
    })
    const page = rows.slice(0, q.limit)
    const last = page.at(-1)
    const next = rows.length > q.limit && last ? encodeCursor({at: last.updated_at, id: last.id}) : null
    const contextOf = await trustContexts(this.store, page, now)
    const items = await Promise.all(page.map((e) => this.knowledge.view(caller, e, q.detail, contextOf, false)))
    return {items, next_cursor: next}
  }

  async search(
    caller: Caller,
    q: FilterQuery & {q: string; limit: number; detail: Detail; explain: boolean; max_tokens?: number},
  ): Promise<SearchResult> {
    const now = Date.now()
    const filter = await this.filter(caller, q, now)
    if (!filter) return {items: [], next_cursor: null, total: 0}
    // The projects of the candidates, read once: the confidence factor and the views decide in the same context.
    let contextOf: ContextOf = () => ({now})
    const weigh = async (entries: EntryRow[]): Promise<number[]> => {
      contextOf = await trustContexts(this.store, entries, now)
      return entries.map((e) => confidence(e, contextOf(e)))
    }
    const outcome = await this.store.searchEntries(viewerOf(caller), filter, {query: q.q, limit: q.limit, explain: q.explain, weigh})
    const items = await Promise.all(
      outcome.hits.map(async (h) => {
        const item: Record<string, unknown> = {...(await this.knowledge.view(caller, h.entry, q.detail, contextOf)), score: h.score}
        if (h.factors) item.factors = h.factors
        if (h.matched) item.matched = h.matched
        if (h.snippet !== undefined) item.snippet = h.snippet
        // Explain says how used a hit has been, at any level (docs/api.md, "Usage").
        if (q.explain) item.usage = {retrieved: h.entry.retrieved, last_retrieved_at: h.entry.last_retrieved_at}
        return item as unknown as EntryView
      }),
    )
    const result: SearchResult = {items, next_cursor: null, total: outcome.total}
    if (q.max_tokens !== undefined)
      return await packIntoTokens(
        result,
        outcome.hits.map((h) => h.entry),
        q.detail,
        q.max_tokens,
        contextOf,
      )
    return result
  }
}
