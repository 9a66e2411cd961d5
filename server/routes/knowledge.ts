/**
 * @module /knowledge routes: CRUD with ETag/If-Match, resolve, comments, publish (and its preview) and fork.
 */
import type {IncomingHttpHeaders} from 'node:http'
import {Type} from '@sinclair/typebox'
import {trimTrailingSlashes} from '../../src/shared/chars.js'
import {DETAIL_DEFAULT, LIMIT_DEFAULT} from '../../src/shared/contract.js'
import type {Detail, EntryFull, EntryView} from '../../src/shared/types.js'
import {operation} from '../http/operation.js'
import type {RouteDef} from '../http/route.js'
import type {Caller} from '../services/context.js'
import type {KnowledgeService} from '../services/knowledge.js'
import type {EntryQueries} from '../services/queries.js'
import type {PublishService} from '../services/publish.js'
import type {RecallService} from '../services/recall.js'
import type {RequestOrigin} from '../web/request.js'
import {errorResponses, parseIfMatch} from './common.js'

const ENTRY = 'Entry'
const tags = ['knowledge']
const SIMILAR =
  'The answer lists `similar: [{id, title, similarity}]`, entries you can see that look like the same knowledge ' +
  '(docs/api.md, "Similar entries on write"); with on_similar=refuse they give 409 possible_duplicate (with `similar`) instead.'
const SAFE =
  'Findings of secrets or personal data in what a shared scope would expose refuse the change with sensitive_content ' +
  '(docs/api.md, "Safe publish"): send redact: true, or acknowledge: [finding ids].'

/** What `GET /knowledge/:id` reads of its request besides the caller, the id and the detail level. */
interface EntryReadRequest extends RequestOrigin {
  headers: IncomingHttpHeaders
}

/** `GET /knowledge/:id`'s body. */
type EntryRead = EntryView & {web_url?: string}

/**
 * `GET /knowledge/:id` past authentication: the entry if the caller may see it (404 otherwise; once it is found, its
 * `ETag` is given to `found`, so even a failure after that carries it) at the detail asked, the read recorded, its web
 * page linked. The route below and the fast lane (server/http/fast-get.ts) both answer with it.
 */
export type ReadEntry = (
  caller: Caller,
  id: string,
  detail: Detail | undefined,
  req: EntryReadRequest,
  found: (etag: string) => void,
) => Promise<EntryRead>

export function entryReader(
  knowledge: KnowledgeService,
  recalls: RecallService,
  /** The entry's page on the web view, when the daemon serves one (docs/web.md). */
  webUrl?: (req: RequestOrigin, id: string) => string,
): ReadEntry {
  return async (caller, id, asked, req, found) => {
    const e = await knowledge.visible(caller, id)
    found(etagOf(e))
    const detail = asked ?? DETAIL_DEFAULT.entry
    const view = await knowledge.view(caller, e, detail)
    await recalls.recordRead(caller, 'mcp_get', req.headers, e.id, [view])
    // Not at summary: its item keeps to its token budget (docs/api.md, "Detail levels").
    return webUrl && detail !== 'summary' ? {...view, web_url: webUrl(req, e.id)} : view
  }
}

const etagOf = (e: {version: number}): string => `"${e.version}"`

