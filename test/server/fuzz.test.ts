/**
 * @module Fuzzing the daemon over real HTTP: generated JSON bodies (plausible and wild: deep nesting,
 * huge strings, unicode, wrong types, prototype-pollution keys), query strings (repeated parameters, odd
 * encodings), path ids, headers and methods against every endpoint the OpenAPI document lists, with and
 * without credentials. Whatever comes in, the answer is never a 5xx, every error is problem+json with a
 * `code`, and the daemon keeps answering.
 */
import {request as httpRequest, Agent} from 'node:http'
import {connect} from 'node:net'
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../helpers/daemon.js'

interface Raw {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

interface Operation {
  method: string
  /** OpenAPI path below /api/v1, `{id}` style. */
  path: string
  /** Body properties with a rough type, from the request schema. */
  bodyProps: Record<string, SchemaLike>
  bodyRequired: string[]
  queryParams: Record<string, SchemaLike>
  queryRequired: string[]
  /** OAuth endpoints answer in OAuth's own error shape, not problem+json (docs/oauth.md). */
  oauth: boolean
  /** A path from the host root rather than below /api/v1 (the well-known documents clients probe). */
  root?: boolean
}

interface SchemaLike {
  type?: string | string[]
  enum?: unknown[]
  anyOf?: SchemaLike[]
  const?: unknown
  items?: SchemaLike
  properties?: Record<string, SchemaLike>
  pattern?: string
  $ref?: string
  required?: string[]
  minimum?: number
  maximum?: number
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const
const agent = new Agent({keepAlive: false})

let d: TestDaemon
let origin: string
let prefix: string
let memberKey: string
let revokedKey: string
const entryIds: string[] = []
let projectId: string
const seen = {requests: 0, byStatus: new Map<number, number>()}

/** Sends exactly this request line, headers and body (node:http checks only that they are legal HTTP). */
function send(method: string, target: string, headers: Record<string, string>, body?: string | Buffer): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const u = new URL(origin)
    // node:http frames a GET or DELETE body only with an explicit Content-Length.
    if (body !== undefined) headers = {...headers, 'content-length': String(Buffer.byteLength(body))}
    const req = httpRequest({host: u.hostname, port: u.port, method, path: target, headers, agent}, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8')}))
      res.on('error', reject)
    })
    req.on('error', reject)
    if (body !== undefined) req.end(body)
    else req.end()
  })
}

/** Sends raw bytes on a fresh socket and returns what comes back, for requests node:http would refuse to form. */
function sendBytes(bytes: Buffer): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const u = new URL(origin)
    const sock = connect({host: u.hostname, port: Number(u.port)}, () => sock.end(bytes))
    const chunks: Buffer[] = []
    sock.on('data', (c: Buffer) => chunks.push(c))
    sock.on('error', reject)
    sock.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1')
      const [head = '', ...rest] = text.split('\r\n\r\n')
      const [statusLine = '', ...headerLines] = head.split('\r\n')
      const headers: Record<string, string> = {}
      for (const l of headerLines) {
        const i = l.indexOf(':')
        if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim()
      }
      resolve({status: Number(statusLine.split(' ')[1] ?? 0), headers, text: Buffer.from(rest.join('\r\n\r\n'), 'latin1').toString('utf8')})
    })
  })
}

/** The invariants of every answer. */
function check(label: string, method: string, res: Raw, oauth = false): void {
  seen.requests++
  seen.byStatus.set(res.status, (seen.byStatus.get(res.status) ?? 0) + 1)
  const ctx = `${label} → ${res.status} ${res.text.slice(0, 300)}`
  expect(res.status, ctx).toBeGreaterThanOrEqual(200)
  expect(res.status, ctx).toBeLessThan(500)
  if (res.status < 400 || method === 'HEAD') return
  const type = String(res.headers['content-type'] ?? '')
  if (oauth) {
    // OAuth's own error shapes: JSON {error}, or the consent page's HTML for a person to read.
    if (type.includes('json'))
      expect(JSON.parse(res.text), ctx).toHaveProperty(typeof JSON.parse(res.text).code === 'string' ? 'code' : 'error')
    return
  }
  expect(type, ctx).toMatch(/^application\/problem\+json/)
  const problem = JSON.parse(res.text) as {code?: unknown; status?: unknown; title?: unknown}
  expect(typeof problem.code, ctx).toBe('string')
  expect(problem.status, ctx).toBe(res.status)
  expect(typeof problem.title, ctx).toBe('string')
  expect(res.text, ctx).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/) // no stack traces
}

