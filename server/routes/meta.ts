/**
 * @module Unauthenticated routes about the service itself: health and the OpenAPI document.
 */
import {ERROR_CODES} from '../../src/shared/errors.js'
import {HealthSchema} from '../../src/shared/schemas.js'
import {route, type RouteDef} from '../http/route.js'
import type {Store} from '../store/store.js'
import {errorResponses} from './common.js'

/** Seconds a load balancer or client is told to wait when the store does not answer. */
const RETRY_AFTER_S = 2

export function metaRoutes(version: string, openapi: () => Record<string, unknown>, store: Store): RouteDef[] {
  const tags = ['meta']
  return [
    route({
      method: 'GET', path: '/health', operationId: 'health', tags, auth: false,
      summary: 'Liveness, version and the store (no auth)',
      description: 'Asks the store a trivial question each time: 503 `unavailable` when it does not answer within a few seconds (a team server\'s PostgreSQL down), so a load balancer takes this daemon out of rotation.',
      responses: {200: {description: 'ok', schema: HealthSchema}, ...errorResponses(503)},
      handler: async ({req, reply}) => {
        const health = {version, store: {kind: store.driver, answers: await store.answers()}}
        if (health.store.answers) return {status: 'ok', ...health}
        // A problem like any other 503, with the health fields as extension members.
        reply.code(503).header('Retry-After', String(RETRY_AFTER_S)).type('application/problem+json')
        const {status, title} = ERROR_CODES.unavailable
        return {type: 'about:blank', title, status, code: 'unavailable', detail: `the store (${store.driver}) is not answering`, instance: req.url.split('?')[0], ...health}
      },
    }),
    route({
      method: 'GET', path: '/openapi.json', operationId: 'openapi', summary: 'This API as an OpenAPI 3.1 document (no auth)', tags, auth: false,
      responses: {200: {description: 'The OpenAPI document'}},
      handler: async () => openapi(),
    }),
  ]
}
