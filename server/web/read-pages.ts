/**
 * @module The pages that read (docs/web.md): search, an entry, the review queue, the projects. Each calls the service
 * its API route calls, with the session's caller, under the same rules (visibility, validation, limits).
 */
import type {IdService} from '../services/ids.js'
import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'
import {FRESHNESS_STATES, LIMIT_MAX, REVIEW_KINDS, SCOPES, STATUSES, UUID_PATTERN} from '../../src/shared/contract.js'
import {KbError} from '../../src/shared/errors.js'
import type {EntryFull, EntryView, Project} from '../../src/shared/types.js'
import type {HistoryService} from '../services/history.js'
import type {KnowledgeService} from '../services/knowledge.js'
import type {ProjectService} from '../services/projects.js'
import type {EntryQueries} from '../services/queries.js'
import type {ReviewService} from '../services/review.js'
import type {Caller} from '../services/context.js'
import type {EntryPageView} from './pages/entry.js'
import {projectsPage, reviewPage} from './pages/lists.js'
import {PAGE_SIZE, searchPage, type SearchForm} from './pages/search.js'
import {param, queryOf} from './request.js'
import type {WebRequest} from './routes.js'

/** The services the pages that read call: the ones the API routes call. */
export interface WebServices {
  /** Reads a short id (docs/api.md, "Short ids"): `/e/<short id>` leads to the entry's permanent link. */
  ids: IdService
  knowledge: KnowledgeService
  queries: EntryQueries
  history: HistoryService
  review: ReviewService
  projects: ProjectService
}

