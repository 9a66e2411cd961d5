/**
 * @module /openapi.json: a valid OpenAPI 3.1 document that lists every route `buildApp` registers, whose
 * request schemas are the very ones the daemon validates with — checked both structurally (the document's
 * schema equals the route's) and by behaviour (a sample the document rejects is rejected by the daemon,
 * and one it accepts is not).
 */
import {oauthOpenApiPaths} from '../../server/oauth/openapi-paths.js'
import {mcpOpenApiPaths} from '../../server/routes/mcp.js'
import {Validator} from '@seriousme/openapi-schema-validator'
import {Ajv} from 'ajv'
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildApp, type KbApp} from '../../server/app.js'
import {openSqliteStore} from '../../server/store/sqlite.js'
import {tempDir} from '../helpers/daemon.js'
import {MISSING_ID} from './endpoints/support.js'

let dir: string
let kb: KbApp
let base: string
let ownerKey: string
let doc: any

type Operation = {
  operationId: string
  parameters?: any[]
  requestBody?: any
  responses: Record<string, any>
  security?: unknown[]
  tags?: string[]
}

beforeAll(async () => {
  dir = tempDir('kb-openapi-')
  const store = openSqliteStore({path: join(dir, 'kb.sqlite')})
  kb = await buildApp({store, version: '9.9.9-test', logLevel: 'silent'})
  kb.app.addHook('onClose', async () => store.close())
  ownerKey = (await kb.services.apiKeys.bootstrapOwner())!
  await kb.app.listen({host: '127.0.0.1', port: 0})
  const address = kb.app.server.address()
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1`
  const res = await fetch(`${base}/openapi.json`)
  expect(res.status).toBe(200)
  doc = await res.json()
})
afterAll(async () => {
  await kb.app.close()
  rmSync(dir, {recursive: true, force: true})
})

function operations(): Array<{path: string; method: string; op: Operation}> {
  const out: Array<{path: string; method: string; op: Operation}> = []
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    for (const [method, op] of Object.entries(item)) out.push({path, method: method.toUpperCase(), op})
  }
  return out
}

const openApiPath = (fastifyPath: string): string => fastifyPath.replace(/:([A-Za-z_]+)/g, '{$1}')
/** A TypeBox schema as plain JSON (its symbol keys dropped), as it travels in a document. */
const json = (s: unknown): unknown => JSON.parse(JSON.stringify(s))

async function call(method: string, path: string, init: {body?: unknown; query?: Record<string, string>} = {}): Promise<number> {
  const u = new URL(base + path)
  for (const [k, v] of Object.entries(init.query ?? {})) u.searchParams.set(k, v)
  const headers: Record<string, string> = {authorization: `Bearer ${ownerKey}`}
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(u, {method, headers, ...(init.body !== undefined ? {body: JSON.stringify(init.body)} : {})})
  await res.arrayBuffer()
  return res.status
}

describe('the document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.info).toMatchObject({title: expect.any(String), version: '9.9.9-test'})
    const validator = new Validator()
    const result = await validator.validate(doc)
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  it('lists every route buildApp registers, and nothing else', () => {
    const fromRoutes = kb.routes.map((r) => `${r.method} ${openApiPath(r.path)}`).sort()
    const oauth = new Set(
      Object.entries({...oauthOpenApiPaths(), ...mcpOpenApiPaths()}).flatMap(([p, item]) =>
        Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`),
      ),
    )
    const fromDoc = operations()
      .map((o) => `${o.method} ${o.path}`)
      .filter((o) => !oauth.has(o))
      .sort()
    expect(fromDoc).toEqual(fromRoutes)
    expect(new Set(fromRoutes).size).toBe(fromRoutes.length)
    // And every one of them is really served.
    for (const r of kb.routes) expect(kb.app.hasRoute({method: r.method, url: `/api/v1${r.path}`}), `${r.method} ${r.path}`).toBe(true)
    // The endpoints of docs/api.md this app serves through its route table (OAuth has its own scope).
    for (const required of [
      'POST /knowledge',
      'GET /knowledge',
      'GET /knowledge/{id}',
      'PATCH /knowledge/{id}',
      'DELETE /knowledge/{id}',
      'GET /search',
      'POST /knowledge/{id}/resolve',
      'POST /knowledge/{id}/comments',
      'POST /knowledge/{id}/publish',
      'POST /knowledge/{id}/fork',
      'POST /projects/join',
      'GET /projects',
      'POST /api-keys',
      'GET /api-keys',
      'DELETE /api-keys',
      'GET /health',
      'GET /openapi.json',
    ])
      expect(fromDoc).toContain(required)
    // MCP is served by its transport, outside the route table, and documented all the same.
    expect(operations().map((o) => `${o.method} ${o.path}`)).toContain('POST /mcp')
    expect(kb.app.hasRoute({method: 'POST', url: '/api/v1/mcp'})).toBe(true)
  })

  it('describes the OAuth endpoints of the spec, each of which is really served', () => {
    for (const [path, item] of Object.entries(oauthOpenApiPaths())) {
      expect(doc.paths[path], path).toBeDefined()
      for (const method of Object.keys(item))
        expect(kb.app.hasRoute({method: method.toUpperCase(), url: `/api/v1${path}`}), `${method} ${path}`).toBe(true)
    }
    for (const required of [
      'POST /oauth/register',
      'GET /oauth/authorize',
      'POST /oauth/token',
      'GET /.well-known/oauth-protected-resource',
      'GET /.well-known/oauth-authorization-server',
    ]) {
      const [method, path] = required.split(' ')
      expect(doc.paths[path!]?.[method!.toLowerCase()], required).toBeDefined()
    }
  })

  it('documents each operation fully: unique ids, path parameters, success and error responses, security', () => {
    const ids = operations().map((o) => o.op.operationId)
    expect(new Set(ids).size).toBe(ids.length)
    for (const {path, method, op} of operations().filter((o) => !o.op.tags?.some((t) => t === 'oauth' || t === 'mcp'))) {
      const route = kb.routes.find((r) => r.method === method && openApiPath(r.path) === path)!
      const where = `${method} ${path}`
      expect(op.operationId, where).toBe(route.operationId)
      for (const name of [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
        expect(
          op.parameters?.find((p) => p.in === 'path' && p.name === name),
          `${where} documents {${name}}`,
        ).toMatchObject({required: true})
      }
      const statuses = Object.keys(op.responses)
      expect(
        statuses.some((s) => s.startsWith('2')),
        where,
      ).toBe(true)
      if (route.auth) {
        expect(op.security, where).toEqual([{bearer: []}])
        expect(statuses, where).toContain('401')
      } else {
        expect(op.security, where).toEqual([])
      }
      for (const [status, res] of Object.entries(op.responses)) {
        if (status.startsWith('4')) expect(Object.keys(res.content ?? {}), `${where} ${status}`).toEqual(['application/problem+json'])
      }
      if (route.body) expect(op.requestBody?.content?.['application/json']?.schema, where).toBeDefined()
    }
    expect(doc.components.securitySchemes.bearer).toMatchObject({type: 'http', scheme: 'bearer'})
  })

  it('resolves every $ref', () => {
    const refs = new Set<string>()
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk)
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string') refs.add(x)
          else walk(x)
        }
      }
    }
    walk(doc)
    expect(refs.size).toBeGreaterThan(0)
    for (const ref of refs) {
      expect(ref.startsWith('#/')).toBe(true)
      const target = ref
        .slice(2)
        .split('/')
        .reduce<any>((o, k) => o?.[k], doc)
      expect(target, ref).toBeDefined()
    }
  })
})

