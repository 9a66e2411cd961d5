/**
 * @module A route of the operations table (src/shared/operations.ts): its method, path and request schemas come from
 * the table, and its handler gets the params, query and body those schemas validate and must return what the table
 * says the operation answers. The route module adds only what is the daemon's: the handler and the operation's
 * documentation (summary, responses).
 */
import {OPERATIONS, type BodyOf, type OperationId, type ParamsOf, type QueryOf, type ResponseOf} from '../../src/shared/operations.js'
import type {TSchema} from '@sinclair/typebox'
import {REQUEST_SCHEMAS, type RequestSchemas} from '../../src/shared/request-schemas.js'
import type {RouteContext, RouteDef} from './route.js'

/** What a route module writes of an operation: everything but what the table holds. */
type OperationDoc = Omit<RouteDef, 'method' | 'path' | 'operationId' | 'params' | 'query' | 'body' | 'handler'>

/** A problem+json body a handler answers itself, having set its status (`/health`'s 503 carries its fields in it). */
interface OwnProblem {
  type: string
  title: string
  status: number
  code: string
  detail: string
}

type Handler<Id extends OperationId> = (ctx: RouteContext<ParamsOf<Id>, QueryOf<Id>, BodyOf<Id>>) => Promise<ResponseOf<Id> | OwnProblem>

/** The table's entry, read as the daemon needs it (the table's literal types are the client's concern). */
interface Entry {
  method: RouteDef['method']
  path: string
  params?: keyof RequestSchemas
  query?: keyof RequestSchemas
  body?: keyof RequestSchemas
}

/** The operations that take a body. */
export type BodyOperation = {[K in OperationId]: (typeof OPERATIONS)[K] extends {body: string} ? K : never}[OperationId]

/** The schema the body of `id` is validated with: the web view checks its forms against it too (server/web/actions.ts). */
export function bodySchema(id: BodyOperation): TSchema {
  const name = (OPERATIONS[id] as Entry).body
  if (!name) throw new Error(`${id} takes no body`)
  return REQUEST_SCHEMAS[name]
}

/** Declares the route of the operation `id` with its handler and documentation. */
export function operation<Id extends OperationId>(id: Id, def: OperationDoc & {handler: Handler<Id>}): RouteDef {
  const op: Entry = OPERATIONS[id]
  return {
    method: op.method,
    path: op.path,
    operationId: id,
    ...def,
    ...(op.params ? {params: REQUEST_SCHEMAS[op.params]} : {}),
    ...(op.query ? {query: REQUEST_SCHEMAS[op.query]} : {}),
    ...(op.body ? {body: REQUEST_SCHEMAS[op.body]} : {}),
    handler: def.handler as RouteDef['handler'],
  }
}
