/**
 * @module /knowledge routes: CRUD with ETag/If-Match, resolve, comments, publish (and its preview) and fork.
 */
import {Type} from '@sinclair/typebox'
import type {FastifyRequest} from 'fastify'
import {
  CommentBody,
  CommentsQuery,
  CreateEntryBody,
  CreateEntryQuery,
  ForkBody,
  GetEntryQuery,
  IdParams,
  ListQuery,
  PatchEntryBody,
  PublishBody,
  PublishPreviewQuery,
  ResolveBody,
} from '../../src/shared/schemas.js'
import {trimTrailingSlashes} from '../../src/shared/chars.js'
import {DETAIL_DEFAULT, LIMIT_DEFAULT} from '../../src/shared/contract.js'
import type {Detail, EntryFull} from '../../src/shared/types.js'
import {route, type RouteDef} from '../http/route.js'
import type {KnowledgeService} from '../services/knowledge.js'
import type {EntryQueries} from '../services/queries.js'
import type {PublishService} from '../services/publish.js'
import type {RecallService} from '../services/recall.js'
import {errorResponses, parseIfMatch} from './common.js'

const ENTRY = 'Entry'
const tags = ['knowledge']
const SIMILAR =
  'The answer lists `similar: [{id, title, similarity}]`, entries you can see that look like the same knowledge ' +
  '(docs/api.md, "Similar entries on write"); with on_similar=refuse they give 409 possible_duplicate (with `similar`) instead.'
const SAFE =
  'Findings of secrets or personal data in what a shared scope would expose refuse the change with sensitive_content ' +
  '(docs/api.md, "Safe publish"): send redact: true, or acknowledge: [finding ids].'