async function healthy(): Promise<void> {
  const res = await send('GET', `${prefix}/health`, {})
  expect(res.status).toBe(200)
  expect(JSON.parse(res.text).status).toBe('ok')
}

// ---- generators ----

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']
const nastyString = fc.oneof(
  fc.string({maxLength: 40}),
  fc.string({unit: 'grapheme', maxLength: 40}),
  fc.string({unit: 'binary', maxLength: 40}),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    '\udfff',
    '\u202e',
    '﻿',
    '<script>alert(1)</script>',
    "'; DROP TABLE entries; --",
    '../../etc/passwd',
    '%00',
    '${7*7}',
    '{{7*7}}',
    '<|endoftext|>',
    'NaN',
    '-0',
    '1e309',
    'null',
    'true',
    '[]',
    '{}',
    ...PROTO_KEYS,
    'a'.repeat(5000),
    '😀'.repeat(3000),
    'kb_' + 'A'.repeat(43),
    '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980',
    'https://example.com/x',
    'javascript:alert(1)',
    'private',
    'project',
    'global',
    'open',
    'resolved',
  ),
)
const wildValue: fc.Arbitrary<unknown> = fc.letrec<{v: unknown}>((tie) => ({
  v: fc.oneof(
    {depthSize: 'small', withCrossShrink: true},
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(0, -1, 2 ** 53, -(2 ** 63), 1e308, 3.14, 101, 1_000_000),
    nastyString,
    fc.array(tie('v'), {maxLength: 5}),
    fc.dictionary(fc.oneof(fc.string({maxLength: 10}), fc.constantFrom(...PROTO_KEYS)), tie('v'), {maxKeys: 5}),
  ),
})).v

/** A value of roughly the schema's type, to get past the first validation layer and reach the handlers. */
function plausible(schema: SchemaLike | undefined, name: string): fc.Arbitrary<unknown> {
  if (!schema) return wildValue
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => plausible(s, name)))
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  switch (type) {
    case 'string':
      if (/id$/.test(name))
        return fc.oneof(
          {weight: 4, arbitrary: fc.constantFrom(projectId, entryIds[0]!)},
          {weight: 1, arbitrary: fc.uuid()},
          {weight: 1, arbitrary: nastyString},
        )
      if (name === 'url') return fc.oneof({weight: 4, arbitrary: fc.webUrl()}, {weight: 1, arbitrary: nastyString})
      if (name === 'remote')
        return fc.oneof(
          {weight: 2, arbitrary: fc.webUrl()},
          {weight: 2, arbitrary: fc.constant('git@github.com:acme/api.git')},
          {weight: 1, arbitrary: nastyString},
        )
      if (name === 'principal')
        return fc.oneof({weight: 4, arbitrary: fc.constantFrom('alice', 'bob', 'owner', 'fuzz.bot')}, {weight: 1, arbitrary: nastyString})
      if (name === 'tags' || name === 'tag')
        return fc.oneof({weight: 8, arbitrary: fc.constantFrom('fuzz', 'port', 'Daemon', 'a.b-c_d')}, {weight: 1, arbitrary: nastyString})
      if (name === 'q')
        return fc.oneof(
          {
            weight: 8,
            arbitrary: fc.constantFrom(
              'daemon',
              'port crashes',
              'fixture',
              'taken 7411',
              'crash*',
              'NEAR(a b)',
              '"port',
              'title:x',
              'a OR b',
              '-',
            ),
          },
          {weight: 1, arbitrary: nastyString},
        )
      return fc.oneof(
        {weight: 8, arbitrary: fc.lorem({maxCount: 12})},
        {weight: 1, arbitrary: fc.string({minLength: 1, maxLength: 60})},
        {weight: 1, arbitrary: nastyString},
      )
    case 'integer':
      return fc.oneof(
        {weight: 3, arbitrary: fc.integer({min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 100, 100)})},
        {weight: 1, arbitrary: fc.oneof(fc.integer({min: -5, max: 5000}), fc.constantFrom(0, 1, 3650, 3651, 2 ** 31, -(2 ** 31)))},
      )
    case 'number':
      return fc.double()
    case 'boolean':
      return fc.boolean()
    case 'array':
      return fc.array(plausible(schema.items, name), {maxLength: 25})
    case 'object':
      return fc.record(Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, plausible(s, k)])), {
        requiredKeys: (schema.required ?? []).filter((k) => k in (schema.properties ?? {})),
      })
    case 'null':
      return fc.constant(null)
    default:
      return wildValue
  }
}

