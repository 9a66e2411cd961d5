/**
 * @module GET /knowledge/:id/history and GET /review (docs/api.md, "History, usage and the review queue").
 */
import {HistoryPageSchema, HistoryQuery, ReviewPageSchema, ReviewQuery} from '../../src/shared/curation-schemas.js'
import {IdParams} from '../../src/shared/schemas.js'
import {route, type RouteDef} from '../http/route.js'
import type {HistoryService} from '../services/history.js'
import type {ReviewService} from '../services/review.js'
import {errorResponses} from './common.js'

export function historyRoutes(history: HistoryService, review: ReviewService): RouteDef[] {
  return [
    route<IdParams, HistoryQuery>({
      method: 'GET',
      path: '/knowledge/:id/history',
      operationId: 'entryHistory',
      tags: ['knowledge'],
      auth: true,
      summary: "The entry's history, oldest first: who changed what, when, and through what (API key, OAuth client, MCP, hook, import)",
      description: 'Whoever can see the entry can read it. A redaction is recorded by field and count, never the text it removed.',
      params: IdParams,
      query: HistoryQuery,
      responses: {200: {description: '{items, next_cursor}', schema: HistoryPageSchema}, ...errorResponses(400, 401, 404)},
      handler: async ({caller, params, query}) => history.list(caller, params.id, query),
    }),
    route<unknown, ReviewQuery>({
      method: 'GET',
      path: '/review',
      operationId: 'reviewQueue',
      tags: ['knowledge'],
      auth: true,
      summary: 'What a curator should look at: counts by kind, then the entries most retrieved first, each with why',
      query: ReviewQuery,
      responses: {200: {description: '{counts, items, next_cursor}', schema: ReviewPageSchema}, ...errorResponses(400, 401, 404)},
      handler: async ({caller, query}) => review.queue(caller, query),
    }),
  ]
}
