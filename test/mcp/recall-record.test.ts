/**
 * The recall record of the MCP tools (docs/api.md, "Recall"): search_knowledge and get_knowledge, called by a real
 * SDK client over Streamable HTTP, are recorded as `mcp_search` / `mcp_get` recalls under the caller, with the entries
 * given; an ordinary REST read is not a recall. Over stdio they are recorded under the name the agent gave in
 * initialize, also when it sent its messages without waiting for the answers.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import {spawn} from 'node:child_process'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {KB_BIN, startChildDaemon, startInProcessDaemon, type TestDaemon} from '../helpers/daemon.js'
import {cleanup, makeUser} from '../cli/helpers.js'

let d: TestDaemon
let client: Client
let id: string

beforeAll(async () => {
  d = await startInProcessDaemon()
  const res = await d.request('POST', '/knowledge', {
    body: {title: 'Webhook retries pile up', body: 'The webhook queue retries forever; cap retries at 5 with backoff.', scope: 'global'},
  })
  id = res.body.id
  client = new Client({name: 'kb-recall-test', version: '1.0.0'})
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), {requestInit: {headers: {authorization: `Bearer ${d.ownerKey}`}}}),
  )
})

afterAll(async () => {
  await client?.close().catch(() => undefined)
  await d?.stop()
})

describe('the recall record of MCP reads', () => {
  it('records search_knowledge and get_knowledge with the entries given; a REST read is not recorded', async () => {
    const found = (await client.callTool({name: 'search_knowledge', arguments: {query: 'webhook retries'}})) as CallToolResult
    expect(found.isError).toBeFalsy()
    const got = (await client.callTool({name: 'get_knowledge', arguments: {id}})) as CallToolResult
    expect(got.isError).toBeFalsy()
    expect((await d.request('GET', `/knowledge/${id}`)).status).toBe(200)
    expect((await d.request('GET', '/search', {query: {q: 'webhook'}})).status).toBe(200)
    const log = await d.request('GET', '/recalls')
    expect(log.status).toBe(200)
    const items = log.body.items as Array<Record<string, any>>
    expect(items.map((r) => r.source)).toEqual(['mcp_get', 'mcp_search'])
    expect(items[1]).toMatchObject({query: 'webhook retries', client: 'mcp'})
    expect(items[1]!.items[0]).toMatchObject({id, detail: 'summary', freshness: 'fresh'})
    expect(items[1]!.items[0].score).toBeGreaterThan(0)
    expect(items[0]!.items).toEqual([expect.objectContaining({id, detail: 'standard', freshness: 'fresh', score: null})])
  })

  it('over stdio (kb mcp), records under the name the agent gave in initialize', async () => {
    const user = makeUser()
    const child = await startChildDaemon({dataDir: user.dataDir})
    const stdio = new Client({name: 'claude-code', version: '2.1.0'})
    try {
      await stdio.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [KB_BIN, 'mcp'],
          cwd: user.home,
          env: {...user.env, KB_BASE_URL: child.url},
        }),
      )
      const r = (await stdio.callTool({name: 'search_knowledge', arguments: {query: 'anything at all'}})) as CallToolResult
      expect(r.isError).toBeFalsy()
      const log = await child.request('GET', '/recalls')
      expect(log.body.items[0]).toMatchObject({source: 'mcp_search', client: 'claude-code', query: 'anything at all', items: []})
    } finally {
      await stdio.close().catch(() => undefined)
      await child.stop()
      await cleanup(user)
    }
  })

  it("keeps the agent's name when it sends initialize, initialized and a call at once, before kb mcp has started", async () => {
    const user = makeUser()
    const child = await startChildDaemon({dataDir: user.dataDir})
    const mcp = spawn(process.execPath, [KB_BIN, 'mcp'], {cwd: user.home, env: {...user.env, KB_BASE_URL: child.url}})
    try {
      let out = ''
      mcp.stdout.on('data', (b: Buffer) => (out += b.toString()))
      const lines = [
        {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'eager-agent', version: '1'}},
        },
        {jsonrpc: '2.0', method: 'notifications/initialized'},
        {jsonrpc: '2.0', id: 1, method: 'tools/call', params: {name: 'search_knowledge', arguments: {query: 'all at once'}}},
      ]
      // All three in the pipe before the process reads any: the SDK then handles the notification first.
      mcp.stdin.write(lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
      for (let i = 0; i < 300 && !out.includes('"id":1'); i++) await new Promise((r) => setTimeout(r, 100))
      expect(out).toContain('"id":1')
      const log = await child.request('GET', '/recalls')
      expect(log.body.items[0]).toMatchObject({source: 'mcp_search', client: 'eager-agent', query: 'all at once'})
    } finally {
      mcp.kill()
      await child.stop()
      await cleanup(user)
    }
  }, 60_000)
})
