/**
 * The MCP tools of freshness (docs/mcp.md, "Freshness, verify and flag") over Streamable HTTP with the real
 * SDK client against a real in-process daemon: anchors on add and update, a stale entry's text and state
 * word, the `freshness` filter of search, verify_knowledge, flag_knowledge (replace, withdraw, bad
 * combinations), each effect checked through the REST API.
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
function ok(r: CallToolResult): Record<string, any> {
  expect(r.isError, textOf(r)).toBeFalsy()
  return r.structuredContent as Record<string, any>
}
const rest = async (id: string): Promise<Record<string, any>> =>
  (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body

beforeAll(async () => {
  d = await startInProcessDaemon()
  owner = await connect(d.ownerKey)
  bob = await connect(await newPrincipal(d, 'bob-trust'))
})

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined)
  await d?.stop()
})

describe('MCP freshness over Streamable HTTP', () => {
  it('add_knowledge takes anchors; a changed anchor makes the entry stale in its text, its state word and the freshness filter', async () => {
    const added = ok(
      await call(owner, 'add_knowledge', {
        title: 'Connection pool exhausted under load',
        body: 'Raise max in the pool settings.',
        scope: 'global',
        anchors: [
          {path: 'src/db/pool.ts', lines: '40-62'},
          {path: 'src/db/conn.ts', symbol: 'open'},
        ],
        detail: 'standard',
      }),
    )
    const id = added.entry.id as string
    expect(
      (await rest(id)).anchors.map((a: {path: string; lines: string | null; symbol: string | null; state: string}) => [
        a.path,
        a.lines,
        a.symbol,
        a.state,
      ]),
    ).toEqual([
      ['src/db/pool.ts', '40-62', null, 'unknown'],
      ['src/db/conn.ts', null, 'open', 'unknown'],
    ])
    expect(added.entry.freshness.state).toBe('fresh')

    const checked = await d.request('POST', `/knowledge/${id}/anchors/check`, {
      body: {commit: 'a1b2c3d4e5f6', results: [{path: 'src/db/pool.ts', lines: '40-62', state: 'changed'}]},
    })
    expect(checked.status, checked.text).toBe(200)

    const got = await call(owner, 'get_knowledge', {id, detail: 'standard'})
    const entry = ok(got).entry
    expect(entry.freshness).toMatchObject({state: 'stale', reasons: [{kind: 'anchor_changed'}]})
    const text = textOf(got)
    expect(text.split('\n')[0]).toBe(`${id} — Connection pool exhausted under load [open · stale · global]`)
    expect(text).toMatch(/^Stale:\n- anchor src\/db\/pool\.ts:40-62 changed in a1b2c3d.*$/m)
    expect(text).toContain('Anchors:\n- src/db/pool.ts:40-62 (changed, checked ')
    expect(text).toContain('- src/db/conn.ts#open (unknown)')

    const summary = ok(await call(owner, 'get_knowledge', {id, detail: 'summary'}))
    expect(summary.entry.freshness).toBe('stale')

    const other = ok(await call(owner, 'add_knowledge', {title: 'Connection pool sizing guide', body: 'Pool sizes.', scope: 'global'}))
      .entry.id
    const ids = async (freshness?: string): Promise<string[]> =>
      ok(await call(owner, 'search_knowledge', {query: 'connection pool', ...(freshness ? {freshness} : {})})).items.map(
        (i: {id: string}) => i.id,
      )
    expect(await ids()).toEqual(expect.arrayContaining([id, other]))
    expect(await ids('stale')).toEqual([id])
    expect(await ids('fresh')).toEqual([other])
    const hits = await call(owner, 'search_knowledge', {query: 'connection pool', freshness: 'stale'})
    expect(textOf(hits)).toContain('[open · stale]')
    expect(ok(hits).items[0].freshness).toBe('stale')

    // update_knowledge replaces the set; [] removes every anchor.
    ok(await call(owner, 'update_knowledge', {id, anchors: [{path: 'src/db/pool.ts', lines: '1-10'}]}))
    expect((await rest(id)).anchors.map((a: {lines: string}) => a.lines)).toEqual(['1-10'])
    ok(await call(owner, 'update_knowledge', {id, anchors: []}))
    expect((await rest(id)).anchors).toEqual([])
  })

  it('flag_knowledge flags, a repeat replaces, withdraw takes it back; verify_knowledge vouches and withdraws your own flag', async () => {
    const e = (await d.request('POST', '/knowledge', {body: {title: 'Set NODE_OPTIONS for the heap', body: 'Use 4096.', scope: 'global'}}))
      .body
    const flagged = await call(bob, 'flag_knowledge', {id: e.id, reason: 'incorrect', note: 'still runs out of memory', detail: 'standard'})
    expect(ok(flagged).entry.flags).toMatchObject({incorrect: 1})
    expect(textOf(flagged)).toMatch(/^Flagged incorrect: /)
    let r = await rest(e.id)
    expect(r.flags).toEqual({stale: 0, incorrect: 1, duplicate: 0, obsolete: 0})
    expect(r.freshness.state).toBe('stale')
    expect(r.freshness.reasons.map((x: {kind: string}) => x.kind)).toEqual(['flagged'])

    ok(await call(bob, 'flag_knowledge', {id: e.id, reason: 'obsolete'}))
    expect((await rest(e.id)).flags).toEqual({stale: 0, incorrect: 0, duplicate: 0, obsolete: 1})
    const withdrawn = await call(bob, 'flag_knowledge', {id: e.id, withdraw: true})
    ok(withdrawn)
    expect(textOf(withdrawn)).toMatch(/^Flag withdrawn/)
    r = await rest(e.id)
    expect(r.flags).toEqual({stale: 0, incorrect: 0, duplicate: 0, obsolete: 0})
    expect(r.freshness.state).toBe('fresh')
    // Withdrawing again changes nothing and is no error.
    ok(await call(bob, 'flag_knowledge', {id: e.id, withdraw: true}))

    ok(await call(bob, 'flag_knowledge', {id: e.id, reason: 'stale'}))
    const verified = await call(bob, 'verify_knowledge', {id: e.id, note: 'the fix worked on Node 22', detail: 'full'})
    expect(textOf(verified)).toMatch(/^Verified: /)
    expect(textOf(verified)).toContain('Verified 20')
    r = await rest(e.id)
    expect(r.freshness).toMatchObject({state: 'fresh', verified_by: {name: 'bob-trust'}})
    expect(r.freshness.verified_at).toEqual(expect.any(String))
    expect(r.flags.stale).toBe(0)
    expect(r.comments.map((c: {body: string}) => c.body)).toContainEqual(expect.stringContaining('the fix worked on Node 22'))
  })

  it('bad combinations and hidden entries are tool errors naming the problem', async () => {
    const mine = (await d.request('POST', '/knowledge', {body: {title: 'Owner private', body: 'x', scope: 'private'}})).body
    const g = (await d.request('POST', '/knowledge', {body: {title: 'Global one', body: 'x', scope: 'global'}})).body
    const cases: [Client, string, Record<string, unknown>, RegExp][] = [
      [owner, 'flag_knowledge', {id: g.id}, /give a reason/],
      [owner, 'flag_knowledge', {id: g.id, withdraw: true, reason: 'stale'}, /withdraw takes no reason/],
      [owner, 'flag_knowledge', {id: g.id, reason: 'wrong'}, /reason must be one of "stale", "incorrect", "duplicate", "obsolete"/],
      [owner, 'flag_knowledge', {id: g.id, reason: 'stale', duplicate_of: mine.id}, /validation_failed/],
      [owner, 'verify_knowledge', {id: g.id, extra: 1}, /unknown argument "extra"/],
      [owner, 'add_knowledge', {title: 'T', body: 'B', anchors: [{path: '../etc/passwd'}]}, /anchors\.0\.path must match pattern/],
      [owner, 'add_knowledge', {title: 'T', body: 'B', anchors: [{path: 'a.ts', lines: '9-3'}]}, /validation_failed/],
      [bob, 'verify_knowledge', {id: mine.id}, /not_found/],
      [bob, 'flag_knowledge', {id: mine.id, reason: 'stale'}, /not_found/],
    ]
    for (const [c, name, args, message] of cases) {
      const r = await call(c, name, args)
      expect(r.isError, `${name} ${JSON.stringify(args)}: ${textOf(r)}`).toBe(true)
      expect(textOf(r), `${name} ${JSON.stringify(args)}`).toMatch(message)
    }
    expect((await rest(g.id)).flags).toEqual({stale: 0, incorrect: 0, duplicate: 0, obsolete: 0})
  })

  it('review_queue lists what needs a curator, most used first, each with why; what the tools change is recorded as through MCP', async () => {
    const added = ok(await call(bob, 'add_knowledge', {title: 'Review me: the cache never expires', body: 'Set a TTL.', scope: 'global'}))
    const id = added.entry.id as string
    ok(await call(owner, 'flag_knowledge', {id, reason: 'obsolete', note: 'the cache is gone'}))
    const r = ok(await call(bob, 'review_queue', {kind: 'flagged'}))
    expect(r.counts.flagged).toBeGreaterThanOrEqual(1)
    const item = r.items.find((i: any) => i.id === id)
    expect(item.reasons).toContain('flagged: obsolete ×1')
    expect(textOf(await call(bob, 'review_queue', {kind: 'flagged'}))).toMatch(/Review me: the cache never expires \[.*flagged: obsolete/)
    const history = (await d.request('GET', `/knowledge/${id}/history`)).body.items
    expect(history.map((h: any) => [h.action, h.actor.name, h.actor.via])).toEqual([
      ['created', 'bob-trust', 'mcp'],
      ['flagged', 'owner', 'mcp'],
    ])
  })
})
