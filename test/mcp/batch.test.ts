/**
 * JSON-RPC batches at the MCP endpoint (docs/mcp.md, "Batches"; issue 24): a batch is answered message by
 * message, in order, notifications without an answer; a batch of searches over 200 entries of 100,000
 * characters holds the event loop no longer than one search's slice (before: 9.8 s for five).
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../helpers/daemon.js'
import {globalImport, longestHold} from '../helpers/loop-hold.js'

const LOREM = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore '
const BIG = LOREM.repeat(Math.ceil(100_000 / LOREM.length)).slice(0, 100_000)
/** CPU time between two turns of the loop, generous; `npm run bench:hostile` records the real wait. */
const LOOP_BOUND_MS = 200

let d: TestDaemon

beforeAll(async () => {
  d = await startInProcessDaemon()
  for (let batch = 0; batch < 4; batch++) {
    const res = await d.request('POST', '/import', {raw: globalImport(50, BIG), contentType: 'application/x-ndjson'})
    expect(res.status).toBe(200)
  }
}, 180_000)
afterAll(async () => {
  await d?.stop()
})

const post = (body: unknown): Promise<Response> =>
  fetch(`${d.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${d.ownerKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify(body),
  })
const search = (id: number, query: string): object => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {name: 'search_knowledge', arguments: {query, limit: 100}},
})

describe('MCP batches', () => {
  it('are answered in order, one answer per request, none for a notification', async () => {
    const res = await post([
      {jsonrpc: '2.0', id: 1, method: 'tools/list'},
      {jsonrpc: '2.0', method: 'notifications/initialized'},
      search(2, 'lorem'),
    ])
    expect(res.status).toBe(200)
    const answers = (await res.json()) as Array<{id: number; result: Record<string, any>}>
    expect(answers.map((a) => a.id)).toEqual([1, 2])
    expect(answers[0]!.result.tools.length).toBeGreaterThan(5)
    expect(answers[1]!.result.structuredContent.total).toBe(200)
  })

  it('five searches over 200 × 100,000 characters hold the loop no longer than a slice', {timeout: 120_000}, async () => {
    const {result, worstMs} = await longestHold(async () => {
      const res = await post([1, 2, 3, 4, 5].map((i) => search(i, 'lorem ipsum dolor sit amet')))
      return {status: res.status, answers: (await res.json()) as unknown[]}
    })
    expect(result.status).toBe(200)
    expect(result.answers).toHaveLength(5)
    expect(worstMs).toBeLessThan(LOOP_BOUND_MS)
  })

  it('a batch over the SDK bound is refused whole', async () => {
    const res = await post(Array.from({length: 101}, (_, i) => ({jsonrpc: '2.0', id: i, method: 'tools/list'})))
    expect(res.status).toBe(400)
  })
})
