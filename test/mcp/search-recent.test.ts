/**
 * `search_knowledge` without a query (docs/mcp.md): the most recently updated entries, newest first, with the search's
 * filters; through `kb mcp` over stdio with the real SDK client and a child daemon.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {KB_BIN, startChildDaemon, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, makeUser, type KbEnv} from '../cli/helpers.js'

let d: ChildDaemon
let user: KbEnv
let client: Client

const textOf = (r: CallToolResult): string => r.content.map((p) => (p.type === 'text' ? p.text : '')).join('')

beforeAll(async () => {
  user = makeUser()
  d = await startChildDaemon({dataDir: user.dataDir})
  Object.assign(user.env, {KB_BASE_URL: d.url, KB_API_KEY: d.ownerKey})
  const transport = new StdioClientTransport({command: process.execPath, args: [KB_BIN, 'mcp'], cwd: user.home, env: user.env})
  client = new Client({name: 'kb-recent-test', version: '1.0.0'})
  await client.connect(transport)
}, 30_000)
afterAll(async () => {
  await client?.close()
  await d?.stop()
  if (user) await cleanup(user)
})

describe('search_knowledge without a query', () => {
  it('says nothing is recorded yet, then lists the newest first, filtered like a search', async () => {
    const empty = (await client.callTool({name: 'search_knowledge', arguments: {}})) as CallToolResult
    expect(empty.isError, textOf(empty)).toBeFalsy()
    expect(textOf(empty)).toMatch(/^Nothing recorded yet/)
    const ids: string[] = []
    for (const title of ['First finding', 'Second finding', 'Third finding']) {
      const r = await d.request('POST', '/knowledge', {body: {title, body: `${title} body.`, scope: 'global'}})
      ids.push(r.body.id)
    }
    expect((await d.request('POST', `/knowledge/${ids[0]}/resolve`, {body: {note: 'done'}})).status).toBe(200)
    const recent = (await client.callTool({name: 'search_knowledge', arguments: {}})) as CallToolResult
    expect(recent.isError, textOf(recent)).toBeFalsy()
    const items = (recent.structuredContent as {items: {title: string}[]}).items
    // The resolved one was updated last.
    expect(items.map((e) => e.title)).toEqual(['First finding', 'Third finding', 'Second finding'])
    expect(textOf(recent)).toMatch(/^Recent entries, newest first:\n1\. [0-9a-f-]{36} — First finding \[resolved/)
    const open = (await client.callTool({name: 'search_knowledge', arguments: {status: 'open', limit: 1}})) as CallToolResult
    expect((open.structuredContent as {items: {title: string}[]}).items.map((e) => e.title)).toEqual(['Third finding'])
    expect(textOf(open)).toContain('more entries: raise limit')
    const blank = (await client.callTool({name: 'search_knowledge', arguments: {query: '  '}})) as CallToolResult
    expect(blank.isError).toBe(true)
  })
})