export function knowledgeRoutes(knowledge: KnowledgeService, queries: EntryQueries, publish: PublishService, read: ReadEntry): RouteDef[] {
  const withEtag = (reply: {header: (k: string, v: string) => unknown}, e: {version: number}): void => {
    reply.header('ETag', etagOf(e))
  }
  return [
    operation('createEntry', {
      summary: 'Create a knowledge entry',
      tags,
      auth: true,
      description: `In project or global scope: ${SAFE} The answer is then 422. ${SIMILAR}`,
      responses: {
        201: {description: 'The new entry at full detail, plus `similar`', schema: ENTRY, headers: ['Location', 'ETag']},
        ...errorResponses(400, 401, 404, 409, 413, 415, 422),
      },
      handler: async ({caller, body, query, reply, req}) => {
        const e = await knowledge.create(caller, body, query.on_similar ?? 'report')
        withEtag(reply, e)
        // The request path without query or trailing slash (`POST /knowledge/` is served too).
        reply.header('Location', `${trimTrailingSlashes(req.url.split('?')[0]!)}/${e.id}`)
        reply.code(201)
        return e
      },
    }),
    operation('listEntries', {
      summary: 'List the entries the caller may see, newest first',
      tags,
      auth: true,
      responses: {
        200: {
          description: '{items, next_cursor}',
          schema: Type.Object({items: Type.Array(Type.Ref(ENTRY)), next_cursor: Type.Union([Type.String(), Type.Null()])}),
        },
        ...errorResponses(400, 401),
      },
      handler: async ({caller, query}) =>
        queries.list(caller, {...query, limit: query.limit ?? LIMIT_DEFAULT.entries, detail: query.detail ?? DETAIL_DEFAULT.entry}),
    }),
    operation('getEntry', {
      summary: 'Get an entry at a detail level (default standard)',
      tags,
      auth: true,
      responses: {200: {description: 'The entry', schema: ENTRY, headers: ['ETag']}, ...errorResponses(400, 401, 404)},
      handler: async ({caller, params, query, reply, req}) => {
        return read(caller, params.id, query.detail, req, (etag) => reply.header('ETag', etag))
      },
    }),
    operation('updateEntry', {
      summary: 'Change an entry (author or owner); If-Match guards against lost updates',
      tags,
      auth: true,
      description: `Of an entry in project or global scope: ${SAFE} Only findings the change brings count; the answer is then 422.`,
      bodyOptional: true,
      responses: {
        200: {description: 'The entry at full detail', schema: ENTRY, headers: ['ETag']},
        ...errorResponses(400, 401, 403, 404, 412, 413, 415, 422),
      },
      handler: async ({caller, params, body, req, reply}) => {
        const e = await knowledge.patch(caller, params.id, body, parseIfMatch(req.headers['if-match']))
        withEtag(reply, e)
        return e
      },
    }),
    operation('deleteEntry', {
      summary: 'Delete an entry and its comments (author or owner); forks stay',
      tags,
      auth: true,
      responses: {204: {description: 'Deleted'}, ...errorResponses(400, 401, 403, 404, 412)},
      handler: async ({caller, params, req, reply}) => {
        await knowledge.remove(caller, params.id, parseIfMatch(req.headers['if-match']))
        reply.code(204)
        return null
      },
    }),
    operation('resolveEntry', {
      summary: 'Resolve an entry (idempotent)',
      tags,
      auth: true,
      bodyOptional: true,
      responses: {200: {description: 'The entry at full detail', schema: ENTRY}, ...errorResponses(400, 401, 403, 404, 413, 415, 422)},
      handler: async ({caller, params, body, reply}) => sendEntry(reply, await knowledge.resolve(caller, params.id, body)),
    }),
    operation('listComments', {
      summary: 'All comments of an entry the caller can see, oldest first, a page at a time',
      tags,
      auth: true,
      responses: {
        200: {
          description: '{items, next_cursor}',
          schema: Type.Object({items: Type.Array(Type.Ref('Comment')), next_cursor: Type.Union([Type.String(), Type.Null()])}),
        },
        ...errorResponses(400, 401, 404),
      },
      handler: async ({caller, params, query}) =>
        knowledge.comments(caller, params.id, {
          limit: query.limit ?? LIMIT_DEFAULT.comments,
          ...(query.cursor ? {cursor: query.cursor} : {}),
        }),
    }),
    operation('addComment', {
      summary: 'Comment on an entry the caller can see',
      tags,
      auth: true,
      responses: {201: {description: 'The comment', schema: 'Comment'}, ...errorResponses(400, 401, 404, 413, 415, 422)},
      handler: async ({caller, params, body, reply}) => {
        reply.code(201)
        return knowledge.comment(caller, params.id, body)
      },
    }),
    operation('previewPublish', {
      tags,
      auth: true,
      summary: 'What publishing would expose: the findings, the redaction diff and the redacted text; changes nothing',
      responses: {200: {description: 'The preview', schema: 'PublishPreview'}, ...errorResponses(400, 401, 403, 404, 409)},
      handler: async ({caller, params, query}) => publish.preview(caller, params.id, query.scope),
    }),
    operation('publishEntry', {
      summary: 'Widen the scope of an entry (default: the next wider one)',
      tags,
      auth: true,
      description: `${SAFE} The answer is then 409; the redaction, if asked, is stored with the new scope as one new version.`,
      bodyOptional: true,
      responses: {
        200: {description: 'The entry at full detail', schema: ENTRY},
        ...errorResponses(400, 401, 403, 404, 409, 412, 413, 415, 422),
      },
      handler: async ({caller, params, body, reply}) => sendEntry(reply, await publish.publish(caller, params.id, body)),
    }),
    operation('forkEntry', {
      summary: 'Fork an entry into a new private branch',
      tags,
      auth: true,
      description: `Into a scope that reaches readers the parent did not: ${SAFE} The answer is then 422. There too: ${SIMILAR}`,
      bodyOptional: true,
      responses: {
        201: {description: 'The fork at full detail', schema: ENTRY, headers: ['Location', 'ETag']},
        ...errorResponses(400, 401, 404, 409, 413, 415, 422),
      },
      handler: async ({caller, params, body, query, reply, req}) => {
        const e = await knowledge.fork(caller, params.id, body, query.on_similar ?? 'report')
        reply.header('Location', `${req.url.split('/knowledge/')[0]}/knowledge/${e.id}`)
        reply.code(201)
        return sendEntry(reply, e)
      },
    }),
  ]

  function sendEntry<E extends EntryFull>(reply: {header: (k: string, v: string) => unknown}, e: E): E {
    withEtag(reply, e)
    return e
  }
}