export type SignedIn = (
  handler: (w: WebRequest) => Promise<FastifyReply | string>,
) => (req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>

const UUID = new RegExp(UUID_PATTERN)
const HISTORY_SHOWN = 50
const oneOf = <T extends string>(list: readonly T[], v: string): T | undefined =>
  (list as readonly string[]).includes(v) ? (v as T) : undefined

function searchForm(q: URLSearchParams): SearchForm {
  const pageNo = Number(param(q, 'page', 4))
  return {
    q: param(q, 'q').trim(),
    scope: oneOf(SCOPES, param(q, 'scope')) ?? '',
    project: UUID.test(param(q, 'project')) ? param(q, 'project').toLowerCase() : '',
    status: oneOf(STATUSES, param(q, 'status')) ?? '',
    tag: param(q, 'tag', 40).trim().toLowerCase(),
    freshness: oneOf(FRESHNESS_STATES, param(q, 'freshness')) ?? '',
    page: Number.isInteger(pageNo) && pageNo >= 1 ? Math.min(pageNo, LIMIT_MAX / PAGE_SIZE) : 1,
    cursor: param(q, 'cursor', 1000),
  }
}

/** The search page's link with the same filters and another page or cursor. */
function searchLink(root: string, f: SearchForm, at: {page?: number; cursor?: string}): string {
  const q = new URLSearchParams()
  for (const k of ['q', 'scope', 'project', 'status', 'tag', 'freshness'] as const) if (f[k] !== '') q.set(k, f[k])
  if (at.page && at.page > 1) q.set('page', String(at.page))
  if (at.cursor) q.set('cursor', at.cursor)
  return `${root}/search?${q.toString()}`
}

async function runSearch(
  s: WebServices,
  caller: Caller,
  f: SearchForm,
  root: string,
): Promise<{items: EntryView[]; total?: number; next: string | null; prev: string | null}> {
  const filters = {
    ...(f.scope ? {scope: f.scope as (typeof SCOPES)[number]} : {}),
    ...(f.project ? {project_id: f.project} : {}),
    ...(f.status ? {status: f.status as (typeof STATUSES)[number]} : {}),
    ...(f.tag ? {tag: f.tag} : {}),
    ...(f.freshness ? {freshness: f.freshness as (typeof FRESHNESS_STATES)[number]} : {}),
  }
  if (f.q === '') {
    const r = await s.queries.list(caller, {...filters, limit: PAGE_SIZE, detail: 'standard', ...(f.cursor ? {cursor: f.cursor} : {})})
    return {
      items: r.items,
      next: r.next_cursor ? searchLink(root, f, {cursor: r.next_cursor}) : null,
      prev: f.cursor ? searchLink(root, f, {}) : null,
    }
  }
  // Search ranks at most LIMIT_MAX hits: page n asks for n pages' worth and shows the last.
  const r = await s.queries.search(caller, {...filters, q: f.q, limit: f.page * PAGE_SIZE, detail: 'standard', explain: true})
  const items = r.items.slice((f.page - 1) * PAGE_SIZE)
  const more = r.total > f.page * PAGE_SIZE && f.page * PAGE_SIZE < LIMIT_MAX
  return {
    items,
    total: r.total,
    next: more ? searchLink(root, f, {page: f.page + 1}) : null,
    prev: f.page > 1 ? searchLink(root, f, {page: f.page - 1}) : null,
  }
}

/** What the entry page shows of an entry the caller can see (a hidden one throws not_found, shown as the 404 page). */
export async function entryView(s: WebServices, caller: Caller, id: string): Promise<EntryPageView> {
  if (!UUID.test(id)) throw new KbError('not_found', 'no such entry')
  const row = await s.knowledge.visible(caller, id.toLowerCase())
  const entry = (await s.knowledge.view(caller, row, 'full')) as EntryFull
  const project = entry.project_id ? await s.projects.get(caller, entry.project_id).catch(() => null) : null
  const titles = new Map<string, string>()
  for (const other of [entry.superseded_by, entry.forked_from]) {
    if (!other) continue
    const r = await s.knowledge.visible(caller, other).catch(() => null)
    if (r) titles.set(other, r.title)
  }
  const history = (await s.history.list(caller, entry.id, {limit: HISTORY_SHOWN})).items
  return {entry, project, titles, history}
}

export function readPages(scope: FastifyInstance, s: WebServices, signedIn: SignedIn): void {
  scope.get(
    '/',
    signedIn(async ({reply, ctx}) => reply.code(303).header('Location', `${ctx.root}/search`).send()),
  )
  scope.get(
    '/search',
    signedIn(async ({req, ctx, session}) => {
      const form = searchForm(queryOf(req))
      // The filter's project list and the search are independent: asked for together.
      const [listed, found] = await Promise.allSettled([
        s.projects.list(session.caller, LIMIT_MAX),
        runSearch(s, session.caller, form, ctx.root),
      ])
      if (listed.status === 'rejected') throw listed.reason
      const projects: Project[] = listed.value.items
      try {
        if (found.status === 'rejected') throw found.reason
        const r = found.value
        return searchPage(ctx, {form, projects, ...r})
      } catch (e) {
        // A filter the caller may not use (a project they left) is said in words on the same page; anything else is
        // the error page, which never shows an unexpected error's details.
        if (!(e instanceof KbError) || e.status >= 500) throw e
        return searchPage(ctx, {form, projects, items: [], next: null, prev: null, error: e.message})
      }
    }),
  )
  scope.get(
    '/review',
    signedIn(async ({req, ctx, session}) => {
      const q = queryOf(req)
      const kind = oneOf(REVIEW_KINDS, param(q, 'kind')) ?? ''
      const project = UUID.test(param(q, 'project')) ? param(q, 'project').toLowerCase() : undefined
      const cursor = param(q, 'cursor', 1000)
      const queue = await s.review.queue(session.caller, {
        ...(kind ? {kind} : {}),
        ...(project ? {project_id: project} : {}),
        ...(cursor ? {cursor} : {}),
        limit: PAGE_SIZE,
      })
      const nextQ = new URLSearchParams({
        ...(kind ? {kind} : {}),
        ...(project ? {project} : {}),
        ...(queue.next_cursor ? {cursor: queue.next_cursor} : {}),
      })
      return reviewPage(ctx, {queue, kind, next: queue.next_cursor ? `${ctx.root}/review?${nextQ.toString()}` : null})
    }),
  )
  scope.get(
    '/projects',
    signedIn(async ({ctx, session}) => projectsPage(ctx, (await s.projects.list(session.caller, LIMIT_MAX)).items)),
  )
}
