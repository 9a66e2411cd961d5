/**
 * The MCP tools' arguments follow the API's own contract: every argument that is an API field accepts
 * exactly the values the API's schema accepts (probed at and around each bound, pattern and enum), except
 * where a tool deliberately narrows it. A limit written into a tool by hand shows up here as a difference.
 */
import {Type, type TSchema} from '@sinclair/typebox'
import {describe, expect, it} from 'vitest'
import {DETAILS, TITLE_MAX} from '../../src/shared/contract.js'
import {TOOLS} from '../../src/shared/mcp/tools.js'
import {
  CommentBody,
  CreateEntryBody,
  DetailSchema,
  FlagBody,
  ForkBody,
  JoinProjectBody,
  PatchEntryBody,
  PublishBody,
  ResolveBody,
  SearchQuery,
  SupersedeBody,
  Uuid,
  VerifyBody,
} from '../../src/shared/schemas.js'
import {createValidator} from '../../src/shared/validator.js'
import {ReviewQuery} from '../../src/shared/curation-schemas.js'
import {IdRefParams} from '../../src/shared/id-schemas.js'

/** The API request each tool sends, and the argument names that differ from its fields. */
const SOURCES: Record<string, {fields: Record<string, TSchema>; renamed?: Record<string, string>}> = {
  search_knowledge: {fields: SearchQuery.properties, renamed: {query: 'q'}},
  get_knowledge: {fields: {}},
  add_knowledge: {fields: CreateEntryBody.properties},
  update_knowledge: {fields: PatchEntryBody.properties},
  comment_on_knowledge: {fields: CommentBody.properties},
  resolve_knowledge: {fields: ResolveBody.properties},
  verify_knowledge: {fields: VerifyBody.properties},
  flag_knowledge: {fields: FlagBody.properties},
  supersede_knowledge: {fields: SupersedeBody.properties},
  publish_knowledge: {fields: PublishBody.properties},
  fork_knowledge: {fields: ForkBody.properties},
  join_project: {fields: JoinProjectBody.properties},
  review_queue: {fields: ReviewQuery.properties},
}
/**
 * Arguments every tool shares: the entry, which a tool takes as `GET /ids/{ref}` does (a whole id or a short one,
 * docs/mcp.md "Short ids"), and the detail level of the answer.
 */
const COMMON: Record<string, TSchema> = {id: IdRefParams.properties.ref, detail: DetailSchema}

/**
 * Body fields naming an entry, which a tool takes as a short id too and reads with `GET /ids/{ref}` before it sends
 * the body (the API's body keeps whole ids). supersede_knowledge.by offers no null: a curator undoes a supersede
 * with kb supersede --undo.
 */
const AS_SHORT_ID: Record<string, TSchema> = {
  'supersede_knowledge.by': IdRefParams.properties.ref,
  'flag_knowledge.duplicate_of': Type.Union([IdRefParams.properties.ref, Type.Null()]),
}

/** Arguments of a tool's own that are no API field, each with its reason. */
const OWN: Record<string, string> = {
  'flag_knowledge.withdraw': 'chooses DELETE /knowledge/:id/flags/mine instead of POST /knowledge/:id/flags',
}

/** Deliberate differences, each with its reason. */
const NARROWED: Record<string, string> = {
  'search_knowledge.max_tokens': 'a tool answer needs room for at least one hit and the status line',
  'add_knowledge.title': `agents are told the real bound (${TITLE_MAX} after trimming), not the padded one`,
  'update_knowledge.title': 'as add_knowledge.title',
  'fork_knowledge.title': 'as add_knowledge.title',
  'add_knowledge.thought_chain': "the API's ignored `step` is not offered",
  'update_knowledge.thought_chain': 'as add_knowledge.thought_chain',
  // The API's null means "no project"; a tool's absent project_id means "the default project".
  'add_knowledge.project_id': 'null is not offered: it would read as "the default project"',
}

const UUID = '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980'

/** Values at and around every bound, pattern and enum of the schemas, plus values of each JSON type. */
function probes(...schemas: unknown[]): unknown[] {
  const out: unknown[] = [
    null,
    true,
    0,
    -1,
    1.5,
    '',
    'x',
    {},
    [],
    UUID,
    UUID.toUpperCase(),
    'not-a-uuid',
    'sqlite',
    'no spaces',
    ...DETAILS,
  ]
  const walk = (s: unknown): void => {
    if (Array.isArray(s)) return s.forEach(walk)
    if (s === null || typeof s !== 'object') return
    const o = s as Record<string, unknown>
    const around = (n: unknown): number[] => (typeof n === 'number' ? [n - 1, n, n + 1] : [])
    for (const n of [...around(o.minLength), ...around(o.maxLength)]) out.push('a'.repeat(Math.max(0, n)))
    out.push(...around(o.minimum), ...around(o.maximum))
    if (typeof o.maxItems === 'number') out.push(Array(o.maxItems).fill('a'), Array(o.maxItems + 1).fill('a'))
    for (const v of [o.const, ...(Array.isArray(o.enum) ? o.enum : [])]) if (typeof v === 'string') out.push(v, `${v}x`)
    Object.values(o).forEach(walk)
  }
  schemas.forEach(walk)
  out.push(['sqlite'], ['no spaces'], [{thought: 'x'}], [{thought: 'x', kind: 'hypothesis'}], [{thought: 'x', kind: 'guess'}])
  out.push([{thought: ''}], [{thought: 'x', step: 1}])
  return out
}

describe('MCP tool arguments', () => {
  const ajv = createValidator('json')
  const one = (schema: unknown) => ajv.compile({type: 'object', properties: {v: schema}, required: ['v']})

  it('accept exactly what the API accepts for the same field, but where a tool says why not', () => {
    let compared = 0
    for (const tool of TOOLS) {
      const source = SOURCES[tool.name]!
      const props = (tool.inputSchema as {properties: Record<string, unknown>}).properties
      for (const [arg, schema] of Object.entries(props)) {
        const key = `${tool.name}.${arg}`
        if (key in OWN) continue
        const api =
          AS_SHORT_ID[key] ?? source.fields[source.renamed?.[arg] ?? arg] ?? COMMON[arg] ?? (arg === 'project_id' ? Uuid : undefined)
        expect(api, `${key} has no API field`).toBeDefined()
        const apiSchema: unknown = JSON.parse(JSON.stringify(api))
        const [mine, theirs] = [one(schema), one(apiSchema)]
        const differing = probes(schema, apiSchema).filter((v) => mine({v: structuredClone(v)}) !== theirs({v: structuredClone(v)}))
        if (key in NARROWED) {
          expect(differing.length, `${key} is listed as narrowed but is not`).toBeGreaterThan(0)
          expect(
            differing.every((v) => !mine({v: structuredClone(v)})),
            `${key} accepts what the API refuses`,
          ).toBe(true)
        } else {
          expect(differing, key).toEqual([])
        }
        compared++
      }
    }
    expect(compared).toBeGreaterThan(45)
  })

  it('show enums as enum and name their defaults', () => {
    const search = TOOLS.find((t) => t.name === 'search_knowledge')!.inputSchema as {properties: Record<string, Record<string, unknown>>}
    expect(search.properties.detail).toMatchObject({type: 'string', enum: [...DETAILS], default: 'summary'})
    expect(search.properties.scope!.enum).toEqual(['private', 'project', 'global'])
  })
})
