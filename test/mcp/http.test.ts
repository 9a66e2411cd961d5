/**
 * The daemon's MCP endpoint with the real SDK client (`Client` + `StreamableHTTPClientTransport`) against
 * a real in-process daemon: tools/list, every tool called and its effect checked through the REST API,
 * bad arguments to every tool as tool errors, the 401 challenge, an OAuth access token, token budgets.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import {countTokens} from 'gpt-tokenizer/encoding/o200k_base'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {SIMILAR_MAX} from '../../src/shared/contract.js'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../helpers/daemon.js'
import {obtainTokens} from '../server/oauth/support.js'

const TOOL_NAMES = [
  'search_knowledge',
  'get_knowledge',
  'add_knowledge',
  'update_knowledge',
  'comment_on_knowledge',
  'resolve_knowledge',
  'verify_knowledge',
  'flag_knowledge',
  'supersede_knowledge',
  'publish_knowledge',
  'fork_knowledge',
  'join_project',
  'review_queue',
]
const tokens = (s: string): number => countTokens(s, {disallowedSpecial: new Set()})

let d: TestDaemon
let client: Client
const clients: Client[] = []

async function connect(key: string, protocolVersion?: string): Promise<Client> {
  const c = new Client({name: 'kb-test', version: '1.0.0'})
  const transport = new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), {
    requestInit: {headers: {authorization: `Bearer ${key}`, ...(protocolVersion ? {'mcp-protocol-version': protocolVersion} : {})}},
  })
  await c.connect(transport)
  clients.push(c)
  return c
}

async function call(c: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await c.callTool({name, arguments: args})) as CallToolResult
}

function ok(r: CallToolResult): Record<string, any> {
  const text = r.content.map((p) => (p.type === 'text' ? p.text : '')).join('')
  expect(r.isError, text).toBeFalsy()
  expect(text.length).toBeGreaterThan(0)
  return r.structuredContent as Record<string, any>
}

function textOf(r: CallToolResult): string {
  return r.content.map((p) => (p.type === 'text' ? p.text : '')).join('')
}

beforeAll(async () => {
  d = await startInProcessDaemon()
  client = await connect(d.ownerKey)
})

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined)
  await d?.stop()
})

describe('MCP over Streamable HTTP on the daemon', () => {
  it('lists the thirteen tools, each with a description and input and output schemas', async () => {
    const {tools} = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort())
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeGreaterThan(60)
      expect(t.inputSchema.type).toBe('object')
      expect(t.outputSchema?.type, t.name).toBe('object')
    }
    expect(client.getServerVersion()?.name).toBe('kb')
    expect(client.getInstructions()).toMatch(/search_knowledge/)
  })

  it('calls every tool and each effect shows through the REST API', async () => {
    const join = ok(await call(client, 'join_project', {remote: 'git@github.com:acme/mcp.git'}))
    expect(join.created).toBe(true)
    expect(join.project.remote).toBe('github.com/acme/mcp')
    const projectId = join.project.id as string
    expect((await d.request('GET', '/projects')).body.items.map((p: {id: string}) => p.id)).toContain(projectId)

    const added = ok(
      await call(client, 'add_knowledge', {
        title: 'SQLITE_BUSY when two daemons share a data dir',
        body: 'Two daemons opened the same kb.sqlite.\n\nThe lock file prevents it now.',
        tags: ['sqlite', 'Daemon'],
        url: 'https://github.com/acme/mcp/issues/1',
        scope: 'project',
        project_id: projectId,
        thought_chain: [
          {thought: 'the error appears only with two daemons', kind: 'observation'},
          {thought: 'both open the same file', kind: 'hypothesis'},
          {thought: 'a lock file fixes it', kind: 'conclusion'},
        ],
      }),
    )
    const id = added.entry.id as string
    const rest = (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
    expect(rest).toMatchObject({
      scope: 'project',
      project_id: projectId,
      tags: ['sqlite', 'daemon'],
      url: 'https://github.com/acme/mcp/issues/1',
    })
    expect(rest.thought_chain.map((t: {kind: string}) => t.kind)).toEqual(['observation', 'hypothesis', 'conclusion'])
    expect(Object.keys(added.entry).sort()).toEqual(['body', 'freshness', 'id', 'status', 'title'])

    const found = ok(await call(client, 'search_knowledge', {query: 'sqlite busy daemons'}))
    expect(found.total).toBeGreaterThanOrEqual(1)
    expect(found.items[0].id).toBe(id)

    const got = ok(await call(client, 'get_knowledge', {id, detail: 'full'}))
    expect(got.entry.thought_chain).toHaveLength(3)

    const updated = ok(await call(client, 'update_knowledge', {id, title: 'SQLITE_BUSY: two daemons on one data dir', detail: 'standard'}))
    expect(updated.entry.version).toBe(2)
    expect((await d.request('GET', `/knowledge/${id}`)).body.title).toBe('SQLITE_BUSY: two daemons on one data dir')

    const commented = ok(await call(client, 'comment_on_knowledge', {id, body: 'Also seen on macOS.', type: 'supplement'}))
    expect(commented.comment.type).toBe('supplement')
    const withComments = (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
    expect(withComments.comments.map((c: {body: string; type: string}) => [c.type, c.body])).toEqual([
      ['supplement', 'Also seen on macOS.'],
    ])

    const resolved = ok(await call(client, 'resolve_knowledge', {id, note: 'lock file', url: 'https://github.com/acme/mcp/pull/2'}))
    expect(resolved.entry.status).toBe('resolved')
    expect((await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body.resolution).toMatchObject({
      note: 'lock file',
      url: 'https://github.com/acme/mcp/pull/2',
    })

    const forked = ok(await call(client, 'fork_knowledge', {id, title: 'SQLITE_BUSY on NFS'}))
    const forkId = forked.entry.id as string
    const forkRest = (await d.request('GET', `/knowledge/${forkId}`)).body
    expect(forkRest).toMatchObject({forked_from: id, scope: 'private', title: 'SQLITE_BUSY on NFS'})

    const published = ok(await call(client, 'publish_knowledge', {id: forkId, scope: 'global', detail: 'standard'}))
    expect(published.entry.scope).toBe('global')
    expect((await d.request('GET', `/knowledge/${forkId}`)).body.scope).toBe('global')

    // update_knowledge reopens: status back to open clears the resolution.
    ok(await call(client, 'update_knowledge', {id, status: 'open'}))
    expect((await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body).toMatchObject({status: 'open', resolution: null})
  })

  it('applies the API permission rules to the MCP caller', async () => {
    const bob = await newPrincipal(d, 'bob-mcp')
    const bobClient = await connect(bob)
    const mine = (await d.request('POST', '/knowledge', {body: {title: 'Owner only', body: 'private note', scope: 'private'}})).body
    const hidden = await call(bobClient, 'get_knowledge', {id: mine.id})
    expect(hidden.isError).toBe(true)
    expect(textOf(hidden)).toMatch(/not_found.*search_knowledge/)
    const open = (await d.request('POST', '/knowledge', {body: {title: 'Everyone sees this', body: 'global note', scope: 'global'}})).body
    const edit = await call(bobClient, 'update_knowledge', {id: open.id, title: 'bob was here'})
    expect(edit.isError).toBe(true)
    expect(textOf(edit)).toMatch(/forbidden.*comment_on_knowledge or fork_knowledge/)
    expect((await d.request('GET', `/knowledge/${open.id}`)).body.title).toBe('Everyone sees this')
    // …but he may comment on and fork what he can see.
    ok(await call(bobClient, 'comment_on_knowledge', {id: open.id, body: 'seen it'}))
    ok(await call(bobClient, 'fork_knowledge', {id: open.id}))
    const s = ok(await call(bobClient, 'search_knowledge', {query: 'owner only private note'}))
    expect(s.items.map((i: {id: string}) => i.id)).not.toContain(mine.id)
  })

  it('bad arguments to every tool are tool errors naming the problem, and the session goes on', async () => {
    const missing = '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980'
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['search_knowledge', {query: 'x', limit: 0}, /limit must be >= 1/],
      ['search_knowledge', {query: 'x', detail: 'huge'}, /detail must be one of/],
      ['search_knowledge', {query: '   '}, /query must contain a word/],
      ['search_knowledge', {query: 'x', max_tokens: 10}, /max_tokens must be >= 50/],
      ['get_knowledge', {id: 'not-a-uuid'}, /"not-a-uuid" is not an entry id: an id, or its start or end, is hexadecimal digits/],
      ['get_knowledge', {id: 'abc'}, /"abc" is too short to name an entry/],
      ['get_knowledge', {id: missing}, /not_found/],
      ['get_knowledge', {id: missing, extra: 1}, /unknown argument "extra"/],
      ['add_knowledge', {title: 'no body'}, /missing argument "body"/],
      ['add_knowledge', {title: 'T', body: 'B', tags: ['no spaces please']}, /tags\.0 must match pattern/],
      ['add_knowledge', {title: 'T', body: 'B', thought_chain: [{thought: 'x', kind: 'guess'}]}, /thought_chain\.0\.kind must be one of/],
      ['add_knowledge', {title: 'T', body: 'B', url: 'ftp://example.com/x'}, /validation_failed/],
      ['add_knowledge', {title: 'T', body: 'B', scope: 'project'}, /validation_failed|project/],
      ['update_knowledge', {id: missing}, /nothing to change/],
      ['update_knowledge', {id: missing, title: 'x'}, /not_found/],
      ['comment_on_knowledge', {id: missing, body: 'x', type: 'rant'}, /type must be one of/],
      ['comment_on_knowledge', {id: missing, body: 'x'}, /not_found/],
      ['resolve_knowledge', {id: 42}, /id must be string/],
      ['resolve_knowledge', {id: missing}, /not_found/],
      ['publish_knowledge', {id: missing, scope: 'everyone'}, /scope must be one of/],
      ['fork_knowledge', {}, /missing argument "id"/],
      ['fork_knowledge', {id: missing}, /not_found/],
      ['join_project', {remote: ''}, /remote must NOT have fewer than 1 characters/],
      ['join_project', {remote: 'not a remote'}, /validation_failed|bad_request/],
      ['review_queue', {kind: 'everything'}, /kind must be one of/],
      ['review_queue', {project_id: missing}, /not_found/],
      ['no_such_tool', {}, /there is no tool "no_such_tool"/],
    ]
    for (const [name, args, message] of cases) {
      const r = await call(client, name, args)
      expect(r.isError, `${name} ${JSON.stringify(args)}: ${textOf(r)}`).toBe(true)
      expect(textOf(r), `${name} ${JSON.stringify(args)}`).toMatch(message)
    }
    // A conflict from the API (publishing to a narrower scope) is a tool error too.
    const g = (await d.request('POST', '/knowledge', {body: {title: 'Already global', body: 'x', scope: 'global'}})).body
    const narrower = await call(client, 'publish_knowledge', {id: g.id, scope: 'private'})
    expect(narrower.isError).toBe(true)
    expect(textOf(narrower)).toMatch(/conflict.*get_knowledge/)
    // The client is still usable.
    expect((await client.listTools()).tools).toHaveLength(TOOL_NAMES.length)
  })

  it('summary answers stay within 100 tokens; search stays within max_tokens', async () => {
    const long = Array.from({length: 400}, (_, i) => `Sentence ${i} explains how the flaky connection pool leaks sockets under load.`).join(
      ' ',
    )
    const ids: string[] = []
    for (let i = 0; i < 8; i++) {
      const title = `Connection pool leak variant ${i} with a rather long descriptive title about sockets and timeouts under load`
      ids.push((await d.request('POST', '/knowledge', {body: {title, body: long, scope: 'global', tags: ['pool']}})).body.id)
    }
    const got = await call(client, 'get_knowledge', {id: ids[0], detail: 'summary'})
    ok(got)
    expect(tokens(textOf(got))).toBeLessThanOrEqual(100)
    expect(tokens(JSON.stringify(got.structuredContent))).toBeLessThanOrEqual(100)
    const added = await call(client, 'add_knowledge', {title: 'Another pool leak with a long body', body: long, scope: 'global'})
    // The entry keeps the budget; the similar entries follow it, at most SIMILAR_MAX short lines (docs/mcp.md).
    const [entryPart, similarPart] = textOf(added).split('\n\nSimilar entries already exist')
    expect(tokens(entryPart!)).toBeLessThanOrEqual(100)
    expect(tokens(JSON.stringify((added.structuredContent as Record<string, unknown>).entry))).toBeLessThanOrEqual(100)
    expect(similarPart!.trim().split('\n').length).toBeLessThanOrEqual(1 + SIMILAR_MAX)
    for (const maxTokens of [50, 60, 150, 400, 1500]) {
      for (const detail of ['summary', 'full'] as const) {
        const r = await call(client, 'search_knowledge', {query: 'connection pool leak', max_tokens: maxTokens, detail, limit: 20})
        const s = ok(r)
        expect(tokens(textOf(r)), `${maxTokens} ${detail}`).toBeLessThanOrEqual(maxTokens)
        expect(tokens(JSON.stringify(s)), `${maxTokens} ${detail}`).toBeLessThanOrEqual(maxTokens)
        expect(s.total).toBeGreaterThanOrEqual(9)
        if (s.items.length < s.total) expect(s.truncated).toBe(true)
        if (maxTokens <= 400) expect(s.truncated).toBe(true)
        if (maxTokens >= 400) expect(s.items.length).toBeGreaterThan(0)
        // Down to the minimum, the best hit comes in its leanest form: id, status and as much of the title as fits.
        if (maxTokens <= 60) expect(s.items, textOf(r)).toHaveLength(1)
        // …its id whole, or its short form where a whole id leaves no room (either is what get_knowledge takes).
        if (maxTokens <= 60) {
          expect(textOf(r)).toMatch(/^1\. .*\((open|resolved)\) ([0-9a-f-]{36}|[0-9a-f]{7,32})\n\(1 of \d+, cut to fit max_tokens/)
          const lean = s.items[0] as {id: string; status: string}
          expect(ok(await call(client, 'get_knowledge', {id: lean.id})).entry).toMatchObject({status: lean.status})
        }
        if (maxTokens === 1500 && detail === 'summary') expect([s.items.length, s.truncated]).toEqual([s.total, false])
      }
    }
    // Without max_tokens, each summary hit keeps the 100-token budget.
    const plain = ok(await call(client, 'search_knowledge', {query: 'connection pool leak', limit: 20}))
    for (const item of plain.items) expect(tokens(JSON.stringify(item))).toBeLessThanOrEqual(100)
  })

  it('answers a client pinned to protocol revision 2025-06-18 as well as 2025-11-25', async () => {
    for (const v of ['2025-06-18', '2025-11-25']) {
      const res = await fetch(`${d.url}/mcp`, {
        method: 'POST',
        headers: {authorization: `Bearer ${d.ownerKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream'},
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {protocolVersion: v, capabilities: {}, clientInfo: {name: 'raw', version: '1'}},
        }),
      })
      expect(res.status).toBe(200)
      const body = (await res.json()) as {result: {protocolVersion: string; capabilities: {tools?: object}}}
      expect(body.result.protocolVersion).toBe(v)
      expect(body.result.capabilities.tools).toBeDefined()
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      expect(res.headers.get('x-request-id')).toBeTruthy()
      const list = await fetch(`${d.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${d.ownerKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': v,
        },
        body: JSON.stringify({jsonrpc: '2.0', id: 2, method: 'tools/list'}),
      })
      expect(((await list.json()) as {result: {tools: unknown[]}}).result.tools).toHaveLength(TOOL_NAMES.length)
    }
  })

  it('without a credential: 401 with the challenge pointing at the MCP resource metadata', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'raw', version: '1'}},
    }
    for (const auth of [undefined, 'Bearer kb_wrongwrongwrong']) {
      const res = await fetch(`${d.url}/mcp`, {
        method: 'POST',
        body: JSON.stringify(init),
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(auth ? {authorization: auth} : {}),
        },
      })
      expect(res.status).toBe(401)
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/)
      const origin = new URL(d.url).origin
      const challenge = res.headers.get('www-authenticate')!
      expect(challenge).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource/api/v1/mcp"`)
      expect(challenge.includes('error="invalid_token"')).toBe(auth !== undefined)
      expect(await res.json()).toMatchObject({code: 'unauthenticated'})
    }
    // The metadata it points at names the MCP endpoint as the resource.
    const prm = await (await fetch(`${new URL(d.url).origin}/.well-known/oauth-protected-resource/api/v1/mcp`)).json()
    expect(prm).toMatchObject({resource: `${d.url}/mcp`, authorization_servers: [d.url]})
    // The SDK client sees an UnauthorizedError-like failure, not a hang.
    const c = new Client({name: 'anon', version: '1'})
    await expect(c.connect(new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`)))).rejects.toThrow()
  })

  it('GET and DELETE are 405 with Allow: POST; a preflight is answered', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await d.request(method, '/mcp', {headers: {accept: 'text/event-stream'}})
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('POST')
      expect(res.body.code).toBe('method_not_allowed')
    }
    const pre = await fetch(`${d.url}/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:6274',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, mcp-protocol-version',
      },
    })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/MCP-Protocol-Version/)
  })

  it('a POST without the Accept MCP wants is 406, and one that is not JSON 415, both problem+json', async () => {
    const body = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list'})
    const auth = {authorization: `Bearer ${d.ownerKey}`}
    const wrongAccept = await fetch(`${d.url}/mcp`, {
      method: 'POST',
      body,
      headers: {...auth, 'content-type': 'application/json', accept: 'application/json'},
    })
    expect(wrongAccept.status).toBe(406)
    expect(wrongAccept.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(await wrongAccept.json()).toMatchObject({
      status: 406,
      code: 'not_acceptable',
      detail: expect.stringMatching(/text\/event-stream/),
    })
    const notJson = await fetch(`${d.url}/mcp`, {
      method: 'POST',
      body,
      headers: {...auth, 'content-type': 'text/plain', accept: 'application/json, text/event-stream'},
    })
    expect(notJson.status).toBe(415)
    expect(notJson.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(await notJson.json()).toMatchObject({code: 'unsupported_media_type'})
  })

  it('an OAuth access token from the OAuth flow works, for the resource {base}/mcp and for {base}', async () => {
    for (const resource of [`${d.url}/mcp`, d.url]) {
      const {tokens: t} = await obtainTokens(d, d.ownerKey, {resource})
      expect(t.access_token).toMatch(/^kbat_/)
      const c = await connect(t.access_token)
      const r = ok(await call(c, 'add_knowledge', {title: `Added with an OAuth token for ${resource}`, body: 'via MCP', scope: 'private'}))
      const rest = (await d.request('GET', `/knowledge/${r.entry.id}`)).body
      expect(rest.author.name).toBe((await d.request('GET', '/api-keys')).body.items[0].principal.name)
    }
    // A revoked token is refused with invalid_token.
    const {client: oc, tokens: t} = await obtainTokens(d, d.ownerKey, {resource: `${d.url}/mcp`})
    await fetch(`${d.url}/oauth/revoke`, {
      method: 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({token: t.access_token, client_id: oc.client_id}),
    })
    const res = await fetch(`${d.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"')
  })
})
