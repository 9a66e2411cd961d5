/**
 * @module Builds the OpenAPI 3.1 document from the same route definitions and schemas that validate requests.
 */
import type {TSchema} from '@sinclair/typebox'
import {ApiKeySchema, CommentSchema, EntrySchema, GrantSchema, ProjectSchema, WebLinkSchema} from '../src/shared/schemas.js'
import {FindingSchema, ProblemSchema, PublishPreviewSchema, RedactionLineSchema} from '../src/shared/safe-publish-schemas.js'
import {IDEMPOTENCY_KEY_MAX} from '../src/shared/contract.js'
import {RecallRecordSchema} from '../src/shared/recall-schemas.js'
import {InvitationSchema, JoinRequestSchema, MemberSchema} from '../src/shared/membership-schemas.js'
import {honoursIdempotencyKey, REPLAYED_HEADER} from './http/idempotency.js'
import type {ResponseDoc, RouteDef} from './http/route.js'
import {problemCodes, problemResponse} from './routes/common.js'

const COMPONENTS: Record<string, TSchema> = {
  Entry: EntrySchema,
  Comment: CommentSchema,
  Project: ProjectSchema,
  ApiKey: ApiKeySchema,
  Grant: GrantSchema,
  WebLink: WebLinkSchema,
  Problem: ProblemSchema,
  Finding: FindingSchema,
  RedactionLine: RedactionLineSchema,
  PublishPreview: PublishPreviewSchema,
  Recall: RecallRecordSchema,
  Member: MemberSchema,
  JoinRequest: JoinRequestSchema,
  Invitation: InvitationSchema,
}

/** The `Idempotency-Key` header (server/http/idempotency.ts), a parameter of every route that honours it. */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: {type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX + 2},
  description:
    'An sf-string such as "4f1c…" (a fresh UUID per intended change). A repeat with the same key and request within 24 h gets the first answer (with `Idempotent-Replayed: true`) without acting again; another request with the key is 422 idempotency_key_reused; a repeat while the first runs is 409 idempotency_key_in_use.',
  example: '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
}

/** A route's responses with what Idempotency-Key adds: the header of a repeated answer, and its problems in 409 and 422. */
function withIdempotency(responses: Record<number, ResponseDoc>): Record<number, ResponseDoc> {
  const out: Record<number, ResponseDoc> = {}
  for (const [status, doc] of Object.entries(responses))
    out[Number(status)] = status.startsWith('2') ? {...doc, headers: [...(doc.headers ?? []), REPLAYED_HEADER]} : doc
  for (const status of [409, 422]) {
    const codes = problemCodes(status, true)
    out[status] = problemResponse(status in responses ? codes : codes.filter((c) => c.startsWith('idempotency_')))
  }
  return out
}

/** A plain JSON copy of a schema: TypeBox's symbol keys dropped, `$ref`s pointed at components, `$id` removed. */
function clean(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(clean)
  if (schema === null || typeof schema !== 'object') return schema
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$id') continue
    if (k === '$ref' && typeof v === 'string') out.$ref = `#/components/schemas/${v}`
    else out[k] = clean(v)
  }
  return out
}

function schemaOrRef(s: TSchema | string): unknown {
  return typeof s === 'string' ? {$ref: `#/components/schemas/${s}`} : clean(s)
}

/**
 * The document for the route table, plus `extraPaths`: path items of endpoints served outside it
 * (OAuth), described by their own modules.
 */
export function buildOpenApi(
  routes: RouteDef[],
  info: {version: string; serverUrl: string},
  extraPaths: Record<string, Record<string, unknown>> = {},
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z_]+)/g, '{$1}')
    const parameters: unknown[] = []
    for (const [where, schema] of [
      ['path', r.params],
      ['query', r.query],
    ] as const) {
      if (!schema) continue
      const props = (schema as {properties?: Record<string, TSchema>}).properties ?? {}
      const required = new Set((schema as {required?: string[]}).required ?? [])
      for (const [name, s] of Object.entries(props)) {
        parameters.push({
          name,
          in: where,
          required: where === 'path' || required.has(name),
          schema: clean(s),
          ...(s.description ? {description: s.description} : {}),
        })
      }
    }
    const idempotent = honoursIdempotencyKey(r)
    if (idempotent) parameters.push({$ref: '#/components/parameters/IdempotencyKey'})
    const responses: Record<string, unknown> = {}
    for (const [status, doc] of Object.entries(idempotent ? withIdempotency(r.responses) : r.responses)) {
      const res: Record<string, unknown> = {description: doc.description}
      if (doc.schema) res.content = {[doc.contentType ?? 'application/json']: {schema: schemaOrRef(doc.schema)}}
      if (doc.headers) res.headers = Object.fromEntries(doc.headers.map((h) => [h, {schema: {type: 'string'}}]))
      responses[status] = res
    }
    const op: Record<string, unknown> = {operationId: r.operationId, summary: r.summary, tags: r.tags, responses}
    if (r.description) op.description = r.description
    if (parameters.length > 0) op.parameters = parameters
    if (r.body) op.requestBody = {required: !r.bodyOptional, content: {'application/json': {schema: clean(r.body)}}}
    op.security = r.auth ? [{bearer: []}] : []
    paths[path] ??= {}
    paths[path][r.method.toLowerCase()] = op
  }
  for (const [path, item] of Object.entries(extraPaths)) paths[path] = {...paths[path], ...item}
  return {
    openapi: '3.1.0',
    info: {
      title: 'kb knowledge API',
      version: info.version,
      description: 'Knowledge entries for developers and their coding agents. Errors are RFC 9457 problem+json with a stable `code`.',
    },
    servers: [{url: info.serverUrl}],
    security: [{bearer: []}],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(COMPONENTS).map(([k, v]) => [k, clean(v)])),
      parameters: {IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER},
      securitySchemes: {bearer: {type: 'http', scheme: 'bearer', description: 'An API key (kb_…) or an OAuth access token'}},
    },
  }
}