function deep(n: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? '['.repeat(n) + ']'.repeat(n) : '{"a":'.repeat(n) + '1' + '}'.repeat(n)
}

/** Body texts: plausible records, wild JSON, prototype pollution, deep nesting, and text that is not JSON. */
function bodyText(op: Operation): fc.Arbitrary<string | undefined> {
  const props = Object.entries(op.bodyProps)
  // Plausible records (required fields present) reach the handlers; a wild field now and then tests the validators.
  const plausibleRecord = fc.record(Object.fromEntries(props.map(([k, s]) => [k, plausible(s, k)])), {requiredKeys: op.bodyRequired})
  const record = fc.oneof(
    {weight: 2, arbitrary: plausibleRecord},
    {
      weight: 1,
      arbitrary: fc.record(
        Object.fromEntries(
          props.map(([k, s]) => [k, fc.oneof({weight: 3, arbitrary: plausible(s, k)}, {weight: 1, arbitrary: wildValue})]),
        ),
        {requiredKeys: []},
      ),
    },
  )
  const withExtra = fc.tuple(record, fc.constantFrom(...PROTO_KEYS, 'extra', ''), wildValue).map(([r, k, v]) => {
    const json = JSON.stringify(r)
    const extra = `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`
    return json === '{}' ? `{${extra}}` : `${json.slice(0, -1)},${extra}}`
  })
  const pollution = fc.constantFrom(
    '{"__proto__":{"polluted":"yes","scope":"global","role":"owner"}}',
    '{"constructor":{"prototype":{"polluted":"yes"}}}',
    '{"title":"t","body":"b","__proto__":{"polluted":"yes"}}',
    '{"__proto__":null}',
    '{"__proto__":[]}',
    '[{"__proto__":{"polluted":"yes"}}]',
  )
  const notJson = fc.constantFrom(
    '',
    ' ',
    'null',
    'true',
    '0',
    '"str"',
    '[]',
    '{',
    '{"a":',
    "{'a':1}",
    '{"a":1,}',
    'NaN',
    '\ufeff{}',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '{"title":"x"}{"title":"y"}',
    '\u0000',
    '{"a":1e999999}',
    '{"a":-0}',
    '{"a":"' + '\\'.repeat(3) + '"}',
  )
  const nesting = fc
    .tuple(fc.integer({min: 1, max: 20_000}), fc.constantFrom('array' as const, 'object' as const))
    .map(([n, k]) => deep(n, k))
  return fc.oneof(
    {weight: 12, arbitrary: record.map((r) => JSON.stringify(r))},
    {weight: 2, arbitrary: withExtra},
    {weight: 2, arbitrary: wildValue.map((v) => JSON.stringify(v) ?? 'null')},
    {weight: 1, arbitrary: pollution},
    {weight: 1, arbitrary: notJson},
    {weight: 1, arbitrary: nesting},
    {weight: 1, arbitrary: fc.constant(undefined)},
  )
}

const contentType = fc.oneof(
  {weight: 16, arbitrary: fc.constant('application/json')},
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/merge-patch+json',
      'application/problem+json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/x-ndjson',
      'application/json; charset=latin1',
      'application/jsonx',
      'json',
      '',
      '*/*',
      'application/json;;;',
      'application/json, text/plain',
    ),
  },
  {weight: 1, arbitrary: fc.constant(null)},
)