export function knowledgeRoutes(
  knowledge: KnowledgeService,
  queries: EntryQueries,
  publish: PublishService,
  recalls: RecallService,
  /** The entry's page on the web view, when the daemon serves one (docs/web.md). */
  webUrl?: (req: FastifyRequest, id: string) => string,
): RouteDef[] {
  const withEtag = (reply: {header: (k: string, v: string) => unknown}, e: {version: number}): void => {
    reply.header('ETag', `"${e.version}"`)
  }
  return [
    route<unknown, CreateEntryQuery, CreateEntryBody>({
      method: 'POST',
      path: '/knowledge',
      operationId: 'createEntry',
      summary: 'Create a knowledge entry',
      tags,
      auth: true,
      description: `In project or global scope: ${SAFE} The answer is then 422. ${SIMILAR}`,
      query: CreateEntryQuery,
      body: CreateEntryBody,
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
    route<unknown, ListQuery>({
      method: 'GET',
      path: '/knowledge',
      operationId: 'listEntries',
      summary: 'List the entries the caller may see, newest first',
      tags,
      auth: true,
      query: ListQuery,
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
    route<IdParams, {detail?: Detail}>({
      method: 'GET',
      path: '/knowledge/:id',
      operationId: 'getEntry',
      summary: 'Get an entry at a detail level (default standard)',
      tags,
      auth: true,
      params: IdParams,
      query: GetEntryQuery,
      responses: {200: {description: 'The entry', schema: ENTRY, headers: ['ETag']}, ...errorResponses(400, 401, 404)},
      handler: async ({caller, params, query, reply, req}) => {
        const e = await knowledge.visible(caller, params.id)
        withEtag(reply, e)
        const detail = query.detail ?? DETAIL_DEFAULT.entry
        const view = await knowledge.view(caller, e, detail)
        await recalls.recordRead(caller, 'mcp_get', req.headers, e.id, [view])
        // Not at summary: its item keeps to its token budget (docs/api.md, "Detail levels").
        return webUrl && detail !== 'summary' ? {...view, web_url: webUrl(req, e.id)} : view
      },
    }),
    route<IdParams, unknown, PatchEntryBody>({
      method: 'PATCH',
      path: '/knowledge/:id',
      operationId: 'updateEntry',
      summary: 'Change an entry (author or owner); If-Match guards against lost updates',
      tags,
      auth: true,
      description: `Of an entry in project or global scope: ${SAFE} Only findings the change brings count; the answer is then 422.`,
      params: IdParams,
      body: PatchEntryBody,
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
    route<IdParams>({
      method: 'DELETE',
      path: '/knowledge/:id',
      operationId: 'deleteEntry',
      summary: 'Delete an entry and its comments (author or owner); forks stay',
      tags,
      auth: true,
      params: IdParams,
      responses: {204: {description: 'Deleted'}, ...errorResponses(400, 401, 403, 404, 412)},
      handler: async ({caller, params, req, reply}) => {
        await knowledge.remove(caller, params.id, parseIfMatch(req.headers['if-match']))
        reply.code(204)
        return null
      },
    }),
    route<IdParams, unknown, ResolveBody>({
      method: 'POST',
      path: '/knowledge/:id/resolve',
      operationId: 'resolveEntry',
      summary: 'Resolve an entry (idempotent)',
      tags,
      auth: true,
      params: IdParams,
      body: ResolveBody,
      bodyOptional: true,
      responses: {200: {description: 'The entry at full detail', schema: ENTRY}, ...errorResponses(400, 401, 403, 404, 413, 415, 422)},
      handler: async ({caller, params, body, reply}) => sendEntry(reply, await knowledge.resolve(caller, params.id, body)),
    }),
    route<IdParams, CommentsQuery>({
      method: 'GET',
      path: '/knowledge/:id/comments',
      operationId: 'listComments',
      summary: 'All comments of an entry the caller can see, oldest first, a page at a time',
      tags,
      auth: true,
      params: IdParams,
      query: CommentsQuery,
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
    route<IdParams, unknown, CommentBody>({
      method: 'POST',
      path: '/knowledge/:id/comments',
      operationId: 'addComment',
      summary: 'Comment on an entry the caller can see',
      tags,
      auth: true,
      params: IdParams,
      body: CommentBody,
      responses: {201: {description: 'The comment', schema: 'Comment'}, ...errorResponses(400, 401, 404, 413, 415, 422)},
      handler: async ({caller, params, body, reply}) => {
        reply.code(201)
        return knowledge.comment(caller, params.id, body)
      },
    }),
    route<IdParams, PublishPreviewQuery>({
      method: 'GET',
      path: '/knowledge/:id/publish-preview',
      operationId: 'previewPublish',
      tags,
      auth: true,
      summary: 'What publishing would expose: the findings, the redaction diff and the redacted text; changes nothing',
      params: IdParams,
      query: PublishPreviewQuery,
      responses: {200: {description: 'The preview', schema: 'PublishPreview'}, ...errorResponses(400, 401, 403, 404, 409)},
      handler: async ({caller, params, query}) => publish.preview(caller, params.id, query.scope),
    }),
    route<IdParams, unknown, PublishBody>({
      method: 'POST',
      path: '/knowledge/:id/publish',
      operationId: 'publishEntry',
      summary: 'Widen the scope of an entry (default: the next wider one)',
      tags,
      auth: true,
      description: `${SAFE} The answer is then 409; the redaction, if asked, is stored with the new scope as one new version.`,
      params: IdParams,
      body: PublishBody,
      bodyOptional: true,
      responses: {
        200: {description: 'The entry at full detail', schema: ENTRY},
        ...errorResponses(400, 401, 403, 404, 409, 412, 413, 415, 422),
      },
      handler: async ({caller, params, body, reply}) => sendEntry(reply, await publish.publish(caller, params.id, body)),
    }),
    route<IdParams, CreateEntryQuery, ForkBody>({
      method: 'POST',
      path: '/knowledge/:id/fork',
      operationId: 'forkEntry',
      summary: 'Fork an entry into a new private branch',
      tags,
      auth: true,
      description: `Into a scope that reaches readers the parent did not: ${SAFE} The answer is then 422. There too: ${SIMILAR}`,
      params: IdParams,
      query: CreateEntryQuery,
      body: ForkBody,
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
