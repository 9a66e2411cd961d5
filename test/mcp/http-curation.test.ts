/**
 * @module MCP curation over Streamable HTTP (docs/mcp.md, "Similar entries, supersede"): add_knowledge answers the
 * similar entries (text and structured output) and its description says to comment instead; review_queue names the
 * pair; supersede_knowledge retires an entry, and only for whoever may.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../helpers/daemon.js'

let d: TestDaemon
let owner: Client
let bob: Client
const clients: Client[] = []

async function connect(key: string): Promise<Client> {
  const c = new Client({name: 'kb-test', version: '1.0.0'})
  await c.connect(new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), {requestInit: {headers: {authorization: `Bearer ${key}`}}}))
  clients.push(c)
  return c
}

const call = async (c: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  (await c.callTool({name, arguments: args})) as CallToolResult
const textOf = (r: CallToolResult): string => r.content.map((p) => (p.type === 'text' ? p.text : '')).join('')

beforeAll(async () => {
  d = await startInProcessDaemon()
  owner = await connect(d.ownerKey)
  bob = await connect(await newPrincipal(d, 'bob-curation'))
})
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined)
  await d?.stop()
})

const ORIGINAL = {
  title: 'Badger importer fails: error: badger header missing (line 1)',
  body: 'The badger importer stops with `error: badger header missing (line 1)` on files saved by Excel. Save as UTF-8 CSV without BOM.',
  scope: 'global',
}
const COPY = {
  title: 'badger header missing (line 1) when importing Excel files',
  body: 'Importing an Excel export fails: error: badger header missing (line 1). Saving the file as UTF-8 CSV without BOM fixed it.',
  scope: 'global',
}

describe('MCP curation', () => {
  it('add_knowledge lists similar entries in its text and structured output, and says to comment instead', async () => {
    const tools = (await owner.listTools()).tools
    expect(tools.find((t) => t.name === 'add_knowledge')!.description).toContain(
      'comment on it (comment_on_knowledge) instead of adding a copy',
    )
    const first = await call(owner, 'add_knowledge', ORIGINAL)
    expect(first.isError, textOf(first)).toBeFalsy()
    expect((first.structuredContent as Record<string, any>).similar).toEqual([])
    expect(textOf(first)).not.toContain('Similar entries')
    const firstId = (first.structuredContent as Record<string, any>).entry.id
    const copy = await call(bob, 'add_knowledge', COPY)
    expect(copy.isError, textOf(copy)).toBeFalsy()
    const s = copy.structuredContent as Record<string, any>
    expect(s.similar[0]).toMatchObject({id: firstId, title: ORIGINAL.title})
    expect(textOf(copy)).toContain('Similar entries already exist; if one says the same, comment on it (comment_on_knowledge)')
    expect(textOf(copy)).toContain(firstId)
  })

  it('review_queue lists the copy as similar, naming the entry it looks like (similar_to)', async () => {
    const r = await call(bob, 'review_queue', {kind: 'similar'})
    expect(r.isError, textOf(r)).toBeFalsy()
    const s = r.structuredContent as Record<string, any>
    expect(s.counts.similar).toBe(1)
    expect(s.items).toHaveLength(1)
    expect(s.items[0]).toMatchObject({title: COPY.title, similar_to: [expect.any(String)]})
    expect(textOf(r)).toContain(`similar: looks like ${s.items[0].similar_to[0]} "${ORIGINAL.title}"`)
  })

  it('supersede_knowledge retires an entry for its author; another principal is refused', async () => {
    const a = (await call(bob, 'add_knowledge', {title: 'Mole tunnel v1', body: 'Dig mole tunnels with v1.', scope: 'global'}))
      .structuredContent as any
    const b = (await call(bob, 'add_knowledge', {title: 'Mole tunnel v2', body: 'v2 digs itself.', scope: 'global'}))
      .structuredContent as any
    const refused = await call(owner, 'supersede_knowledge', {id: a.entry.id, by: b.entry.id}).catch((e: Error) => e)
    // The owner moderates: allowed. A principal who is neither is refused.
    expect((refused as CallToolResult).isError, textOf(refused as CallToolResult)).toBeFalsy()
    const undo = await d.request('POST', `/knowledge/${a.entry.id}/supersede`, {body: {by: null}})
    expect(undo.status).toBe(200)
    const carol = await connect(await newPrincipal(d, 'carol-curation'))
    const no = await call(carol, 'supersede_knowledge', {id: a.entry.id, by: b.entry.id})
    expect(no.isError).toBe(true)
    expect(textOf(no)).toMatch(/forbidden/)
    const yes = await call(bob, 'supersede_knowledge', {id: a.entry.id, by: b.entry.id, note: 'v2 replaces it', detail: 'standard'})
    expect(yes.isError, textOf(yes)).toBeFalsy()
    expect((yes.structuredContent as any).entry.superseded_by).toBe(b.entry.id)
    expect(textOf(yes)).toContain(`Superseded by ${b.entry.id}`)
    // A read at summary level names the replacement too (docs/api.md, "Supersede").
    const read = await call(bob, 'get_knowledge', {id: a.entry.id, detail: 'summary'})
    expect(textOf(read)).toContain(`[superseded by ${b.entry.id} · open`)
  })
})
