/**
 * @module MCP tools with short ids over Streamable HTTP (docs/mcp.md, "Short ids"), on both drivers: every tool taking an
 * entry takes a unique start or end of its id; an ambiguous one is a tool error listing the candidates the caller may
 * see; an entry the caller may not see is never one.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../helpers/daemon.js'
import {craftEntries} from '../helpers/crafted-ids.js'

let d: TestDaemon
let owner: Client
let bob: Client
const clients: Client[] = []

const A = '01930000-0000-7000-8000-0a4c5b6a7980'
const B = '01931111-1111-7111-8111-1a4c5b6a7980'
const HIDDEN = '01932222-3333-7333-8333-3333dead5eed'
const SEEN = '01933333-4444-7444-8444-4444dead5eed'

async function connect(key: string): Promise<Client> {
  const c = new Client({name: 'kb-test', version: '1.0.0'})
  await c.connect(new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), {requestInit: {headers: {authorization: `Bearer ${key}`}}}))
  clients.push(c)
  return c
}

const call = async (c: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  (await c.callTool({name, arguments: args})) as CallToolResult
const textOf = (r: CallToolResult): string => r.content.map((p) => (p.type === 'text' ? p.text : '')).join('')
const entry = async (id: string): Promise<Record<string, any>> => (await d.request('GET', `/knowledge/${id}`)).body

beforeAll(async () => {
  d = await startInProcessDaemon()
  await craftEntries(d, [
    {id: A, title: 'Alpha entry', scope: 'global'},
    {id: B, title: 'Bravo entry', scope: 'global'},
    {id: HIDDEN, title: 'Owner only', scope: 'private'},
    {id: SEEN, title: 'Everyone sees this', scope: 'global'},
  ])
  owner = await connect(d.ownerKey)
  bob = await connect(await newPrincipal(d, 'bob-short'))
})
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined)
  await d?.stop()
})

describe('MCP tools take short ids', () => {
  it('get, comment, verify, flag (duplicate_of), supersede (by), resolve, update, publish and fork take a start or an end', async () => {
    const got = await call(owner, 'get_knowledge', {id: '0a4c5b6a7980'})
    expect(got.isError, textOf(got)).toBeFalsy()
    expect((got.structuredContent as Record<string, any>).entry.id).toBe(A)
    expect((await call(owner, 'get_knowledge', {id: '01931111-1111'})).structuredContent).toMatchObject({entry: {id: B}})
    const commented = await call(owner, 'comment_on_knowledge', {id: '1a4c5b6a7980', body: 'Seen on arm64.'})
    expect(textOf(commented)).toContain(`to entry ${B}.`)
    expect(await call(owner, 'verify_knowledge', {id: '0a4c5b6a7980'})).not.toHaveProperty('isError', true)
    const flagged = await call(owner, 'flag_knowledge', {id: '1a4c5b6a7980', reason: 'duplicate', duplicate_of: '0a4c5b6a7980'})
    expect(flagged.isError, textOf(flagged)).toBeFalsy()
    expect((await entry(B)).flags).toMatchObject({duplicate: 1})
    const superseded = await call(owner, 'supersede_knowledge', {id: '01931111', by: '019300000000'})
    expect(superseded.isError, textOf(superseded)).toBeFalsy()
    expect((await entry(B)).superseded_by).toBe(A)
    expect((await call(owner, 'update_knowledge', {id: '0a4c5b6a7980', title: 'Alpha entry, renamed'})).isError).toBeFalsy()
    expect((await entry(A)).title).toBe('Alpha entry, renamed')
    const forked = await call(owner, 'fork_knowledge', {id: '0a4c5b6a7980'})
    const fork = (forked.structuredContent as Record<string, any>).entry.id as string
    expect((await call(owner, 'publish_knowledge', {id: fork.slice(-9), scope: 'global'})).isError).toBeFalsy()
    expect((await call(owner, 'resolve_knowledge', {id: fork.slice(0, 23), note: 'done'})).isError).toBeFalsy()
    expect((await entry(fork)).status).toBe('resolved')
  })

  it('an ambiguous one is a tool error with the candidates the caller may see; a hidden entry is never one', async () => {
    const r = await call(owner, 'get_knowledge', {id: '4c5b6a7980'})
    expect(r.isError).toBe(true)
    expect(textOf(r)).toMatch(/^get_knowledge failed \(ambiguous_id\): 4c5b6a7980 is the start or end of 2 entries/)
    expect(textOf(r)).toContain(`\n- ${A}: Alpha entry`)
    expect(textOf(r)).toContain(`\n- ${B}: Bravo entry`)
    // The owner sees both dead5eed entries; bob only the global one, which is then the one meant.
    expect(textOf(await call(owner, 'get_knowledge', {id: 'dead5eed'}))).toContain('ambiguous_id')
    expect((await call(bob, 'get_knowledge', {id: 'dead5eed'})).structuredContent).toMatchObject({entry: {id: SEEN}})
    const hidden = await call(bob, 'get_knowledge', {id: '3333dead5eed'})
    expect(hidden.isError).toBe(true)
    expect(textOf(hidden)).toContain('(not_found)')
    expect(textOf(hidden)).not.toContain('Owner only')
  })

  it('too short: a tool error with the reason', async () => {
    const r = await call(owner, 'get_knowledge', {id: 'abc'})
    expect(r.isError).toBe(true)
    expect(textOf(r)).toContain('too short to name an entry: type at least 4 characters')
  })
})
