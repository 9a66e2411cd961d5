/**
 * The background send stays bounded (docs/cli.md, "Offline writes", "Behind the next command"): a server that
 * answers the command but never answers the read that settles a queued edit holds the command's process for
 * the background budget (3 s), not for a request's full timeout; the edit keeps waiting, nothing is lost.
 */
import {createServer, request, type Server} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startChildDaemon, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, freePort, kb, makeUser, type KbEnv} from './helpers.js'

let user: KbEnv
let d: ChildDaemon
const OFF = {KB_NO_AUTOSTART: '1'}

beforeAll(async () => {
  user = makeUser()
  d = await startChildDaemon({dataDir: user.dataDir})
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

/** An HTTP relay to the daemon on `port` that never answers a GET of one entry (the read that settles an edit). */
async function stallingRelay(port: number, daemonPort: number): Promise<{server: Server; stalled: () => number}> {
  let stalled = 0
  const server = createServer((req, res) => {
    if (req.method === 'GET' && /^\/api\/v1\/knowledge\/[^/?]+/.test(req.url ?? '')) {
      stalled++
      return // never answered
    }
    const up = request({host: '127.0.0.1', port: daemonPort, method: req.method, path: req.url, headers: req.headers}, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers)
      r.pipe(res)
    })
    up.on('error', () => res.destroy())
    req.pipe(up)
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {server, stalled: () => stalled}
}

describe('the background send', () => {
  it('ends within its budget when the server stalls the read of a queued edit, and the edit keeps waiting', async () => {
    const created = (await d.request('POST', '/knowledge', {body: {title: 'Stalled edit', body: 'b', scope: 'global'}})).body
    // A key of its own: owner.key goes only to a daemon that proves itself at the address reached, which a relay is not.
    const key = (await d.request<{key: string}>('POST', '/api-keys', {body: {name: 'through the relay'}})).body.key
    const port = await freePort()
    const env = {...OFF, KB_BASE_URL: `http://127.0.0.1:${port}/api/v1`, KB_API_KEY: key}
    // Nothing listens yet: the edit queues, made without reading the entry.
    const queued = await kb(user, ['edit', created.id, '--tag', 'later', '--json'], {env})
    expect(queued.code, queued.stderr).toBe(0)
    expect(JSON.parse(queued.stdout)).toMatchObject({queued: true})

    const relay = await stallingRelay(port, Number(new URL(d.url).port))
    try {
      const started = Date.now()
      const list = await kb(user, ['list', '--json'], {env, timeoutMs: 60_000})
      const took = Date.now() - started
      expect(list.code, list.stderr).toBe(0)
      expect(JSON.parse(list.stdout).items.map((e: {id: string}) => e.id)).toContain(created.id)
      expect(relay.stalled()).toBeGreaterThan(0)
      // The client's own timeout is 30 s; the background budget is 3 s (plus start-up).
      expect(took).toBeLessThan(12_000)
      const status = JSON.parse((await kb(user, ['sync', '--status', '--json'], {env})).stdout)
      expect(status.items.map((i: {command: string; label: string}) => [i.command, i.label])).toEqual([['edit', created.id]])
    } finally {
      relay.server.closeAllConnections()
      relay.server.close()
    }
  }, 120_000)
})
