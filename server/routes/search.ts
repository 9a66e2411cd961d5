/**
 * @module GET /search: ranked full-text search over what the caller may see.
 */
import {Type} from '@sinclair/typebox'
import {DETAIL_DEFAULT, LIMIT_DEFAULT} from '../../src/shared/contract.js'
import {KbError} from '../../src/shared/errors.js'
import {operation} from '../http/operation.js'
import type {RouteDef} from '../http/route.js'
import type {EntryQueries} from '../services/queries.js'
import type {RecallService} from '../services/recall.js'
import {errorResponses} from './common.js'

export function searchRoutes(queries: EntryQueries, recalls: RecallService): RouteDef[] {
  return [
    operation('search', {
      tags: ['knowledge'],
      auth: true,
      summary: 'Search entries by text (title above tags above body), best match first; detail defaults to summary',
      responses: {
        200: {
          description: '{items, next_cursor: null, total}; every item has score',
          schema: Type.Object({
            items: Type.Array(Type.Ref('Entry')),
            next_cursor: Type.Null(),
            total: Type.Integer(),
            tokens_used: Type.Optional(Type.Integer()),
            truncated: Type.Optional(Type.Boolean()),
          }),
        },
        ...errorResponses(400, 401),
      },
      handler: async ({caller, query, req}) => {
        if (query.q.trim() === '')
          throw new KbError('bad_request', 'q must contain a word to search for', {errors: [{path: 'q', message: 'blank'}]})
        const limit = query.limit ?? LIMIT_DEFAULT.search
        const result = await queries.search(caller, {
          ...query,
          limit,
          detail: query.detail ?? DETAIL_DEFAULT.search,
          explain: query.explain ?? false,
        })
        await recalls.recordRead(caller, 'mcp_search', req.headers, query.q, result.items)
        return result
      },
    }),
  ]
}
