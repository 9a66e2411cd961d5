/**
 * The CLI never gives a credential to an impostor (docs/security.md): a listener on the daemon's port that
 * cannot prove it owns the data directory — even one that relays the challenge to the real daemon —
 * receives no Authorization header, and the person gets exit 5 naming the port and who holds it.
 */
import {createHmac} from 'node:crypto'
import {readFileSync, statSync} from 'node:fs'
import {createServer, request as httpRequest, type IncomingHttpHeaders, type Server} from 'node:http'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cleanup, freePort, kb, makeUser, type KbEnv} from './helpers.js'

interface Seen {
  method: string
  url: string
  headers: IncomingHttpHeaders
}

/** An HTTP server on 127.0.0.1:port that records every request; `/health` answers like kb (or as `health` says). */
async function impostor(
  port: number,
  health: (h: IncomingHttpHeaders) => Promise<string>,
): Promise<{seen: Seen[]; close: () => Promise<void>}> {
  const seen: Seen[] = []
  const server: Server = createServer((req, res) => {
    seen.push({method: req.method!, url: req.url!, headers: req.headers})
    const answer = req.url!.startsWith('/api/v1/health') ? health(req.headers) : Promise.resolve('{"items":[],"next_cursor":null}')
    void answer.then((body) => res.writeHead(200, {'content-type': 'application/json'}).end(body))
  })
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r))
  return {seen, close: () => new Promise((r) => server.close(() => r()))}
}

const kbHealth = async (): Promise<string> => JSON.stringify({status: 'ok', version: '0.1.0', proof: 'ab'.repeat(32)})

/** `GET /health` of the real daemon with the headers the CLI sent (a relay). */
function relay(port: number) {
  return (h: IncomingHttpHeaders): Promise<string> =>
    new Promise((resolve, reject) => {
      const challenge = h['kb-challenge']
      const req = httpRequest(
        {host: '127.0.0.1', port, path: '/api/v1/health', headers: challenge ? {'kb-challenge': String(challenge)} : {}},
        (res) => {
          let text = ''
          res.on('data', (c: Buffer) => (text += c.toString()))
          res.on('end', () => resolve(text))
        },
      )
      req.on('error', reject)
      req.end()
    })
}

let user: KbEnv
let port: number
let base: string

beforeAll(async () => {
  user = makeUser()
  port = await freePort()
  base = `http://127.0.0.1:${port}/api/v1`
  user.env.KB_BASE_URL = base
  const start = await kb(user, ['daemon', 'start'])
  expect(start.code, start.stderr).toBe(0)
  // The data directory kb created, where the secret lives, is the user's alone.
  expect(statSync(user.dataDir).mode & 0o777).toBe(0o700)
  expect(statSync(join(user.dataDir, 'daemon.secret')).mode & 0o777).toBe(0o600)
})

afterAll(async () => {
  if (user) await cleanup(user)
})

function expectRefused(r: {code: number | null; stderr: string}, seen: Seen[]): void {
  expect(r.code, r.stderr).toBe(5)
  expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is held by a program that is not the kb daemon of ${user.dataDir}`)
  expect(r.stderr).toContain('no credential was sent')
  if (process.platform === 'linux') expect(r.stderr).toContain(`pid ${process.pid}`)
  // The impostor was asked (so this test can fail) but never shown a credential.
  expect(seen.length).toBeGreaterThan(0)
  expect(seen.filter((s) => s.headers.authorization !== undefined)).toEqual([])
}

describe('the daemon proves it owns the data directory', () => {
  it('answers a challenge with HMAC(daemon.secret, challenge, its address and port); a malformed one is a 400', async () => {
    const secret = Buffer.from(readFileSync(join(user.dataDir, 'daemon.secret'), 'utf8').trim(), 'hex')
    const challenge = '0123456789abcdef'.repeat(2)
    const res = await fetch(`${base}/health`, {headers: {'kb-challenge': challenge}})
    const body = (await res.json()) as {proof: string}
    expect(body.proof).toBe(createHmac('sha256', secret).update(`kb-daemon-proof:1\n${challenge}\n127.0.0.1\n${port}`).digest('hex'))
    const bad = await fetch(`${base}/health`, {headers: {'kb-challenge': 'not hex'}})
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as {code: string}).code).toBe('bad_request')
  })

  it('so the CLI works against it with owner.key (positive control)', async () => {
    const r = await kb(user, ['list', '--json'])
    expect(r.code, r.stderr).toBe(0)
  })

  it('a relay on another port that forwards the challenge to the real daemon gets no credential', async () => {
    const other = await freePort()
    const fake = await impostor(other, relay(port))
    try {
      const r = await kb(user, ['list'], {env: {KB_BASE_URL: `http://127.0.0.1:${other}/api/v1`}})
      expect(r.code, r.stderr).toBe(5)
      expect(r.stderr).toContain(`port ${other} on 127.0.0.1 is held by a program that is not the kb daemon of ${user.dataDir}`)
      // It did get a real proof from the daemon — for the daemon's own endpoint, which is not the one the CLI reached.
      expect(fake.seen.length).toBeGreaterThan(0)
      expect(fake.seen.filter((s) => s.headers.authorization !== undefined)).toEqual([])
    } finally {
      await fake.close()
    }
  })
})

describe('an impostor on the daemon port', () => {
  it('receives no credential: not owner.key (autostart on or off, CLI or MCP), not KB_API_KEY holding it', async () => {
    const ownerKey = readFileSync(join(user.dataDir, 'owner.key'), 'utf8').trim()
    const stop = await kb(user, ['daemon', 'stop'])
    expect(stop.code, stop.stderr).toBe(0)
    const fake = await impostor(port, kbHealth)
    try {
      // owner.key, with autostart on (the impostor answers /health, so nothing is started) and off
      expectRefused(await kb(user, ['list']), fake.seen)
      expectRefused(await kb(user, ['search', 'anything'], {env: {KB_NO_AUTOSTART: '1'}}), fake.seen)
      // the owner key handed over in KB_API_KEY
      expectRefused(await kb(user, ['add', 'Leak', '--body', 'x'], {env: {KB_API_KEY: ownerKey}}), fake.seen)
      // the MCP server over stdio
      expectRefused(await kb(user, ['mcp'], {input: ''}), fake.seen)
    } finally {
      await fake.close()
    }
  })

  it('a key stored by `kb auth login` while the real daemon answered is bound to it', async () => {
    const start = await kb(user, ['daemon', 'start'])
    expect(start.code, start.stderr).toBe(0)
    const ownerKey = readFileSync(join(user.dataDir, 'owner.key'), 'utf8').trim()
    const login = await kb(user, ['auth', 'login', '--with-token'], {input: `${ownerKey}\n`})
    expect(login.code, login.stderr).toBe(0)
    const stored = JSON.parse(readFileSync(join(user.root, 'config', 'kb', 'credentials.json'), 'utf8'))
    expect(stored.credentials[base]).toMatchObject({data_dir: user.dataDir})
    expect((await kb(user, ['daemon', 'stop'])).code).toBe(0)
    const fake = await impostor(port, kbHealth)
    try {
      expectRefused(await kb(user, ['list']), fake.seen)
      expectRefused(await kb(user, ['auth', 'status']), fake.seen)
    } finally {
      await fake.close()
    }
  })
})
