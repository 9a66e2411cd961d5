/**
 * The CLI never gives a credential to an impostor (docs/security.md): a listener on the daemon's port that
 * cannot prove it owns the data directory — even one that relays the challenge to the real daemon —
 * receives no Authorization header, and the person gets exit 5 naming the port and who holds it.
 */
import {createHmac} from 'node:crypto'
import {existsSync, mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {createServer, request as httpRequest, type IncomingHttpHeaders, type Server} from 'node:http'
import {join} from 'node:path'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {KB_BIN} from '../helpers/daemon.js'
import {cleanup, freePort, kb, makeUser, type KbEnv} from './helpers.js'

interface Seen {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

/** An HTTP server on host:port that records every request with its body; `/health` answers like kb (or as `health` says). */
async function impostor(
  port: number,
  health: (h: IncomingHttpHeaders) => Promise<string>,
  host = '127.0.0.1',
): Promise<{seen: Seen[]; close: () => Promise<void>}> {
  const seen: Seen[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      seen.push({method: req.method!, url: req.url!, headers: req.headers, body})
      const answer = req.url!.startsWith('/api/v1/health') ? health(req.headers) : Promise.resolve('{"items":[],"next_cursor":null}')
      void answer.then((text) => res.writeHead(200, {'content-type': 'application/json'}).end(text))
    })
  })
  await new Promise<void>((r) => server.listen(port, host, r))
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
      // the MCP server over stdio: it starts (docs/mcp.md), and a tool call is refused with the same words
      const before = fake.seen.length
      const transport = new StdioClientTransport({command: process.execPath, args: [KB_BIN, 'mcp'], env: user.env, stderr: 'pipe'})
      const client = new Client({name: 'impostor-test', version: '1.0.0'})
      await client.connect(transport)
      try {
        const r = (await client.callTool({name: 'search_knowledge', arguments: {query: 'x'}})) as CallToolResult
        expect(r.isError).toBe(true)
        const text = r.content.map((p) => (p.type === 'text' ? p.text : '')).join('')
        expect(text).toContain(`port ${port} on 127.0.0.1 is held by a program that is not the kb daemon of ${user.dataDir}`)
        expect(text).toContain('no credential was sent')
      } finally {
        await client.close()
      }
      expect(fake.seen.length).toBeGreaterThan(before)
      expect(fake.seen.filter((s) => s.headers.authorization !== undefined)).toEqual([])
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

const ACCESS = `kbat_${'a'.repeat(43)}`
const REFRESH = `kbrt_${'r'.repeat(43)}`
const credentialsPath = (): string => join(user.root, 'config', 'kb', 'credentials.json')

/**
 * Stores OAuth tokens for the base URL as `kb auth login --web` does; `dataDir` undefined is an entry of an
 * older kb that recorded no data directory. Endpoints on `endpointBase` (default the base URL).
 */
function storeOAuth(o: {dataDir?: string; expired: boolean; endpointBase?: string}): void {
  const at = o.endpointBase ?? base
  const oauth = {
    access_token: ACCESS,
    refresh_token: REFRESH,
    expires_at: new Date(Date.now() + (o.expired ? -60_000 : 3_600_000)).toISOString(),
    client_id: 'kbc_test',
    issuer: at,
    token_endpoint: `${at}/oauth/token`,
    revocation_endpoint: `${at}/oauth/revoke`,
    resource: base,
    obtained_at: new Date().toISOString(),
  }
  mkdirSync(join(user.root, 'config', 'kb'), {recursive: true, mode: 0o700})
  const entry = {store: 'file', kind: 'oauth', oauth, ...(o.dataDir ? {data_dir: o.dataDir} : {})}
  writeFileSync(credentialsPath(), JSON.stringify({version: 1, credentials: {[base]: entry}}), {mode: 0o600})
}

/** Nothing of the stored tokens in any header or body the listener saw (and it was asked, so this can fail). */
function expectNoTokens(seen: Seen[]): void {
  expect(seen.length).toBeGreaterThan(0)
  for (const s of seen) {
    const text = `${JSON.stringify(s.headers)}\n${s.body}`
    expect(text).not.toContain(ACCESS)
    expect(text).not.toContain(REFRESH)
  }
}

