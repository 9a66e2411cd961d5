/**
 * @module The daemon as a process (the built `kb daemon run`): one per data directory, the owner
 * bootstrap and daemon.json on disk, the Host check, a graceful stop on SIGTERM and SIGINT that finishes
 * a request in flight, structured logs, and taking over the lock of a daemon that died.
 */
import {spawn} from 'node:child_process'
import {request as httpRequest} from 'node:http'
import {connect, type Socket} from 'node:net'
import {existsSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import Database from 'better-sqlite3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {KB_BIN, ROOT, alterLast, startChildDaemon, tempDir, type ChildDaemon} from '../helpers/daemon.js'

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {version: string}).version

/** Runs `kb …` to completion. */
function runKb(args: string[]): Promise<{code: number | null; stdout: string; stderr: string}> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [KB_BIN, ...args], {stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('exit', (code) => resolve({code, stdout, stderr}))
  })
}

/** A GET with a Host header of our choosing (fetch will not send one). */
function getWithHost(d: ChildDaemon, path: string, host: string): Promise<{status: number; type: string; body: any}> {
  const u = new URL(d.url)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {host: u.hostname, port: u.port, path: u.pathname + path, headers: {host, authorization: `Bearer ${d.ownerKey}`}},
      (res) => {
        let text = ''
        res.on('data', (c: Buffer) => (text += c.toString()))
        res.on('end', () => resolve({status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: JSON.parse(text)}))
      },
    )
    req.on('error', reject)
    req.end()
  })
}

function mode(path: string): number {
  return statSync(path).mode & 0o777
}

/** Waits (polling the child's output, not sleeping in the server) until `test` holds. */
async function until(test: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** A pid that certainly belonged to a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], {stdio: 'ignore'})
  await new Promise((r) => child.on('exit', r))
  return child.pid!
}

/**
 * Starts a large POST /knowledge on a raw keep-alive connection and sends half its body, so that a request
 * is provably in flight: the server has parsed its headers (it answered `100 Continue`) and waits for the rest.
 */
