/**
 * @module A team server's faults: a daemon killed (SIGKILL) while two daemons take concurrent creates loses no
 * write it acknowledged and the other keeps serving; PostgreSQL stopped and restarted under a running daemon
 * gives 503 `unavailable` with Retry-After within a bounded time (never a 500, never a hang) and then recovers
 * without a restart of the daemon; a store that cannot be reached at start-up is a clear error.
 */
import {spawnSync} from 'node:child_process'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ChildDaemon, KB_BIN, startChildDaemon, startInProcessDaemon, type TestDaemon, tempDir} from '../../helpers/daemon.js'
import {useCluster} from '../../helpers/postgres.js'
import {requireSystem} from '../../helpers/system.js'

const postgres = requireSystem('postgres')

/** How long a request may take while the database is away: the pool's connect timeout (5 s) and some slack on a busy machine. */
const BOUND_MS = 15_000

postgres.describe('a daemon killed under load', () => {
  const cluster = useCluster()
  let a: ChildDaemon
  let b: ChildDaemon
  beforeAll(async () => {
    const storeUrl = await cluster().createDatabase()
    a = await startChildDaemon({storeUrl})
    b = await startChildDaemon({storeUrl})
  }, 120_000)
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
  })

  it('loses no acknowledged create when one of two daemons is SIGKILLed, and the other keeps serving', async () => {
    const key = a.ownerKey
    const acknowledged = new Map<string, string>()
    let killed = false
    let n = 0
    // Four writers per daemon, each creating entries one after another until told to stop.
    const writer = async (d: ChildDaemon, until: () => boolean): Promise<void> => {
      while (!until()) {
        const title = `entry ${n++} via ${d === a ? 'a' : 'b'}`
        try {
          const res = await d.request('POST', '/knowledge', {
            key,
            body: {title, body: `written while ${killed ? 'a was dead' : 'both ran'}`, scope: 'global'},
          })
          if (res.status === 201) acknowledged.set(res.body.id, title)
          else expect(res.status, res.text).toBe(503)
        } catch {
          // The connection to the killed daemon broke: not acknowledged, so nothing is owed.
          expect(d).toBe(a)
          await new Promise((r) => setTimeout(r, 20))
        }
      }
    }
    let stop = false
    const writers = [
      ...Array.from({length: 4}, () => writer(a, () => stop || killed)),
      ...Array.from({length: 4}, () => writer(b, () => stop)),
    ]
    while (acknowledged.size < 60) await new Promise((r) => setTimeout(r, 20))
    a.child.kill('SIGKILL')
    killed = true
    await a.exited
    const atKill = acknowledged.size
    while (acknowledged.size < atKill + 30) await new Promise((r) => setTimeout(r, 20))
    stop = true
    await Promise.all(writers)

    // Every acknowledged create is there, read through the survivor, and nothing else is.
    const listed = new Map<string, string>()
    let cursor: string | null = null
    do {
      const page: {body: {items: Array<{id: string; title: string}>; next_cursor: string | null}} = await b.request('GET', '/knowledge', {
        key,
        query: {limit: 100, ...(cursor ? {cursor} : {})},
      })
      for (const e of page.body.items) listed.set(e.id, e.title)
      cursor = page.body.next_cursor
    } while (cursor)
    for (const [id, title] of acknowledged) expect(listed.get(id), `acknowledged ${title} (${id})`).toBe(title)
    // A create in flight when a died may have committed without its answer arriving: at most one per writer.
    expect(listed.size - acknowledged.size).toBeGreaterThanOrEqual(0)
    expect(listed.size - acknowledged.size).toBeLessThanOrEqual(4)
    expect((await b.request('GET', '/health', {key: null})).status).toBe(200)
  }, 180_000)
})