/** One query-string piece: percent-encoded or raw, with odd encodings. */
const queryPart = fc.oneof(
  {weight: 3, arbitrary: nastyString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x')))},
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '%',
      '%zz',
      '%C0%80',
      '%00',
      '%FF',
      '%ED%A0%80',
      '+',
      '++',
      ';',
      '=',
      '==',
      '&',
      '%2B',
      '%26',
      '%3D',
      '\xe9',
      '%E2%80%AE',
      '1',
      '0',
      '-1',
      '101',
      'abc',
      'true',
      '1e3',
      '0x10',
      '[]',
      '%5B%5D',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom('summary', 'standard', 'full', 'private', 'project', 'global', 'open', 'resolved', 'crash', 'port+in+use'),
  },
)

function queryString(op: Operation): fc.Arbitrary<string> {
  const known = Object.keys(op.queryParams)
  const key = fc.oneof(
    {weight: 4, arbitrary: known.length > 0 ? fc.constantFrom(...known) : fc.constant('q')},
    {weight: 1, arbitrary: fc.constantFrom('q', 'limit', 'detail', 'cursor', 'x', 'q[]', 'limit[0]', '__proto__', 'constructor', '')},
  )
  const pair = fc.oneof(
    {weight: 5, arbitrary: fc.tuple(key, queryPart).map(([k, v]) => `${k}=${v}`)},
    {weight: 1, arbitrary: key},
    {weight: 1, arbitrary: queryPart},
  )
  const wild = fc.array(pair, {maxLength: 8}).map((ps) => (ps.length === 0 ? '' : `?${ps.join('&')}`))
  // Plausible queries: the required parameters and some optional ones, with values of their type.
  const encode = (v: unknown): string => encodeURIComponent(String(v).replace(/[\ud800-\udfff]/g, 'x'))
  const plausibleQuery = fc
    .record(Object.fromEntries(Object.entries(op.queryParams).map(([k, sch]) => [k, plausible(sch, k)])), {requiredKeys: op.queryRequired})
    .map((q) =>
      Object.entries(q)
        .map(([k, v]) => `${k}=${encode(v)}`)
        .join('&'),
    )
    .map((qs) => (qs === '' ? '' : `?${qs}`))
  return fc.oneof(plausibleQuery, wild)
}

/** Path ids: real ones (any case), random UUIDs, and things that are not ids at all. */
const pathId = fc.oneof(
  {weight: 4, arbitrary: fc.nat({max: 3}).map((i) => entryIds[i % entryIds.length]!)},
  {weight: 1, arbitrary: fc.nat({max: 3}).map((i) => entryIds[i % entryIds.length]!.toUpperCase())},
  {weight: 2, arbitrary: fc.uuid()},
  {
    weight: 3,
    arbitrary: fc.oneof(
      nastyString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x'))),
      fc.constantFrom(
        '',
        '..',
        '.',
        '%2F',
        '%2e%2e',
        '%',
        '%zz',
        'null',
        'undefined',
        '0',
        '-1',
        'a'.repeat(600),
        `${'0'.repeat(8)}-${'0'.repeat(4)}-${'0'.repeat(4)}-${'0'.repeat(4)}-${'0'.repeat(12)}`,
        '{id}',
        ':id',
        '%00',
        '\xe9',
        'x?y',
      ),
    ),
  },
)

const authHeader = fc.oneof(
  {weight: 5, arbitrary: fc.constant('owner')},
  {weight: 2, arbitrary: fc.constant('member')},
  {weight: 2, arbitrary: fc.constant(null)},
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'revoked',
      'Bearer',
      'Bearer ',
      'bearer kb_nope',
      'Basic dXNlcjpwdw==',
      'Bearer kb_' + 'A'.repeat(43),
      'Bearer ' + 'x'.repeat(5000),
      'Bearer kb_\u00e9',
      'Token abc',
      'Bearer a b',
      ' Bearer  kb_x ',
      'Bearer eyJhbGciOiJub25lIn0.e30.',
    ),
  },
)