async function startSlowCreate(d: ChildDaemon, title: string): Promise<{finish: () => Promise<string>; socket: Socket}> {
  const u = new URL(d.url)
  const body = JSON.stringify({title, body: `${'A large body, sent in two halves. '.repeat(2900)}end`})
  const socket = connect({host: u.hostname, port: Number(u.port)})
  let response = ''
  socket.on('data', (c: Buffer) => (response += c.toString()))
  await new Promise((r) => socket.once('connect', r))
  socket.write(
    `POST ${u.pathname}/knowledge HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${d.ownerKey}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
  )
  await until(() => response.includes('100 Continue'), '100 Continue')
  const half = Math.floor(body.length / 2)
  socket.write(body.slice(0, half))
  return {
    socket,
    finish: async () => {
      socket.write(body.slice(half))
      await until(() => /\r\n\r\n\{[\s\S]*\}$/.test(response.slice(response.lastIndexOf('HTTP/1.1 '))), 'the answer')
      return response.slice(response.lastIndexOf('HTTP/1.1 '))
    },
  }
}

/** Stops a daemon with `signal` while a request is in flight, and checks it finished that request and exited 0. */
async function stopWhileBusy(d: ChildDaemon, signal: 'SIGTERM' | 'SIGINT'): Promise<void> {
  const title = `in flight during ${signal}`
  const slow = await startSlowCreate(d, title)
  d.child.kill(signal)
  await until(() => d.stderr().includes('stopping: finishing in-flight requests'), 'the stop to begin')
  // It stops accepting: new connections are refused while the old request is still open.
  let refused = false
  for (let i = 0; i < 100 && !refused; i++) {
    try {
      await fetch(`${d.url}/health`)
      await new Promise((r) => setTimeout(r, 20))
    } catch {
      refused = true
    }
  }
  expect(refused).toBe(true)
  expect(d.child.exitCode).toBeNull() // still running: the request holds it
  const answer = await slow.finish()
  expect(answer).toMatch(/^HTTP\/1\.1 201 /)
  expect(answer.toLowerCase()).toContain('connection: close')
  const id = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).id as string
  const started = Date.now()
  expect(await d.exited).toBe(0)
  // Promptly: a keep-alive client must not hold the exit back for the keep-alive timeout.
  expect(Date.now() - started).toBeLessThan(5_000)
  slow.socket.destroy()
  expect(existsSync(join(d.dataDir, 'daemon.json'))).toBe(false)
  expect(existsSync(join(d.dataDir, 'daemon.lock'))).toBe(false)
  // The answered write is on disk.
  const db = new Database(join(d.dataDir, 'kb.sqlite'), {readonly: true})
  try {
    expect((db.prepare('SELECT title FROM entries WHERE id = ?').get(id) as {title: string} | undefined)?.title).toBe(title)
  } finally {
    db.close()
  }
}

describe('kb daemon run, as a process', () => {
  let a: ChildDaemon
  const dirs: string[] = []
  beforeAll(async () => {
    a = await startChildDaemon()
    dirs.push(a.dataDir)
  })
  afterAll(async () => {
    await a?.stop()
    for (const dir of dirs) rmSync(dir, {recursive: true, force: true})
  })

  it('bootstraps the owner: owner.key is 0600, holds kb_… and a newline, and works as a key', async () => {
    const file = join(a.dataDir, 'owner.key')
    expect(mode(file)).toBe(0o600)
    const content = readFileSync(file, 'utf8')
    expect(content).toMatch(/^kb_[0-9A-Za-z]{43}\n$/)
    const keys = await a.request('GET', '/api-keys', {key: content.trim()})
    expect(keys.status).toBe(200)
    expect(keys.body.items[0].prefix).toBe(content.slice(0, 11))
    expect(keys.body.items[0].principal.name).toBe('owner')
    expect((await a.request('GET', '/api-keys', {key: alterLast(content.trim())})).status).toBe(401)
  })

  it('writes daemon.json 0600 with its pid, url and version', () => {
    const file = join(a.dataDir, 'daemon.json')
    expect(mode(file)).toBe(0o600)
    const info = JSON.parse(readFileSync(file, 'utf8'))
    expect(info).toMatchObject({pid: a.child.pid, url: a.url, version: VERSION})
    expect(Number.isNaN(Date.parse(info.started_at))).toBe(false)
    expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/)
  })

  it('tells a web page (a request with an Origin) neither its pid nor its data directory (issue 24)', async () => {
    const page = await a.request('GET', '/health', {key: null, headers: {origin: 'https://evil.example'}})
    expect(page.status).toBe(200)
    expect(page.headers.get('access-control-allow-origin')).toBe('*')
    expect(page.body).toEqual({status: 'ok', version: VERSION, store: {kind: 'sqlite', answers: true, writable: true}})
    expect(page.text).not.toContain(a.dataDir)
  })

  it('refuses a second daemon on the same data directory, and the first keeps serving', async () => {
    const second = await runKb(['daemon', 'run', '--port', '0', '--data-dir', a.dataDir])
    expect(second.code).not.toBe(0)
    expect(second.stderr).toContain(`another kb daemon (pid ${a.child.pid}) already uses the data directory ${a.dataDir}`)
    // the fix it names works from any data directory kb would otherwise use
    expect(second.stderr).toContain(`\`KB_DATA_DIR=${a.dataDir} kb daemon stop\``)
    expect(second.stderr).not.toMatch(/\n\s+at /) // a message, not a stack trace
    expect(Number(readFileSync(join(a.dataDir, 'daemon.lock'), 'utf8'))).toBe(a.child.pid)
    expect(JSON.parse(readFileSync(join(a.dataDir, 'daemon.json'), 'utf8')).pid).toBe(a.child.pid)
    const health = await a.request('GET', '/health', {key: null})
    expect(health.status).toBe(200)
    // A loopback caller of a loopback daemon also learns which process and data directory it is.
    expect(health.body).toEqual({
      status: 'ok',
      version: VERSION,
      store: {kind: 'sqlite', answers: true, writable: true},
      pid: a.child.pid,
      started_at: expect.any(String),
      data_dir: a.dataDir,
      log: null,
    })
  })

  it('answers exactly localhost, 127.0.0.1 and [::1] on any port, and refuses every other Host with 403 problem+json', async () => {
    const port = new URL(a.url).port
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'LOCALHOST', 'localhost', '127.0.0.1:1', '[::1]']) {
      expect((await getWithHost(a, '/api-keys', host)).status, host).toBe(200)
    }
    const refused = [
      'evil.example',
      `evil.example:${port}`,
      '192.168.1.10',
      `127.0.0.1.evil.example:${port}`,
      'localhost.evil.example',
      '[::2]',
      // near misses: other loopback spellings and names a DNS server or a browser may resolve elsewhere
      `kb.localhost:${port}`,
      'localhost.',
      `127.1.2.3:${port}`,
      '127.0.0.01',
      '0.0.0.0',
      '[::ffff:127.0.0.1]',
      '[0:0:0:0:0:0:0:1]',
      '[::1',
      // a name with more than a port after it (issue 24: `localhost:7471:1` became the issuer)
      `localhost:${port}:1`,
      `127.0.0.1:${port}@evil.example`,
      'localhost:',
      'localhost:http',
      `[::1]:${port}:1`,
      '[::1]x',
    ]
    for (const host of refused) {
      const res = await getWithHost(a, '/health', host)
      expect(res.status, host).toBe(403)
      expect(res.type).toContain('application/problem+json')
      expect(res.body.code).toBe('forbidden')
    }
  })

  it('logs JSON lines on stderr, one per request', async () => {
    await a.request('GET', '/knowledge', {headers: {'x-request-id': 'log-check-1'}})
    await until(() => a.stderr().includes('log-check-1'), 'the request log line')
    const lines = a
      .stderr()
      .split('\n')
      .filter((l) => l.trim() !== '')
    expect(lines.length).toBeGreaterThan(3)
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    for (const r of records) {
      expect(typeof r.level).toBe('number')
      expect(typeof r.time).toBe('number')
      expect(typeof r.msg).toBe('string')
      expect(r.pid).toBe(a.child.pid)
    }
    const line = records.find((r) => r.reqId === 'log-check-1')
    expect(line).toMatchObject({msg: 'request', method: 'GET', url: '/api/v1/knowledge', status: 200})
    expect(typeof line!.ms).toBe('number')
    // Secrets stay out of the log.
    expect(a.stderr()).not.toContain(a.ownerKey)
  })

  it('on SIGTERM finishes the request in flight, removes daemon.json and the lock, and exits 0', async () => {
    await stopWhileBusy(a, 'SIGTERM')
  })

  it('takes over a stale lock of a dead daemon, serves --allow-host and --public-url names, and stops the same way on SIGINT', async () => {
    const dir = tempDir('kb-stale-')
    dirs.push(dir)
    const dead = await deadPid()
    writeFileSync(join(dir, 'daemon.lock'), `${dead}\n`)
    writeFileSync(
      join(dir, 'daemon.json'),
      JSON.stringify({pid: dead, url: 'http://127.0.0.1:1/api/v1', version: '0.0.0', started_at: '2020-01-01T00:00:00.000Z'}),
    )
    const b = await startChildDaemon({
      dataDir: dir,
      args: ['--allow-host', 'kb.example.com', '--public-url', 'https://kb.team.example/api/v1'],
    })
    try {
      expect(Number(readFileSync(join(dir, 'daemon.lock'), 'utf8'))).toBe(b.child.pid)
      expect(JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8')).pid).toBe(b.child.pid)
      expect((await getWithHost(b, '/health', 'kb.example.com')).status).toBe(200)
      expect((await getWithHost(b, '/health', 'KB.Example.COM:8443')).status).toBe(200)
      expect((await getWithHost(b, '/health', 'other.example.com')).status).toBe(403)
      expect((await getWithHost(b, '/health', 'sub.kb.example.com')).status).toBe(403)
      expect((await getWithHost(b, '/health', 'kb.team.example')).status).toBe(200)
      expect((await getWithHost(b, '/health', 'team.example')).status).toBe(403)
      await stopWhileBusy(b, 'SIGINT')
    } finally {
      await b.stop()
    }
  })

  it('does not take over a lock whose process is alive; does take over an empty one (a crash before its pid was written)', async () => {
    const dir = tempDir('kb-live-')
    dirs.push(dir)
    // This test process stands in for a live daemon holding the lock.
    writeFileSync(join(dir, 'daemon.lock'), `${process.pid}\n`)
    const refused = await runKb(['daemon', 'run', '--port', '0', '--data-dir', dir])
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain(`another kb daemon (pid ${process.pid})`)
    expect(readFileSync(join(dir, 'daemon.lock'), 'utf8')).toBe(`${process.pid}\n`)
    expect(existsSync(join(dir, 'owner.key'))).toBe(false)

    writeFileSync(join(dir, 'daemon.lock'), '')
    const c = await startChildDaemon({dataDir: dir})
    try {
      expect(Number(readFileSync(join(dir, 'daemon.lock'), 'utf8'))).toBe(c.child.pid)
      expect((await c.request('GET', '/api-keys')).status).toBe(200)
    } finally {
      await c.stop()
    }
    expect(await c.exited).toBe(0)
    expect(existsSync(join(dir, 'daemon.lock'))).toBe(false)
  })
})
