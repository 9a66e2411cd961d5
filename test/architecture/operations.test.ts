/**
 * Architecture guard: the daemon serves exactly the operations table (src/shared/operations.ts), which the API
 * client calls from. Every route of the route table `buildApp` registers is a table operation with the same method
 * and path, and every table operation is one of them; every path the daemon serves under the API's prefix is a
 * table path or one of the protocol endpoints documented beside it (OAuth, MCP); and each table operation, asked
 * over HTTP with its own method, reaches a route (not the 404 of an unknown route, nor a 405).
 */
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildApp, type KbApp} from '../../server/app.js'
import {oauthOpenApiPaths} from '../../server/oauth/openapi-paths.js'
import {mcpOpenApiPaths} from '../../server/routes/mcp.js'
import {openSqliteStore} from '../../server/store/sqlite.js'
import {OPERATIONS, type OperationId} from '../../src/shared/operations.js'
import {API_PATH} from '../../src/shared/paths.js'
import {tempDir} from '../helpers/daemon.js'

let dir: string
let kb: KbApp
let base: string

beforeAll(async () => {
  dir = tempDir('kb-operations-')
  const store = openSqliteStore({path: join(dir, 'kb.sqlite')})
  kb = await buildApp({store, version: '9.9.9-test', logLevel: 'silent'})
  kb.app.addHook('onClose', async () => store.close())
  await kb.app.listen({host: '127.0.0.1', port: 0})
  const address = kb.app.server.address()
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}${API_PATH}`
})
afterAll(async () => {
  await kb.app.close()
  rmSync(dir, {recursive: true, force: true})
})

const ids = Object.keys(OPERATIONS) as OperationId[]
const line = (method: string, path: string, id: string): string => `${method} ${path} ${id}`

/** Every path fastify serves, read from its route tree (`printRoutes`): one segment per line, indented 4 per level. */
function servedPaths(tree: string): string[] {
  const stack: string[] = []
  const out: string[] = []
  for (const row of tree.split('\n')) {
    const m = /^([│ ├└─]*?)(?:[├└]── )(\S+) \(/.exec(row)
    if (!m) continue
    const depth = m[1]!.length / 4
    stack.length = depth
    stack.push(m[2]!)
    out.push(stack.join('').replace(/^\/+/, '/'))
  }
  return out
}

describe('the operations table', () => {
  it('is the route table buildApp registers: same operation ids, methods and paths', () => {
    const registered = kb.routes.map((r) => line(r.method, r.path, r.operationId)).sort()
    const table = ids.map((id) => line(OPERATIONS[id].method, OPERATIONS[id].path, id)).sort()
    expect(registered).toEqual(table)
    expect(new Set(registered).size).toBe(registered.length)
  })

  it('covers every path served under the API prefix, besides the OAuth and MCP protocol endpoints', () => {
    const served = servedPaths(kb.app.printRoutes({commonPrefix: false}))
    // Positive control: the reader sees the tree's leaves, nested ones included.
    expect(served).toContain(`${API_PATH}/knowledge/:id/flags/mine`)
    expect(served).toContain(`${API_PATH}/projects/:id/requests/:request_id/approve`)
    const table = new Set(ids.map((id) => API_PATH + OPERATIONS[id].path))
    const protocol = new Set(Object.keys({...oauthOpenApiPaths(), ...mcpOpenApiPaths()}).map((p) => API_PATH + p))
    const strays = served
      .filter((p) => p.startsWith(`${API_PATH}/`) && !table.has(p) && !protocol.has(p))
      // Discovery documents live at names RFC 8414 and RFC 9728 fix, under the API's paths as well as the root.
      .filter((p) => !p.includes('/.well-known/'))
    expect(strays).toEqual([])
  })

  it('each operation, asked with its method, reaches its route (not an unknown route or a wrong method)', async () => {
    const missed: string[] = []
    for (const id of ids) {
      const {method, path} = OPERATIONS[id]
      const url = base + path.replace(/:[a-z_]+/g, '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980')
      const res = await fetch(url, {method, ...(method === 'GET' ? {} : {headers: {'content-type': 'application/json'}, body: '{}'})})
      const body = (await res.text()).slice(0, 300)
      if (res.status === 405 || (res.status === 404 && body.includes('no route'))) missed.push(`${id}: ${res.status} ${body}`)
    }
    expect(missed).toEqual([])
  })

  it('an unknown route is told apart by that probe (positive control)', async () => {
    const res = await fetch(`${base}/knowledge/0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980/nothing`, {method: 'POST'})
    expect(res.status).toBe(404)
    expect(await res.text()).toContain('no route')
    expect((await fetch(`${base}/search`, {method: 'DELETE'})).status).toBe(405)
  })
})