const extraHeaders = fc.record(
  {
    'if-match': fc.constantFrom('"1"', '*', 'W/"1"', '"999999999999999999"', 'garbage', '', '"1", "2"'),
    'x-request-id': fc.constantFrom('abc', 'x'.repeat(300), '\u00e9\u00e9', ' '),
    accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', ''),
    'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', '*'),
    origin: fc.constantFrom('https://evil.example', 'null', 'http://127.0.0.1:1'),
  },
  {requiredKeys: []},
)

function credentialFor(auth: string | null): string | undefined {
  if (auth === null) return undefined
  if (auth === 'owner') return `Bearer ${d.ownerKey}`
  if (auth === 'member') return `Bearer ${memberKey}`
  if (auth === 'revoked') return `Bearer ${revokedKey}`
  return auth
}

function resolvePath(op: Operation, id: string): string {
  return (op.root ? '' : prefix) + op.path.replace('{id}', id)
}

const OAUTH_PARAMS = [
  'grant_type',
  'code',
  'code_verifier',
  'redirect_uri',
  'client_id',
  'client_secret',
  'refresh_token',
  'resource',
  'token',
  'token_type_hint',
  'response_type',
  'code_challenge',
  'code_challenge_method',
  'state',
  'scope',
  'api_key',
  'decision',
  'csrf',
  'request_id',
]
const oauthValue = fc.oneof(
  fc.constantFrom(
    'authorization_code',
    'refresh_token',
    'client_credentials',
    'password',
    'code',
    'S256',
    'plain',
    'approve',
    'deny',
    'http://127.0.0.1:8765/callback',
    'http://[::1]/cb',
    'https://evil.example/cb',
    'kb_' + 'A'.repeat(43),
  ),
  fc.string({maxLength: 60}),
  nastyString,
)
/** OAuth form bodies (application/x-www-form-urlencoded), sometimes repeated or oddly encoded. */
const oauthForm: fc.Arbitrary<string> = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...OAUTH_PARAMS), fc.string({maxLength: 8})), oauthValue, fc.boolean()), {maxLength: 10})
  .map((pairs) =>
    pairs
      .map(
        ([k, v, raw]) =>
          `${encodeURIComponent(k)}=${raw ? v.replace(/[&=\s]/g, '') : encodeURIComponent(v.replace(/[\ud800-\udfff]/g, 'x'))}`,
      )
      .join('&'),
  )
/** RFC 7591 registration metadata. */
const registration: fc.Arbitrary<string> = fc
  .record(
    {
      client_name: oauthValue,
      redirect_uris: fc.oneof(fc.array(oauthValue, {maxLength: 4}), wildValue),
      grant_types: fc.oneof(fc.array(fc.constantFrom('authorization_code', 'refresh_token', 'implicit', 'x'), {maxLength: 3}), wildValue),
      response_types: fc.oneof(fc.array(fc.constantFrom('code', 'token'), {maxLength: 2}), wildValue),
      token_endpoint_auth_method: fc.oneof(
        fc.constantFrom('none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'),
        wildValue,
      ),
      scope: oauthValue,
      __proto__x: wildValue,
    },
    {requiredKeys: []},
  )
  .map((r) => JSON.stringify(r).replace('"__proto__x"', '"__proto__"'))

/** The OAuth endpoints and discovery documents, which the OpenAPI document does not list. */
function oauthOperations(): Operation[] {
  const op = (method: string, path: string, root = false): Operation => ({
    method,
    path,
    bodyProps: {},
    bodyRequired: [],
    queryParams: Object.fromEntries(OAUTH_PARAMS.map((p) => [p, {type: 'string'}])),
    queryRequired: [],
    oauth: true,
    root,
  })
  return [
    op('POST', '/oauth/register'),
    op('GET', '/oauth/authorize'),
    op('POST', '/oauth/authorize'),
    op('POST', '/oauth/token'),
    op('POST', '/oauth/revoke'),
    op('GET', '/.well-known/oauth-protected-resource'),
    op('GET', '/.well-known/oauth-authorization-server'),
    op('GET', '/.well-known/oauth-protected-resource/api/v1', true),
    op('GET', '/.well-known/oauth-authorization-server', true),
    op('GET', '/.well-known/oauth-authorization-server/api/v1', true),
  ]
}

