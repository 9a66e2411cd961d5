/**
 * @module What the OAuth tests share: registering clients, PKCE pairs, driving the consent form over plain
 * HTTP (the browser tests drive it in chromium), a loopback redirect listener, and direct access to the
 * daemon's SQLite file for moving a record's clock (expiry) without waiting for it.
 */
import {createHash, randomBytes} from 'node:crypto'
import {createServer, type Server} from 'node:http'
import {join} from 'node:path'
import Database from 'better-sqlite3'
import {expect} from 'vitest'
import type {TestDaemon} from '../../helpers/daemon.js'

export interface Registered {
  client_id: string
  client_secret?: string
  [field: string]: unknown
}

export async function register(d: TestDaemon, metadata: Record<string, unknown>): Promise<{status: number; body: any; headers: Headers}> {
  const res = await fetch(`${d.url}/oauth/register`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify(metadata),
  })
  const text = await res.text()
  return {status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers}
}

export async function registerOk(d: TestDaemon, metadata: Record<string, unknown>): Promise<Registered> {
  const res = await register(d, metadata)
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body as Registered
}

export function pkcePair(): {verifier: string; challenge: string} {
  const verifier = randomBytes(32).toString('base64url')
  return {verifier, challenge: createHash('sha256').update(verifier).digest('base64url')}
}

export function authorizeUrl(d: TestDaemon, params: Record<string, string | undefined>): string {
  const u = new URL(`${d.url}/oauth/authorize`)
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v)
  return u.toString()
}

export interface ConsentForm {
  status: number
  headers: Headers
  html: string
  requestId: string
  csrf: string
  cookie: string
}

/** GETs the authorization endpoint and reads the consent form's hidden fields and cookie. */
export async function openConsent(url: string): Promise<ConsentForm> {
  const res = await fetch(url, {redirect: 'manual'})
  const html = await res.text()
  expect(res.status, html.slice(0, 500)).toBe(200)
  const field = (name: string): string => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? ''
  const setCookie = res.headers.get('set-cookie') ?? ''
  return {
    status: res.status,
    headers: res.headers,
    html,
    requestId: field('request_id'),
    csrf: field('csrf_token'),
    cookie: setCookie.split(';')[0]!,
  }
}

/** POSTs the consent form as a browser would; returns the response without following redirects. */
export async function submitConsent(
  d: TestDaemon,
  form: ConsentForm,
  fields: Record<string, string>,
  options: {cookie?: string | null} = {},
): Promise<Response> {
  const body = new URLSearchParams({request_id: form.requestId, csrf_token: form.csrf, ...fields})
  const headers: Record<string, string> = {'content-type': 'application/x-www-form-urlencoded'}
  const cookie = options.cookie === undefined ? form.cookie : options.cookie
  if (cookie) headers.cookie = cookie
  return fetch(`${d.url}/oauth/authorize`, {method: 'POST', headers, body, redirect: 'manual'})
}

/** Opens the consent page and approves with `apiKey`; returns the redirect's URL (with code or error). */
export async function approve(d: TestDaemon, url: string, apiKey: string): Promise<URL> {
  const form = await openConsent(url)
  const res = await submitConsent(d, form, {api_key: apiKey, decision: 'approve'})
  expect(res.status, await res.clone().text()).toBe(303)
  return new URL(res.headers.get('location')!)
}

export async function tokenRequest(
  d: TestDaemon,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{status: number; body: any; headers: Headers}> {
  const res = await fetch(`${d.url}/oauth/token`, {
    method: 'POST',
    headers: {'content-type': 'application/x-www-form-urlencoded', ...headers},
    body: new URLSearchParams(params),
  })
  const text = await res.text()
  return {status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers}
}

/** Asserts an OAuth error response (RFC 6749 §5.2): JSON `{error, error_description}`, never problem+json. */
export function expectOAuthError(res: {status: number; body: any; headers: Headers}, status: number, error: string): void {
  const where = JSON.stringify(res.body)
  expect(res.status, where).toBe(status)
  expect(res.headers.get('content-type') ?? '', where).toMatch(/^application\/json/)
  expect(res.body.error, where).toBe(error)
  expect(typeof res.body.error_description, where).toBe('string')
  // RFC 6749 §5.2: printable ASCII without " and \.
  expect(res.body.error_description, where).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/)
  expect(res.headers.get('cache-control')).toBe('no-store')
}

/** Runs a full public-client authorization (consent over HTTP) and returns the token response. */
export async function obtainTokens(
  d: TestDaemon,
  apiKey: string,
  extra: {resource?: string; redirectUri?: string} = {},
): Promise<{client: Registered; tokens: any}> {
  const redirectUri = extra.redirectUri ?? 'http://127.0.0.1:8123/callback'
  const client = await registerOk(d, {redirect_uris: [redirectUri], client_name: 'test client'})
  const {verifier, challenge} = pkcePair()
  const back = await approve(
    d,
    authorizeUrl(d, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's1',
      resource: extra.resource,
    }),
    apiKey,
  )
  const res = await tokenRequest(d, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    code_verifier: verifier,
    redirect_uri: redirectUri,
    client_id: client.client_id,
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return {client, tokens: res.body}
}

/** A second connection to the daemon's SQLite file (WAL allows it), for moving expiry times into the past. */
export function openDb(d: TestDaemon): Database.Database {
  const db = new Database(join(d.dataDir, 'kb.sqlite'))
  db.pragma('busy_timeout = 5000')
  return db
}

export function sha256Hex(s: string): string {
  return createHash('sha256').update(s).digest('hex')
}

/** A loopback HTTP server standing in for a native client's redirect listener; resolves each callback URL. */
export interface RedirectListener {
  url: string
  port: number
  next(): Promise<URL>
  close(): Promise<void>
}

export async function redirectListener(path = '/callback'): Promise<RedirectListener> {
  const waiting: Array<(u: URL) => void> = []
  const arrived: URL[] = []
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', `http://${req.headers.host}`)
    // Browsers also ask for /favicon.ico; only the callback path counts.
    if (u.pathname !== path) {
      res.writeHead(404, {connection: 'close'}).end()
      return
    }
    res.writeHead(200, {'content-type': 'text/plain', connection: 'close'}).end('You can close this window.')
    const w = waiting.shift()
    if (w) w(u)
    else arrived.push(u)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as {port: number}).port
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    next: () => {
      const ready = arrived.shift()
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve))
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
