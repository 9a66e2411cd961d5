/**
 * @module Streamed requests (kb export, backup, import) go where the JSON client goes: to the address the
 * local daemon proved itself on, whatever the host name resolves to (docs/security.md).
 */
import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {httpClient} from '../../../src/cli/client/http-transport.js'
import {readJson, streamRequest} from '../../../src/cli/client/stream.js'
import {freePort} from '../helpers.js'

let server: Server
let port: number
const seen: IncomingHttpHeaders[] = []

beforeAll(async () => {
  // A port free on 127.0.0.1 (freePort checks there); the listener is on 127.0.0.2 only.
  port = await freePort()
  server = createServer((req, res) => {
    seen.push(req.headers)
    res.writeHead(200, {'content-type': 'application/json'}).end('{"ok":true}')
  })
  await new Promise<void>((r) => server.listen(port, '127.0.0.2', r))
})

afterAll(async () => {
  await new Promise((r) => server.close(r))
})

describe('streamRequest', () => {
  const client = (): ReturnType<typeof httpClient> => httpClient({baseUrl: `http://localhost:${port}/api/v1`, key: 'kb_secret'})

  it('connects to the pinned address, keeping the URL host in Host', async () => {
    const res = await streamRequest(client(), {method: 'GET', path: '/export', accept: 'application/x-ndjson'}, '127.0.0.2')
    expect(await readJson(res)).toEqual({ok: true})
    expect(seen.at(-1)).toMatchObject({host: `localhost:${port}`, authorization: 'Bearer kb_secret'})
  })

  it('without a pinned address goes where the name resolves (here 127.0.0.1, where nothing listens)', async () => {
    const before = seen.length
    await expect(
      streamRequest(client(), {method: 'GET', path: '/export', accept: 'application/x-ndjson'}, undefined),
    ).rejects.toMatchObject({
      code: 'unreachable',
    })
    expect(seen.length).toBe(before)
  })
})