/** A request for one operation, with any method (mostly its own). */
function requestFor(
  op: Operation,
): fc.Arbitrary<{method: string; target: string; headers: Record<string, string>; body: string | undefined; label: string}> {
  return fc
    .record({
      method: fc.oneof({weight: 6, arbitrary: fc.constant(op.method)}, {weight: 1, arbitrary: fc.constantFrom(...METHODS)}),
      id: pathId,
      query: queryString(op),
      body: op.oauth ? fc.oneof(op.path.endsWith('/register') ? registration : oauthForm, bodyText(op)) : bodyText(op),
      type: op.oauth
        ? fc.oneof(
            {weight: 3, arbitrary: fc.constant(op.path.endsWith('/register') ? 'application/json' : 'application/x-www-form-urlencoded')},
            {weight: 1, arbitrary: contentType},
          )
        : contentType,
      auth: authHeader,
      extra: extraHeaders,
    })
    .map(({method, id, query, body, type, auth, extra}) => {
      const headers: Record<string, string> = {...extra}
      const credential = credentialFor(auth)
      if (credential !== undefined) headers.authorization = credential
      // GET, HEAD and DELETE bodies are rare but legal; node:http sends them with a Content-Length.
      const sendBody = body !== undefined && method !== 'HEAD'
      if (sendBody && type !== null) headers['content-type'] = type
      const target = resolvePath(op, id) + query
      return {
        method,
        target,
        headers,
        body: sendBody ? body : undefined,
        label: `${method} ${target.slice(0, 200)} [${type}] ${auth} ${String(body).slice(0, 200)}`,
      }
    })
}

/** Whether a (successful) request used up one of the fixtures, which is then replaced. */
async function replenish(method: string, target: string, status: number): Promise<void> {
  if (method === 'DELETE' && status === 204) {
    const i = entryIds.findIndex((id) => target.toLowerCase().includes(id))
    if (i !== -1) entryIds[i] = await createEntry(`replacement ${i}`)
  }
}

async function createEntry(title: string): Promise<string> {
  const res = await d.request('POST', '/knowledge', {
    body: {title, body: `Fixture **${title}**: the daemon crashes when port 7411 is taken.`, project_id: projectId, tags: ['fuzz']},
  })
  if (res.status !== 201) throw new Error(`fixture: ${res.status} ${res.text}`)
  return res.body.id as string
}

// ---- the tests ----

const operations: Operation[] = []

beforeAll(async () => {
  // Errors only: a 500 logs its cause, which is what a failure here needs to show.
  d = await startInProcessDaemon({logLevel: 'error'})
  const u = new URL(d.url)
  origin = u.origin
  prefix = u.pathname
  const joined = await d.request('POST', '/projects/join', {body: {remote: 'git@github.com:acme/fuzz.git'}})
  projectId = joined.body.project.id
  memberKey = await newPrincipal(d, 'member')
  revokedKey = await newPrincipal(d, 'gone')
  expect((await d.request('DELETE', '/api-keys', {key: revokedKey})).status).toBe(204)
  for (let i = 0; i < 4; i++) entryIds.push(await createEntry(`fixture ${i}`))

  const doc = (await d.request('GET', '/openapi.json', {key: null})).body as {
    paths: Record<
      string,
      Record<
        string,
        {
          requestBody?: {content: Record<string, {schema: SchemaLike}>}
          parameters?: Array<{name: string; in: string; required?: boolean; schema: SchemaLike}>
        }
      >
    >
    components?: {schemas?: Record<string, SchemaLike>}
  }
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const schema = op.requestBody ? Object.values(op.requestBody.content)[0]?.schema : undefined
      const query = (op.parameters ?? []).filter((p) => p.in === 'query')
      operations.push({
        method: method.toUpperCase(),
        path,
        bodyProps: schema?.properties ?? {},
        bodyRequired: schema?.required ?? [],
        queryParams: Object.fromEntries(query.map((p) => [p.name, p.schema])),
        queryRequired: query.filter((p) => p.required).map((p) => p.name),
        oauth: path.includes('oauth'),
      })
    }
  }
  for (const op of oauthOperations())
    if (!operations.some((o) => o.method === op.method && o.path === op.path && !o.root && !op.root)) operations.push(op)
}, 60_000)

