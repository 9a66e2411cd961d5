/**
 * @module Unauthenticated routes about the service itself: health and the OpenAPI document.
 */
import {HealthSchema} from '../../src/shared/schemas.js'
import {route, type RouteDef} from '../http/route.js'

export function metaRoutes(version: string, openapi: () => Record<string, unknown>): RouteDef[] {
  const tags = ['meta']
  return [
    route({
      method: 'GET', path: '/health', operationId: 'health', summary: 'Liveness and version (no auth)', tags, auth: false,
      responses: {200: {description: 'ok', schema: HealthSchema}},
      handler: async () => ({status: 'ok', version}),
    }),
    route({
      method: 'GET', path: '/openapi.json', operationId: 'openapi', summary: 'This API as an OpenAPI 3.1 document (no auth)', tags, auth: false,
      responses: {200: {description: 'The OpenAPI document'}},
      handler: async () => openapi(),
    }),
  ]
}
