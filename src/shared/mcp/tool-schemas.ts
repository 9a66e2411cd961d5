/**
 * @module The MCP tools' schemas. A tool's input is the API's request schema (src/shared/schemas.ts) picked
 * field by field, with descriptions written for agents: no pattern, limit or enum is written here. `toolInput`
 * turns it into the plain JSON Schema that tools/list shows and arguments are checked against.
 */
import {Type, type TOptional, type TProperties, type TSchema} from '@sinclair/typebox'
import {ANCHOR_STATES, FRESHNESS_STATES, SCOPES, STATUSES, SUMMARY_TOKEN_BUDGET} from '../contract.js'
import {CreateEntryBody, DetailSchema, Uuid} from '../schemas.js'
import type {Detail} from '../types.js'
import {IdRefSchema} from '../id-schemas.js'

export type JsonSchema = Record<string, unknown>

/** `schema` with the tool's own description, and any keyword the tool adds (a default, a tighter bound). */
export function described<T extends TSchema>(schema: T, description: string, extra: JsonSchema = {}): T {
  return {...schema, description, ...extra}
}

/** The arguments of a tool: these properties and no others (optional ones are `Type.Optional`). */
export function toolInput(properties: TProperties): JsonSchema {
  return toJson(Type.Object(properties, {additionalProperties: false})) as JsonSchema
}

/**
 * A TypeBox schema as plain JSON Schema in the shape MCP clients handle best: symbol keys dropped, a union of
 * string constants as `enum`, and "this or null" as a type list. Both rewrites accept exactly the same values.
 */
function toJson(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJson)
  if (schema === null || typeof schema !== 'object') return schema
  const {anyOf, ...rest} = schema as {anyOf?: Array<Record<string, unknown>>} & JsonSchema
  const plain = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, toJson(v)]))
  if (!anyOf) return plain
  if (anyOf.every((b) => typeof b.const === 'string')) return {type: 'string', enum: anyOf.map((b) => b.const), ...plain}
  const [value, orNull] = anyOf
  if (anyOf.length === 2 && orNull?.type === 'null' && typeof value?.type === 'string' && !('const' in value)) {
    return {...(toJson(value) as JsonSchema), type: [value.type, 'null'], ...plain}
  }
  return {anyOf: toJson(anyOf), ...plain}
}

// ---- fields several tools share ----

export const entryId = described(
  IdRefSchema,
  'The entry id (a UUID, as returned by search_knowledge or add_knowledge), or at least 4 characters of its start or end',
)
export const projectId = Type.Optional(
  described(Uuid, 'A project id (from join_project); default: the project of the working directory or of the credential'),
)

export function detail(dflt: Detail, what: string): TOptional<typeof DetailSchema> {
  const levels =
    `summary (id, title, short body, status, fresh or stale; ≤ ${SUMMARY_TOKEN_BUDGET} tokens), ` +
    'standard (whole body, tags, scope, url, why it is stale, anchors, …; ≈ 500), ' +
    'full (+ comments, thought chain, forks, resolution; ≈ 2,000)'
  return Type.Optional(described(DetailSchema, `${what}: ${levels}. Default ${dflt}.`, {default: dflt}))
}

const entryFields = CreateEntryBody.properties
const chain = entryFields.thought_chain
/** The API's thought chain without `step`, which the API ignores on input (steps are numbered in order). */
const thoughtSteps = {...chain, items: Type.Omit(chain.items, ['step'])}
export const thoughtChain = Type.Optional(
  described(
    thoughtSteps,
    'Your reasoning, in order: what you observed, suspected, tried and concluded. Record it so the next agent can follow it.',
  ),
)
export const tags = described(entryFields.tags, 'Short keywords (letters, digits, . _ -), e.g. ["sqlite", "ci"]')
export const sourceUrl = described(entryFields.url, 'A source: issue, commit, pull request or doc (absolute http(s) URL)')
/** Anchors as the API takes them; an agent names the files it touched, the CLI (`kb check`) does the hashing. */
export const anchors = described(
  entryFields.anchors,
  'The code this is about — the files you touched — e.g. [{"path": "src/db/pool.ts", "lines": "40-62"}] or ' +
    '[{"path": "src/db/pool.ts", "symbol": "acquire"}], paths relative to the repository root. kb marks the entry stale when that code changes.',
)
/** The two ways past a sensitive_content refusal (docs/mcp.md, "Safe publish"), as the API takes them. */
export const sensitiveChoice = {
  redact: described(
    entryFields.redact,
    'After a sensitive_content refusal: true replaces the findings it listed with [REDACTED:<kind>] and goes ahead',
  ),
  acknowledge: described(
    entryFields.acknowledge,
    'After a sensitive_content refusal, only for findings meant to be shared: their ids, to go ahead with them as written (recorded on the entry)',
  ),
}

// ---- outputs (what structuredContent holds; loose, since the level decides which fields are present) ----

const scope = {type: 'string', enum: SCOPES}
const status = {type: 'string', enum: STATUSES}
export const author = {type: 'object', properties: {id: {type: 'string'}, name: {type: 'string'}}, required: ['id', 'name']}
const nullableString = {type: ['string', 'null']}
export const entryOut: JsonSchema = {
  type: 'object',
  description: 'A knowledge entry; the fields present depend on the detail level',
  required: ['id', 'title', 'body', 'status'],
  properties: {
    id: {type: 'string'},
    title: {type: 'string'},
    body: {type: 'string'},
    status,
    score: {type: 'number'},
    tags: {type: 'array', items: {type: 'string'}},
    scope,
    url: nullableString,
    project_id: nullableString,
    author,
    forked_from: nullableString,
    created_at: {type: 'string'},
    updated_at: {type: 'string'},
    version: {type: 'integer'},
    comment_count: {type: 'integer'},
    comments: {type: 'array', items: {type: 'object'}},
    thought_chain: {type: 'array', items: {type: 'object'}},
    branches: {type: 'array', items: {type: 'object'}},
    resolution: {type: ['object', 'null']},
    freshness: {
      description: 'fresh or stale: the word at summary, an object with the reasons at standard and full',
      anyOf: [
        {type: 'string', enum: FRESHNESS_STATES},
        {
          type: 'object',
          required: ['state', 'reasons'],
          properties: {state: {type: 'string', enum: FRESHNESS_STATES}, reasons: {type: 'array'}},
        },
      ],
    },
    anchors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'state'],
        properties: {path: {type: 'string'}, state: {type: 'string', enum: ANCHOR_STATES}},
      },
    },
    flags: {type: 'object', description: 'Open flags by reason'},
    confidence: {type: 'number'},
  },
}
export const entryAnswer: JsonSchema = {type: 'object', required: ['entry'], properties: {entry: entryOut}}

/** add_knowledge's answer: the entry and the similar entries the server found (docs/mcp.md, "Similar entries, supersede"). */
export const createdAnswer: JsonSchema = {
  type: 'object',
  required: ['entry', 'similar'],
  properties: {
    entry: entryOut,
    similar: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'title', 'similarity'],
        properties: {id: {type: 'string'}, title: {type: 'string'}, similarity: {type: 'number'}},
      },
    },
  },
}