afterAll(async () => {
  agent.destroy()
  await d?.stop()
})

describe('fuzzing every endpoint of the OpenAPI document', () => {
  it('finds the endpoints to fuzz', () => {
    const names = operations.map((o) => `${o.method} ${o.path}`)
    for (const must of [
      'POST /knowledge',
      'GET /knowledge',
      'GET /knowledge/{id}',
      'PATCH /knowledge/{id}',
      'DELETE /knowledge/{id}',
      'POST /knowledge/{id}/resolve',
      'POST /knowledge/{id}/comments',
      'POST /knowledge/{id}/publish',
      'POST /knowledge/{id}/fork',
      'GET /search',
      'POST /projects/join',
      'GET /projects',
      'POST /api-keys',
      'GET /api-keys',
      'DELETE /api-keys',
      'GET /health',
      'GET /openapi.json',
    ])
      expect(names).toContain(must)
  })

  it('answers generated requests to each endpoint without a 5xx, errors as problem+json', async () => {
    const runs = Math.max(50, Math.floor(1800 / operations.length))
    for (const op of operations) {
      await fc.assert(
        fc.asyncProperty(requestFor(op), async (r) => {
          // Revoking "the key that made the request" would end the fixtures' sessions; those cases get a key of their own.
          const revokes = r.method === 'DELETE' && r.target.startsWith(`${prefix}/api-keys`)
          if (revokes && [`Bearer ${d.ownerKey}`, `Bearer ${memberKey}`].includes(r.headers.authorization ?? '')) {
            r.headers.authorization = `Bearer ${await newPrincipal(d, 'throwaway')}`
          }
          const res = await send(r.method, r.target, r.headers, r.body)
          check(r.label, r.method, res, op.oauth)
          await replenish(r.method, r.target, res.status)
        }),
        {numRuns: runs},
      )
      await healthy()
    }
  }, 120_000)

  it('survives bodies at and over the size limit, and deep nesting at the limit', async () => {
    const cases: Array<[string, string]> = [
      ['a 1.1 MB string', JSON.stringify({title: 't', body: 'x'.repeat(1_100_000)})],
      ['1 MiB of nesting', deep(200_000, 'array')],
      ['just under 1 MiB of nesting', deep(170_000, 'object').slice(0, 1_040_000)],
      ['a 1 MiB body of unicode', JSON.stringify({title: 't', body: '😀'.repeat(260_000)})],
      ['100,000 keys', `{${Array.from({length: 100_000}, (_, i) => `"k${i}":1`).join(',')}}`],
      ['a 100,000-element tag array', JSON.stringify({title: 't', body: 'b', tags: Array.from({length: 100_000}, () => 'x')})],
    ]
    for (const [label, body] of cases) {
      for (const path of ['/knowledge', `/knowledge/${entryIds[0]}`, '/projects/join']) {
        const method = path.startsWith('/knowledge/') ? 'PATCH' : 'POST'
        const res = await send(method, prefix + path, {authorization: `Bearer ${d.ownerKey}`, 'content-type': 'application/json'}, body)
        check(`${label} → ${method} ${path}`, method, res)
        expect(res.status, label).toBeGreaterThanOrEqual(400)
      }
    }
    await healthy()
  }, 60_000)

  it('answers malformed HTTP and odd request targets with problem+json', async () => {
    const targets = [
      `${prefix}/knowledge/%zz`,
      `${prefix}/knowledge/%`,
      `${prefix}/knowledge/%00`,
      `${prefix}/knowledge/%C0%AE%C0%AE`,
      `${prefix}/../../etc/passwd`,
      `/${prefix}/health`,
      `${prefix}//knowledge`,
      `${prefix}/knowledge/`,
      `${prefix}/knowledge?`,
      `${prefix}/knowledge?&&&`,
      `${prefix}/search?q=%`,
      `${prefix}/search?q=a&q=b`,
      `${prefix}/search?q[]=a`,
      `${prefix}/search?q=${'a'.repeat(501)}`,
      `${prefix}/search?q=%F0%9F%98`,
      `${prefix}/knowledge?limit=1&limit=2`,
      `${prefix}/knowledge?limit=%31`,
      `${prefix}/knowledge?cursor=${'%FF'.repeat(100)}`,
      `${prefix}/knowledge/${'a'.repeat(10_000)}`,
      `${prefix}/${'x/'.repeat(2000)}`,
      '/',
      '/api',
      '/api/v2/health',
      `${prefix}/HEALTH`,
      `${prefix}/health;x=1`,
      `${prefix}/health%2F`,
      '*',
    ]
    for (const t of targets) {
      for (const auth of [`Bearer ${d.ownerKey}`, undefined]) {
        const headers: Record<string, string> = auth ? {authorization: auth} : {}
        const res = await sendBytes(
          Buffer.from(
            `GET ${t} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth ? `Authorization: ${auth}\r\n` : ''}Connection: close\r\n\r\n`,
            'latin1',
          ),
        )
        check(`raw GET ${t.slice(0, 120)}`, 'GET', res)
        void headers
      }
    }
    // label, request, the status it must get (0: the connection may close without an answer)
    const raws: Array<[string, string, number?]> = [
      ['unknown method', `BREW ${prefix}/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, 400],
      ['WebDAV method', `PROPFIND ${prefix}/knowledge HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`, 404],
      ['TRACE', `TRACE ${prefix}/knowledge HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`],
      ['raw UTF-8 in the target', `GET ${prefix}/knowledge/\u00e9\u00e8 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`, 400],
      ['bad header line', `GET ${prefix}/health HTTP/1.1\r\nHost: 127.0.0.1\r\nBroken header\r\n\r\n`, 400],
      [
        'Content-Length mismatch (short)',
        `POST ${prefix}/knowledge HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer KEY\r\nContent-Type: application/json\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{"title":"t","body":"b"}`,
      ],
      [
        'both Content-Length and chunked',
        `POST ${prefix}/knowledge HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
      ],
      [
        'bad chunk',
        `POST ${prefix}/knowledge HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      ],
      ['HTTP/0.9', `GET ${prefix}/health\r\n\r\n`],
      ['no Host (HTTP/1.0)', `GET ${prefix}/health HTTP/1.0\r\n\r\n`],
      ['evil Host', `GET ${prefix}/health HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`, 403],
      ['two Hosts', `GET ${prefix}/health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`, 400],
      ['huge header', `GET ${prefix}/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
      ['header with NUL', `GET ${prefix}/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\u0000b\r\n\r\n`, 400],
    ]
    for (const [label, text, status] of raws) {
      const res = await sendBytes(Buffer.from(text.replace('KEY', d.ownerKey), 'latin1'))
      if (status !== undefined) expect(res.status, label).toBe(status)
      if (res.status === 0) continue // the connection was closed without an answer, which HTTP allows for garbage
      check(label, 'GET', res)
    }
    await healthy()
  }, 60_000)

  it('did not pollute any prototype, and still works for real', async () => {
    const o = {} as Record<string, unknown>
    expect(o.polluted).toBeUndefined()
    expect(Object.keys(Object.prototype)).toEqual([])
    expect((Object.prototype as Record<string, unknown>).scope).toBeUndefined()
    const created = await d.request('POST', '/knowledge', {body: {title: 'after the fuzz', body: 'still fine'}})
    expect(created.status).toBe(201)
    expect(created.body.scope).toBe('private')
    const found = await d.request('GET', '/search', {query: {q: 'after the fuzz'}})
    expect(found.status).toBe(200)
    expect(found.body.items[0].id).toBe(created.body.id)
    // Enough traffic went through to mean something, and it reached the handlers, not just the validators.
    expect(seen.requests).toBeGreaterThan(1500)
    const ok = [...seen.byStatus].filter(([s]) => s < 300).reduce((n, [, c]) => n + c, 0)
    expect(ok).toBeGreaterThan(200)
  })
})
