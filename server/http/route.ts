/**
 * @module The shape of a route: one definition gives fastify its validation schemas and handler, and
 * gives `/openapi.json` its operation, so the document and the behaviour cannot drift apart. Route modules declare
 * theirs from the operations table (`operation.ts`).
 */
import type {TSchema} from '@sinclair/typebox'
import type {FastifyReply, FastifyRequest} from 'fastify'
import type {Caller} from '../services/context.js'

type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE'

export interface ResponseDoc {
  description: string
  /** A schema, or the name of a component schema. */
  schema?: TSchema | string
  contentType?: string
  headers?: string[]
}

export interface RouteContext<P = unknown, Q = unknown, B = unknown> {
  req: FastifyRequest
  reply: FastifyReply
  params: P
  query: Q
  body: B
  /** The authenticated caller; routes with `auth: false` never read it. */
  caller: Caller
}

export interface RouteDef {
  method: HttpMethod
  /** Path below the API prefix, fastify style (`/knowledge/:id`). */
  path: string
  operationId: string
  summary: string
  description?: string
  tags: string[]
  auth: boolean
  params?: TSchema
  query?: TSchema
  body?: TSchema
  /** The body may be left out entirely (it then counts as `{}`). */
  bodyOptional?: boolean
  /**
   * Authenticated POST and PATCH routes honour `Idempotency-Key` (server/http/idempotency.ts); false opts out,
   * for an answer that must never be stored (it holds a secret).
   */
  idempotencyKey?: false
  responses: Record<number, ResponseDoc>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handler: (ctx: RouteContext<any, any, any>) => Promise<unknown>
}
