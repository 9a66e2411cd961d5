/**
 * @module /api-keys routes: mint (secret shown once), list, revoke (including the key in use).
 */
import {Type} from '@sinclair/typebox'
import {operation} from '../http/operation.js'
import type {RouteDef} from '../http/route.js'
import type {ApiKeyService} from '../services/api-keys.js'
import {errorResponses} from './common.js'

export function apiKeyRoutes(keys: ApiKeyService): RouteDef[] {
  const tags = ['api-keys']
  return [
    operation('createApiKey', {
      summary: 'Create an API key; the secret `key` is in this response only',
      tags,
      auth: true,
      bodyOptional: true,
      // Its answer holds the new secret, which must never be stored to be repeated.
      idempotencyKey: false,
      responses: {
        201: {description: 'The key record with its secret', schema: 'ApiKey'},
        ...errorResponses(400, 401, 403, 404, 413, 415, 422),
      },
      handler: async ({caller, body, reply}) => {
        reply.code(201)
        return keys.create(caller, body)
      },
    }),
    operation('listApiKeys', {
      summary: "The caller's live keys, without secrets",
      tags,
      auth: true,
      responses: {
        200: {description: '{items, next_cursor}', schema: Type.Object({items: Type.Array(Type.Ref('ApiKey')), next_cursor: Type.Null()})},
        ...errorResponses(401),
      },
      handler: async ({caller}) => ({items: await keys.list(caller), next_cursor: null}),
    }),
    operation('revokeApiKey', {
      summary: "Revoke one of the caller's keys; with no id, the key making the request",
      tags,
      auth: true,
      bodyOptional: true,
      responses: {204: {description: 'Revoked'}, ...errorResponses(400, 401, 404, 413, 415, 422)},
      handler: async ({caller, body, reply}) => {
        await keys.revoke(caller, body.id)
        reply.code(204)
        return null
      },
    }),
  ]
}