describe('request schemas are the ones the daemon validates with', () => {
  it("each body and query schema in the document equals the route definition's", () => {
    for (const r of kb.routes) {
      const op = doc.paths[openApiPath(r.path)][r.method.toLowerCase()] as Operation
      if (r.body) {
        expect(op.requestBody.content['application/json'].schema, r.operationId).toEqual(json(r.body))
        expect(op.requestBody.required, r.operationId).toBe(!r.bodyOptional)
      } else {
        expect(op.requestBody, r.operationId).toBeUndefined()
      }
      for (const [where, schema] of [
        ['query', r.query],
        ['path', r.params],
      ] as const) {
        const props = json(schema ?? {}) as {properties?: Record<string, unknown>; required?: string[]}
        const documented = (op.parameters ?? []).filter((p) => p.in === where)
        expect(documented.map((p) => p.name).sort(), `${r.operationId} ${where}`).toEqual(Object.keys(props.properties ?? {}).sort())
        for (const p of documented) {
          expect(p.schema, `${r.operationId} ${where} ${p.name}`).toEqual(props.properties![p.name])
          expect(p.required, `${r.operationId} ${where} ${p.name}`).toBe(where === 'path' || (props.required ?? []).includes(p.name))
        }
      }
    }
  })

  // Samples chosen so that a body the schema accepts also passes the service's own rules: then "the
  // document accepts it" and "the daemon does not answer 422" must agree exactly.
  const bodySamples: Record<string, {path: () => string; samples: unknown[]}> = {}
  let entryId = ''
  let otherId = ''
  beforeAll(async () => {
    const res = await fetch(`${base}/knowledge`, {
      method: 'POST',
      headers: {authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json'},
      body: JSON.stringify({title: 'Schema target', body: 'b', scope: 'private'}),
    })
    entryId = ((await res.json()) as {id: string}).id
    // A second entry, merged into the first by the merge samples (the first stands).
    const other = await fetch(`${base}/knowledge`, {
      method: 'POST',
      headers: {authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json'},
      body: JSON.stringify({title: 'Merge source', body: 'm', scope: 'private'}),
    })
    otherId = ((await other.json()) as {id: string}).id
    const joined = await fetch(`${base}/projects/join`, {
      method: 'POST',
      headers: {authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json'},
      body: JSON.stringify({remote: 'https://github.com/acme/schema-settings'}),
    })
    projectId = ((await joined.json()) as {project: {id: string}}).project.id
  })
  let projectId = ''
  const id = (): string => entryId
  Object.assign(bodySamples, {
    createEntry: {
      path: () => '/knowledge',
      samples: [
        {title: 't', body: 'b'},
        {title: 't', body: 'b', tags: ['A.b', 'c-d'], url: null, thought_chain: [{thought: 'x', step: 9}]},
        {title: 't', body: 'b', scope: 'global', project_id: null},
        {
          title: 't',
          body: 'b',
          anchors: [
            {path: 'src/a.ts', lines: '3-9'},
            {path: 'src/b.ts', symbol: 'main', commit: 'abcdef1', hash: null},
          ],
        },
        {title: 't', body: 'b', anchors: [{path: '../x.ts'}]},
        {title: 't', body: 'b', anchors: [{path: 'a.ts', lines: '0-1'}]},
        {},
        {title: 't'},
        {title: 1, body: 'b'},
        {title: 't', body: 'b', extra: 1},
        {title: 't', body: 'b', tags: ['a b']},
        {title: 't', body: 'b', scope: 'team'},
        {title: 't', body: 'b', project_id: 'x'},
        {title: 't', body: 'b', thought_chain: [{thought: 'x', kind: 'bad'}]},
        {title: '', body: 'b'},
        {title: 't', body: 'b', tags: 'a'},
        [],
        'text',
      ],
    },
    updateEntry: {
      path: () => `/knowledge/${id()}`,
      samples: [
        {title: 'new'},
        {status: 'open'},
        {tags: []},
        {scope: 'global'},
        {status: 'done'},
        {url: 5},
        {title: ''},
        {thought_chain: {}},
        {anchors: [{path: 'src/a.ts', lines: '1-2'}]},
        {anchors: [{path: '/abs.ts'}]},
      ],
    },
    verifyEntry: {
      path: () => `/knowledge/${id()}/verify`,
      samples: [{}, {note: 'still holds'}, {anchors: [{path: 'src/a.ts', lines: '1-2', hash: 'a'.repeat(64)}]}, {note: 1}, {by: 'me'}],
    },
    flagEntry: {
      path: () => `/knowledge/${id()}/flags`,
      samples: [{reason: 'stale'}, {reason: 'incorrect', note: 'wrong port'}, {}, {reason: 'wrong'}, {reason: 'stale', x: 1}],
    },
    checkAnchors: {
      path: () => `/knowledge/${id()}/anchors/check`,
      samples: [
        {commit: 'abcdef1', results: [{path: 'src/a.ts', lines: '1-2', state: 'changed'}]},
        {commit: 'abcdef1', results: [{path: 'src/z.ts', state: 'moved', moved_to: {path: 'src/y.ts'}}]},
        {commit: 'abcdef1', results: []},
        {commit: 'XYZ', results: [{path: 'a', state: 'current'}]},
        {commit: 'abcdef1', results: [{path: 'a', state: 'unknown'}]},
      ],
    },
    recall: {
      path: () => '/recalls',
      samples: [
        {prompt: 'why is the pool exhausted?'},
        {prompt: 'p', max_tokens: 50, client: 'c', session: 's'},
        {},
        {prompt: ''},
        {prompt: 'p', max_tokens: 49},
      ],
    },
    approveJoinRequest: {path: () => `/projects/${MISSING_ID}/requests/${MISSING_ID}/approve`, samples: [{}, {x: 1}]},
    denyJoinRequest: {path: () => `/projects/${MISSING_ID}/requests/${MISSING_ID}/deny`, samples: [{}, {reason: 'no'}]},
    invite: {
      path: () => `/projects/${MISSING_ID}/invitations`,
      samples: [{principal: 'bob'}, {link: true}, {}, {link: false}, {principal: 'bob', link: true}, {principal: 'no spaces'}],
    },
    setMemberRole: {path: () => `/projects/${MISSING_ID}/members/${MISSING_ID}`, samples: [{role: 'maintainer'}, {role: 'owner'}, {}]},
    leaveProject: {path: () => `/projects/${MISSING_ID}/leave`, samples: [{}, {project_id: MISSING_ID}]},
    updateProject: {
      path: () => `/projects/${projectId}`,
      samples: [{verify_after_days: 30}, {}, {verify_after_days: -1}, {verify_after_days: 3651}, {name: 'x'}],
    },
    addComment: {
      path: () => `/knowledge/${id()}/comments`,
      samples: [{body: 'c'}, {body: 'c', type: 'question'}, {}, {body: ''}, {body: 'c', type: 'x'}, {body: 'c', id: MISSING_ID}],
    },
    resolveEntry: {
      path: () => `/knowledge/${id()}/resolve`,
      samples: [{note: null}, {note: 'n', url: 'https://e.x/'}, {note: 1}, {when: 'now'}],
    },
    publishEntry: {
      path: () => `/knowledge/${id()}/publish`,
      samples: [{}, {scope: 'global'}, {scope: 'all'}, {scope: null}, {project: 'x'}],
    },
    supersedeEntry: {
      path: () => `/knowledge/${id()}/supersede`,
      samples: [{by: null}, {by: null, note: 'stands again'}, {}, {by: 'x'}, {by: null, note: ''}, {by: null, why: 1}],
    },
    mergeEntry: {
      path: () => `/knowledge/${otherId}/merge`,
      samples: [() => ({into: entryId}), {}, {into: 'x'}, () => ({into: entryId, extra: 1})],
    },
    dismissSimilar: {
      path: () => `/knowledge/${otherId}/similar/dismiss`,
      samples: [() => ({other: entryId}), {}, {other: 'x'}, () => ({other: entryId, extra: 1})],
    },
    forkEntry: {
      path: () => `/knowledge/${id()}/fork`,
      samples: [{}, {title: 'f', scope: 'private', project_id: null}, {title: ''}, {project_id: 'x'}, {forked_from: MISSING_ID}],
    },
    createWebLink: {path: () => '/web/links', samples: [{}, {next: '/search'}, {next: '//evil.example'}, {next: ''}, {url: '/'}]},
    joinProject: {
      path: () => '/projects/join',
      samples: [
        {remote: 'https://github.com/a/b'},
        {remote: 'git@github.com:a/c.git', name: 'c'},
        {},
        {remote: 5},
        {remote: 'x', name: ''},
        {remote: 'https://github.com/a/b', x: 1},
      ],
    },
    createApiKey: {
      path: () => '/api-keys',
      samples: [
        {name: 'k'},
        {expires_in_days: 3650},
        {expires_in_days: null},
        {expires_in_days: 0},
        {principal: 'no spaces please'},
        {name: 5},
        {prefix: 'kb_'},
      ],
    },
    revokeApiKey: {path: () => '/api-keys', samples: [{id: MISSING_ID}, {id: 'abc'}, {id: MISSING_ID, x: 1}, {id: 5}]},
  })

  it('a body the document rejects is a 422, and one it accepts is not', async () => {
    const ajv = new Ajv({allErrors: true, strict: false, coerceTypes: false})
    const covered = new Set<string>()
    for (const r of kb.routes.filter((x) => x.body)) {
      const table = bodySamples[r.operationId]
      expect(table, `samples for ${r.operationId}`).toBeDefined()
      covered.add(r.operationId)
      const validate = ajv.compile(doc.paths[openApiPath(r.path)][r.method.toLowerCase()].requestBody.content['application/json'].schema)
      let accepted = 0
      let rejected = 0
      for (const raw of table!.samples) {
        // A function builds a sample naming entries made in beforeAll.
        const sample = typeof raw === 'function' ? (raw as () => unknown)() : raw
        const docSays = validate(structuredClone(sample))
        const status = await call(r.method, table!.path(), {body: sample})
        expect(
          status === 422,
          `${r.operationId} ${JSON.stringify(sample)}: document says ${docSays ? 'valid' : 'invalid'}, daemon answered ${status}`,
        ).toBe(!docSays)
        if (docSays) accepted++
        else rejected++
      }
      expect(accepted, r.operationId).toBeGreaterThan(0)
      expect(rejected, r.operationId).toBeGreaterThan(0)
    }
    expect(covered.size).toBe(Object.keys(bodySamples).length)
  })

  it('query parameters the document rejects are a 400, and ones it accepts are not', async () => {
    const ajv = new Ajv({allErrors: true, strict: false, coerceTypes: true})
    const cases: Array<[string, string, Array<Record<string, string>>]> = [
      [
        'listEntries',
        '/knowledge',
        [
          {},
          {limit: '100'},
          {limit: '0'},
          {limit: 'abc'},
          {limit: '1.5'},
          {detail: 'full'},
          {detail: 'all'},
          {scope: 'global'},
          {scope: 'x'},
          {project_id: MISSING_ID},
          {project_id: 'x'},
          {status: 'open'},
          {status: 'x'},
        ],
      ],
      [
        'search',
        '/search',
        [
          {q: 'x'},
          {},
          {q: ''},
          {q: 'a'.repeat(500)},
          {q: 'a'.repeat(501)},
          {q: 'x', explain: 'true'},
          {q: 'x', explain: 'maybe'},
          {q: 'x', max_tokens: '50'},
          {q: 'x', max_tokens: '0'},
          {q: 'x', limit: '101'},
        ],
      ],
      ['getEntry', `/knowledge/${MISSING_ID}`, [{detail: 'summary'}, {detail: 'SUMMARY'}]],
      ['listProjects', '/projects', [{limit: '10'}, {limit: '-3'}]],
    ]
    for (const [operationId, path, samples] of cases) {
      const {op} = operations().find((o) => o.op.operationId === operationId)!
      const query = (op.parameters ?? []).filter((p) => p.in === 'query')
      const schema = {
        type: 'object',
        properties: Object.fromEntries(query.map((p) => [p.name, p.schema])),
        required: query.filter((p) => p.required).map((p) => p.name),
      }
      const validate = ajv.compile(schema)
      for (const sample of samples) {
        const docSays = validate({...sample})
        const status = await call('GET', path, {query: sample})
        expect(status === 400, `${operationId} ${JSON.stringify(sample).slice(0, 80)}: document ${docSays}, daemon ${status}`).toBe(
          !docSays,
        )
      }
    }
  })

  it('path ids the document rejects are a 400', async () => {
    const {op} = operations().find((o) => o.op.operationId === 'getEntry')!
    const validate = new Ajv({strict: false}).compile(op.parameters!.find((p) => p.in === 'path' && p.name === 'id').schema)
    for (const idValue of [MISSING_ID, MISSING_ID.toUpperCase(), 'abc', `${MISSING_ID}x`]) {
      const status = await call('GET', `/knowledge/${idValue}`)
      expect(status === 400, idValue).toBe(!validate(idValue))
    }
  })
})