describe('OAuth with an impostor on the daemon port', () => {
  it('kb auth login (--web or --with-token) sends it nothing and opens no consent page', async () => {
    const fake = await impostor(port, kbHealth)
    try {
      const web = await kb(user, ['auth', 'login', '--web', '--no-browser', '--timeout', '5'])
      expectRefused(web, fake.seen)
      expect(web.stderr).not.toContain('/oauth/authorize')
      // It claims no data directory: nothing to point at (a kb daemon of another one takes a member's key at --base-url).
      expect(web.stderr).not.toContain('KB_DATA_DIR')
      // Only the challenged /health: no discovery, no registration, no token request.
      expect(fake.seen.map((s) => `${s.method} ${s.url}`).every((l) => l === 'GET /api/v1/health')).toBe(true)
      const key = `kb_${'k'.repeat(40)}`
      const withToken = await kb(user, ['auth', 'login', '--with-token'], {input: `${key}\n`})
      expectRefused(withToken, fake.seen)
      expect(fake.seen.some((s) => JSON.stringify(s.headers).includes(key) || s.body.includes(key))).toBe(false)
      expect(existsSync(credentialsPath()) && readFileSync(credentialsPath(), 'utf8').includes(key)).toBe(false)
    } finally {
      await fake.close()
    }
  })

  it('refreshes nothing there: stored tokens, bound or from an older kb, go nowhere', async () => {
    const fake = await impostor(port, kbHealth)
    try {
      for (const dataDir of [user.dataDir, undefined]) {
        storeOAuth({dataDir, expired: true})
        expectRefused(await kb(user, ['list']), fake.seen)
        storeOAuth({dataDir, expired: false})
        expectRefused(await kb(user, ['search', 'anything'], {env: {KB_NO_AUTOSTART: '1'}}), fake.seen)
      }
      expectNoTokens(fake.seen)
      expect(fake.seen.filter((s) => s.url.includes('/oauth/'))).toEqual([])
    } finally {
      await fake.close()
    }
  })

  it('kb auth logout revokes nothing there, says why in one line naming the port, and forgets the tokens', async () => {
    const fake = await impostor(port, kbHealth)
    try {
      for (const dataDir of [user.dataDir, undefined]) {
        storeOAuth({dataDir, expired: false})
        const r = await kb(user, ['auth', 'logout'])
        expect(r.code, r.stderr).toBe(0)
        expect(r.stdout).toBe('removed\tfile\tnot-revoked\n')
        const warnings = r.stderr
          .split('\n')
          .filter((l) => l.includes(`port ${port} on 127.0.0.1 is held by a program that is not the kb daemon of ${user.dataDir}`))
        expect(warnings.length, r.stderr).toBeGreaterThan(0)
        expect(warnings[0]).toContain('no credential was sent')
        expect(readFileSync(credentialsPath(), 'utf8')).not.toContain(ACCESS)
      }
      expectNoTokens(fake.seen)
      expect(fake.seen.filter((s) => s.url.includes('/oauth/'))).toEqual([])
    } finally {
      await fake.close()
    }
  })
})

describe('OAuth requests go only to the proven daemon, at the address it proved itself on', () => {
  beforeAll(async () => {
    const start = await kb(user, ['daemon', 'start'])
    expect(start.code, start.stderr).toBe(0)
  })

  it('web login at localhost: refused while another listener holds the port on ::1 (a browser may pick it); signs in through the daemon otherwise', async () => {
    const local = `http://localhost:${port}/api/v1`
    const fake = await impostor(port, kbHealth, '::1')
    try {
      const r = await kb(user, ['auth', 'login', '--web', '--no-browser', '--timeout', '5', '--base-url', local])
      expect(r.code, r.stderr).toBe(5)
      expect(r.stderr).toContain(`port ${port} on localhost is held by a program that is not the kb daemon of ${user.dataDir}`)
      expect(r.stderr).not.toContain('/oauth/authorize')
      expect(fake.seen.length).toBeGreaterThan(0)
      expect(fake.seen.every((s) => s.url === '/api/v1/health' && s.headers.authorization === undefined)).toBe(true)
    } finally {
      await fake.close()
    }
    // Control: with ::1 free, discovery and registration reach the daemon (pinned) and the consent URL is printed.
    const ok = await kb(user, ['auth', 'login', '--web', '--no-browser', '--timeout', '2', '--base-url', local])
    expect(ok.code, ok.stderr).toBe(4)
    expect(ok.stderr).toContain(`  http://localhost:${port}/api/v1/oauth/authorize?`)
    expect(ok.stderr).toContain('no sign-in arrived from the browser')
  })

  it('a stored token endpoint or revocation endpoint elsewhere on loopback is sent nothing', async () => {
    const other = await freePort()
    const recorder = await impostor(other, kbHealth)
    try {
      storeOAuth({dataDir: user.dataDir, expired: true, endpointBase: `http://127.0.0.1:${other}/api/v1`})
      const r = await kb(user, ['list'])
      expect(r.code, r.stderr).toBe(5)
      expect(r.stderr).toContain(`the local sign-in goes only to the kb daemon at http://127.0.0.1:${port}`)
      const out = await kb(user, ['auth', 'logout'])
      expect(out.code, out.stderr).toBe(0)
      expect(out.stdout).toBe('removed\tfile\tnot-revoked\n')
      expect(out.stderr).toContain(`not to http://127.0.0.1:${other}`)
      expect(recorder.seen).toEqual([])
    } finally {
      await recorder.close()
    }
  })
})
