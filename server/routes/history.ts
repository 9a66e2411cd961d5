/**
 * @module GET /knowledge/:id/history and GET /review (docs/api.md, "History, usage and the review queue").
 */
import {HistoryPageSchema, ReviewPageSchema} from '../../src/shared/curation-schemas.js'
import {operation} from '../http/operation.js'
import type {RouteDef} from '../http/route.js'
import type {HistoryService} from '../services/history.js'
import type {ReviewService} from '../services/review.js'
import {errorResponses} from './common.js'

export function historyRoutes(history: HistoryService, review: ReviewService): RouteDef[] {
  return [
    operation('entryHistory', {
      tags: ['knowledge'],
      auth: true,
      summary: "The entry's history, oldest first: who changed what, when, and through what (API key, OAuth client, MCP, hook, import)",
      description: 'Whoever can see the entry can read it. A redaction is recorded by field and count, never the text it removed.',
      responses: {200: {description: '{items, next_cursor}', schema: HistoryPageSchema}, ...errorResponses(400, 401, 404)},
      handler: async ({caller, params, query}) => history.list(caller, params.id, query),
    }),
    operation('reviewQueue', {
      tags: ['knowledge'],
      auth: true,
      summary: 'What a curator should look at: counts by kind, then the entries most retrieved first, each with why',
      responses: {200: {description: '{counts, items, next_cursor}', schema: ReviewPageSchema}, ...errorResponses(400, 401, 404)},
      handler: async ({caller, query}) => review.queue(caller, query),
    }),
  ]
}
