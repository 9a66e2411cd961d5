/**
 * @module MCP `join_project` when joining waits for a maintainer (docs/mcp.md, "join_project"): with the real SDK client
 * against a real daemon, the answer is no error, says the request is pending and who must approve, and carries the
 * request; once approved the same call joins; an invitation link's token joins at once.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../helpers/daemon.js'

const REMOTE = 'git@github.com:acme/mcp-pending.git'
let d: TestDaemon
let alice: string
let projectId: string
const clients: Client[] = []

async function joinAs(key: string, args: Record<string, unknown>): Promise<{text: string; result: CallToolResult}> {
  const c = new Client({name: 'kb-test', version: '1.0.0'})
  await c.connect(new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), {requestInit: {headers: {authorization: `Bearer ${key}`}}}))
  clients.push(c)
  const result = (await c.callTool({name: 'join_project', arguments: args})) as CallToolResult
  return {text: result.content.map((p) => (p.type === 'text' ? p.text : '')).join(''), result}
}

beforeAll(async () => {
  d = await startInProcessDaemon()
  alice = await newPrincipal(d, 'alice')
  projectId = (await d.request('POST', '/projects/join', {key: alice, body: {remote: REMOTE}})).body.project.id
})
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined)
  await d?.stop()
})

describe('MCP join_project of a project that needs approval', () => {
  it('tells the agent the request is pending and a maintainer must approve it; joins once approved', async () => {
    const bob = await newPrincipal(d, 'bob')
    const pending = await joinAs(bob, {remote: REMOTE})
    expect(pending.result.isError, pending.text).toBeFalsy()
    expect(pending.text).toMatch(/request is pending/)
    expect(pending.text).toMatch(/maintainer of the project must approve/)
    expect(pending.text).toContain(projectId)
    expect(pending.result.structuredContent).toMatchObject({project: {id: projectId, name: 'mcp-pending'}, request: {status: 'pending'}})

    const [request] = (await d.request('GET', `/projects/${projectId}/requests`, {key: alice})).body.items
    expect((await d.request('POST', `/projects/${projectId}/requests/${request.id}/approve`, {key: alice})).status).toBe(200)
    const joined = await joinAs(bob, {remote: REMOTE})
    expect(joined.result.isError, joined.text).toBeFalsy()
    expect(joined.text).toMatch(/^Joined project mcp-pending/)
    expect(joined.result.structuredContent).toMatchObject({project: {id: projectId, role: 'member'}, created: false})
  })

  it("joins at once with an invitation link's token", async () => {
    const {token} = (await d.request('POST', `/projects/${projectId}/invitations`, {key: alice, body: {link: true}})).body
    const carol = await newPrincipal(d, 'carol')
    const joined = await joinAs(carol, {remote: REMOTE, invitation: token})
    expect(joined.result.isError, joined.text).toBeFalsy()
    expect(joined.text).toMatch(/^Joined project/)
  })
})
