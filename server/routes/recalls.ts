/**
 * @module POST /recalls and GET /recalls: knowledge for a prompt hook, and the record of what was recalled
 * (docs/api.md, "Recall").
 */
import {LIMIT_DEFAULT} from '../../src/shared/contract.js'
import {RecallResultSchema} from '../../src/shared/recall-schemas.js'
import {Type} from '@sinclair/typebox'
import {operation} from '../http/operation.js'
import type {RouteDef} from '../http/route.js'
import type {RecallService} from '../services/recall.js'
import {errorResponses} from './common.js'

export function recallRoutes(recalls: RecallService): RouteDef[] {
  return [
    operation('recall', {
      tags: ['recall'],
      auth: true,
      summary: "The best fresh entries for a person's prompt, packed into a token budget with why each was chosen; recorded",
      responses: {
        201: {description: 'The context (empty when nothing is relevant) and the entries in it', schema: RecallResultSchema},
        ...errorResponses(400, 401, 404, 413, 415, 422),
      },
      handler: async ({caller, body, reply}) => {
        reply.code(201)
        return recalls.recall(caller, body)
      },
    }),
    operation('listRecalls', {
      tags: ['recall'],
      auth: true,
      summary: "The caller's own recalls, newest first, each entry with whether it was verified or flagged since",
      responses: {
        200: {
          description: '{items, next_cursor}',
          schema: Type.Object({items: Type.Array(Type.Ref('Recall')), next_cursor: Type.Union([Type.String(), Type.Null()])}),
        },
        ...errorResponses(400, 401),
      },
      handler: async ({caller, query}) =>
        recalls.list(caller, {
          limit: query.limit ?? LIMIT_DEFAULT.entries,
          ...(query.session === undefined ? {} : {session: query.session}),
          ...(query.cursor === undefined ? {} : {cursor: query.cursor}),
        }),
    }),
  ]
}