postgres.describe('PostgreSQL restarting under a running daemon', () => {
  const cluster = useCluster()
  let d: TestDaemon
  beforeAll(async () => {
    d = await startInProcessDaemon({storeUrl: await cluster().createDatabase(), logLevel: 'silent'})
  }, 120_000)
  afterAll(async () => {
    await d?.stop()
  })

  /** A request, timed; a fetch that failed outright would be a daemon that went away, which must not happen. */
  async function timed(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{status: number; ms: number; retryAfter: string | null; code?: string}> {
    const started = performance.now()
    const res = await d.request(method, path, body === undefined ? {} : {body})
    return {status: res.status, ms: performance.now() - started, retryAfter: res.headers.get('retry-after'), code: res.body?.code}
  }

  it('answers 503 unavailable with Retry-After while it is down, then recovers by itself', async () => {
    const before = await d.request('POST', '/knowledge', {body: {title: 'Written before the restart', body: 'b', scope: 'global'}})
    expect(before.status).toBe(201)

    cluster().stopServer()
    const down = [
      await timed('GET', `/knowledge/${before.body.id}`),
      await timed('POST', '/knowledge', {title: 'Written while down', body: 'b'}),
      await timed('GET', '/search?q=restart'),
      await timed('GET', '/health'),
    ]
    for (const r of down) {
      expect(r).toMatchObject({status: 503, retryAfter: '2', code: 'unavailable'})
      expect(r.ms).toBeLessThan(BOUND_MS)
    }
    const health = await d.request('GET', '/health', {key: null})
    expect(health.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(health.body).toMatchObject({status: 503, code: 'unavailable', store: {kind: 'postgres', answers: false}})

    cluster().startServer()
    // The pool opens new connections on the next requests: no daemon restart.
    let recovered = false
    for (let i = 0; i < 100 && !recovered; i++) {
      recovered = (await d.request('GET', '/health', {key: null})).status === 200
      if (!recovered) await new Promise((r) => setTimeout(r, 100))
    }
    expect(recovered).toBe(true)
    expect((await d.request('GET', `/knowledge/${before.body.id}`)).body.title).toBe('Written before the restart')
    expect((await d.request('POST', '/knowledge', {body: {title: 'Written after the restart', body: 'b', scope: 'global'}})).status).toBe(
      201,
    )
  }, 120_000)

  it('while requests keep coming during a restart: every answer is a success or a 503, none hangs', async () => {
    const statuses = new Map<number, number>()
    let stop = false
    const client = async (): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const r =
          i % 2 === 0
            ? await timed('POST', '/knowledge', {title: `During the restart ${i}`, body: 'b'})
            : await timed('GET', '/search?q=restart')
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1)
        expect([200, 201, 503]).toContain(r.status)
        expect(r.ms).toBeLessThan(BOUND_MS)
        if (r.status === 503) await new Promise((res) => setTimeout(res, 50))
      }
    }
    const clients = Array.from({length: 4}, client)
    await new Promise((r) => setTimeout(r, 300))
    await cluster().restart(1_000)
    await new Promise((r) => setTimeout(r, 1_000))
    // Keep going until the daemon answers successes again.
    const deadline = Date.now() + 30_000
    while (Date.now() < deadline && (await d.request('GET', '/health', {key: null})).status !== 200)
      await new Promise((r) => setTimeout(r, 100))
    stop = true
    await Promise.all(clients)
    expect(statuses.get(503) ?? 0).toBeGreaterThan(0)
    expect((await d.request('POST', '/knowledge', {body: {title: 'After', body: 'b'}})).status).toBe(201)
  }, 120_000)
})

describe('a store that cannot be reached at start-up', () => {
  it('is a clear error naming the database without its password, and no stack trace', () => {
    const r = spawnSync(
      process.execPath,
      [KB_BIN, 'daemon', 'run', '--port', '0', '--data-dir', tempDir(), '--store-url', 'postgres://kb:s3cret@127.0.0.1:1/kb'],
      {encoding: 'utf8', timeout: 60_000},
    )
    expect(r.status).toBe(1)
    // oclif wraps the message over lines starting with ›.
    expect(r.stderr.replace(/\s*\n\s*›\s*/g, ' ')).toContain(
      'could not open the PostgreSQL store postgres://kb:***@127.0.0.1:1/kb: connect ECONNREFUSED',
    )
    expect(r.stderr).not.toContain('s3cret')
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })

  it('refuses a store URL that is not PostgreSQL', () => {
    const r = spawnSync(
      process.execPath,
      [KB_BIN, 'daemon', 'run', '--port', '0', '--data-dir', tempDir(), '--store-url', 'mysql://x@y/z'],
      {encoding: 'utf8', timeout: 60_000},
    )
    expect(r.status).toBe(1)
    expect(r.stderr.replace(/\s*\n\s*›\s*/g, ' ')).toContain('the store URL must be postgres://')
  })
})
