/**
 * Discovery documents at every path real clients probe, CORS for browser clients, and dynamic client
 * registration (RFC 7591) with the redirect shapes of real clients — against a real daemon over HTTP.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {expectOAuthError, register, registerOk} from './support.js'

let d: TestDaemon
let root: string

beforeAll(async () => {
  d = await startInProcessDaemon()
  root = d.url.slice(0, -'/api/v1'.length)
})
afterAll(async () => {
  await d?.stop()
})

function hasNull(v: unknown): boolean {
  if (v === null) return true
  if (Array.isArray(v)) return v.some(hasNull)
  if (typeof v === 'object') return Object.values(v as object).some(hasNull)
  return false
}

describe('discovery', () => {
  it('serves identical authorization server metadata at all three paths', async () => {
    const paths = [
      '/api/v1/.well-known/oauth-authorization-server',
      '/.well-known/oauth-authorization-server/api/v1',
      '/.well-known/oauth-authorization-server',
    ]
    const bodies: string[] = []
    for (const p of paths) {
      const res = await fetch(root + p, {redirect: 'manual'})
      expect(res.status, p).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      bodies.push(await res.text())
    }
    expect(new Set(bodies).size).toBe(1)
    const m = JSON.parse(bodies[0]!)
    expect(m).toMatchObject({
      issuer: d.url,
      authorization_endpoint: `${d.url}/oauth/authorize`,
      token_endpoint: `${d.url}/oauth/token`,
      registration_endpoint: `${d.url}/oauth/register`,
      revocation_endpoint: `${d.url}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    })
    expect(m.issuer.endsWith('/')).toBe(false)
    expect(hasNull(m)).toBe(false)
  })

  it('serves identical protected resource metadata at all three paths, and the MCP endpoint its own', async () => {
    const paths = [
      '/api/v1/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/api/v1',
      '/.well-known/oauth-protected-resource',
    ]
    const bodies = await Promise.all(
      paths.map(async (p) => {
        const res = await fetch(root + p, {redirect: 'manual'})
        expect(res.status, p).toBe(200)
        return res.text()
      }),
    )
    expect(new Set(bodies).size).toBe(1)
    const prm = JSON.parse(bodies[0]!)
    expect(prm).toMatchObject({resource: d.url, authorization_servers: [d.url], bearer_methods_supported: ['header']})
    expect(hasNull(prm)).toBe(false)

    const mcp = await (await fetch(`${root}/.well-known/oauth-protected-resource/api/v1/mcp`)).json()
    expect(mcp).toMatchObject({resource: `${d.url}/mcp`, authorization_servers: [d.url], bearer_methods_supported: ['header']})
  })

  it('uses the configured public base URL when there is one, else the Host of the request', async () => {
    const viaLocalhost = root.replace('127.0.0.1', 'localhost')
    const m = (await (await fetch(`${viaLocalhost}/.well-known/oauth-authorization-server`)).json()) as {issuer: string}
    expect(m.issuer).toBe(`${viaLocalhost}/api/v1`)
  })

  it('answers other methods on a discovery path with 405 and Allow', async () => {
    const res = await fetch(`${root}/.well-known/oauth-authorization-server`, {method: 'POST'})
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET, HEAD')
  })
})

describe('CORS', () => {
  it('answers preflights on the API, the OAuth endpoints and the discovery documents', async () => {
    for (const p of [
      '/api/v1/knowledge',
      '/api/v1/oauth/token',
      '/api/v1/oauth/register',
      '/api/v1/oauth/revoke',
      '/.well-known/oauth-protected-resource/api/v1',
      '/api/v1/knowledge/0b6c0000-0000-4000-8000-000000000000',
    ]) {
      const res = await fetch(root + p, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://localhost:6274',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
        },
      })
      expect(res.status, p).toBe(204)
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, PATCH, DELETE, OPTIONS')
      const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase()
      for (const h of ['authorization', 'content-type', 'mcp-protocol-version', 'if-match']) expect(allowed).toContain(h)
      expect(res.headers.get('access-control-allow-credentials')).toBeNull()
    }
  })

  it('lets browser clients read API responses, 401s and their challenge', async () => {
    const res = await d.request('GET', '/knowledge', {key: null, headers: {origin: 'http://localhost:6274'}})
    expect(res.status).toBe(401)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate')
    const ok = await d.request('GET', '/health', {key: null})
    expect(ok.headers.get('access-control-allow-origin')).toBe('*')
    expect(ok.headers.get('www-authenticate')).toBeNull()
  })

  it('gives the consent page no CORS headers, so no other site can read its form', async () => {
    const res = await fetch(`${d.url}/oauth/authorize?client_id=nobody`, {headers: {origin: 'https://evil.example'}})
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('dynamic client registration', () => {
  it('registers a public client and echoes every registered field', async () => {
    const res = await register(d, {
      redirect_uris: ['http://localhost:3000/callback'],
      client_name: 'Claude Code',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      client_uri: 'https://claude.ai',
      scope: 'kb',
    })
    expect(res.status).toBe(201)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    const c = res.body
    expect(typeof c.client_id).toBe('string')
    expect(Number.isInteger(c.client_id_issued_at)).toBe(true)
    expect(Math.abs(c.client_id_issued_at - Date.now() / 1000)).toBeLessThan(60)
    expect(c).toMatchObject({
      redirect_uris: ['http://localhost:3000/callback'],
      client_name: 'Claude Code',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      client_uri: 'https://claude.ai',
      scope: 'kb',
    })
    expect(c.client_secret).toBeUndefined()
    expect(hasNull(c)).toBe(false)
  })

  it('accepts JSON with a charset parameter', async () => {
    const res = await fetch(`${d.url}/oauth/register`, {
      method: 'POST',
      headers: {'content-type': 'application/json; charset=utf-8'},
      body: JSON.stringify({redirect_uris: ['http://127.0.0.1/cb']}),
    })
    expect(res.status).toBe(201)
  })

  it('treats a client that names no auth method as public and says so', async () => {
    const c = await registerOk(d, {redirect_uris: ['https://vscode.dev/redirect']})
    expect(c.token_endpoint_auth_method).toBe('none')
    expect(c.client_secret).toBeUndefined()
    expect(c.grant_types).toEqual(['authorization_code', 'refresh_token'])
    expect(c.response_types).toEqual(['code'])
  })

  it('gives a confidential client a secret that never expires', async () => {
    for (const method of ['client_secret_basic', 'client_secret_post']) {
      const c = await registerOk(d, {redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: method})
      expect(c.token_endpoint_auth_method).toBe(method)
      expect(c.client_secret).toMatch(/^kbcs_[0-9A-Za-z]{43}$/)
      expect(c.client_secret_expires_at).toBe(0)
    }
  })

  it('accepts the redirect shapes real clients send', async () => {
    for (const uri of [
      'http://localhost:33418/callback',
      'http://127.0.0.1:33418/',
      'http://[::1]:8080/cb',
      'https://vscode.dev/redirect',
      'cursor://anysphere.cursor-mcp/oauth/callback',
      'com.example.app:/oauth2redirect',
    ]) {
      const c = await registerOk(d, {redirect_uris: [uri]})
      expect(c.redirect_uris).toEqual([uri])
    }
  })

  it('rejects dangerous or malformed redirect URIs with invalid_redirect_uri', async () => {
    const bad: unknown[] = [
      'javascript:alert(1)',
      'data:text/html,hi',
      'file:///etc/passwd',
      'https://app.example/cb#frag',
      'http://app.example/cb',
      'http://192.168.1.10:8080/cb',
      'not a uri',
      '/relative/path',
      '',
      'https://user:pw@app.example/cb',
      42,
    ]
    for (const uri of bad) {
      const res = await register(d, {redirect_uris: [uri]})
      expectOAuthError(res, 400, 'invalid_redirect_uri')
    }
    expectOAuthError(await register(d, {client_name: 'no uris'}), 400, 'invalid_redirect_uri')
    expectOAuthError(await register(d, {redirect_uris: []}), 400, 'invalid_redirect_uri')
    expectOAuthError(await register(d, {redirect_uris: 'https://app.example/cb'}), 400, 'invalid_redirect_uri')
    // One bad URI spoils the list.
    expectOAuthError(await register(d, {redirect_uris: ['https://app.example/cb', 'javascript:alert(1)']}), 400, 'invalid_redirect_uri')
  })

  it('rejects unsupported metadata with invalid_client_metadata', async () => {
    const uris = ['https://app.example/cb']
    expectOAuthError(
      await register(d, {redirect_uris: uris, token_endpoint_auth_method: 'private_key_jwt'}),
      400,
      'invalid_client_metadata',
    )
    expectOAuthError(await register(d, {redirect_uris: uris, grant_types: ['client_credentials']}), 400, 'invalid_client_metadata')
    expectOAuthError(await register(d, {redirect_uris: uris, grant_types: ['refresh_token']}), 400, 'invalid_client_metadata')
    expectOAuthError(await register(d, {redirect_uris: uris, response_types: ['token']}), 400, 'invalid_client_metadata')
    expectOAuthError(await register(d, {redirect_uris: uris, client_name: 7}), 400, 'invalid_client_metadata')
  })

  it('answers a malformed body with 400 JSON, never 5xx or HTML', async () => {
    const cases: Array<[string | undefined, string]> = [
      ['application/json', '{not json'],
      ['application/json', '[1,2]'],
      ['application/json', 'null'],
      ['text/plain', 'hello'],
      ['application/x-www-form-urlencoded', 'redirect_uris=https://a.example/cb'],
      [undefined, ''],
    ]
    for (const [type, body] of cases) {
      const res = await fetch(`${d.url}/oauth/register`, {method: 'POST', headers: type ? {'content-type': type} : {}, body})
      const text = await res.text()
      expect(res.status, `${type} ${body}: ${text}`).toBe(400)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      expect(JSON.parse(text).error).toMatch(/^invalid_(client_metadata|redirect_uri)$/)
    }
  })

  it('ignores metadata it does not understand instead of failing', async () => {
    const c = await registerOk(d, {
      redirect_uris: ['https://app.example/cb'],
      jwks_uri: 'https://app.example/jwks',
      software_statement: 'x',
      logo_uri: 'data:image/png;base64,AAAA',
    })
    expect(c.jwks_uri).toBeUndefined()
    expect(c.logo_uri).toBeUndefined()
  })
})

describe('registration rate limit', () => {
  it('lets a dozen clients a minute through, then answers 429 with Retry-After', async () => {
    // A daemon of its own, so the other tests' registrations do not count.
    const fresh = await startInProcessDaemon()
    try {
      const statuses: number[] = []
      let limited: Awaited<ReturnType<typeof register>> | null = null
      for (let i = 0; i < 40 && !limited; i++) {
        const res = await register(fresh, {redirect_uris: ['http://127.0.0.1/cb']})
        statuses.push(res.status)
        if (res.status === 429) limited = res
      }
      expect(statuses.slice(0, 12).every((s) => s === 201)).toBe(true)
      expect(limited, 'no 429 after 40 registrations').not.toBeNull()
      expect(limited!.body.error).toBe('too_many_requests')
      expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    } finally {
      await fresh.stop()
    }
  })
})

describe('a configured public base URL', () => {
  it('is the issuer, the resource and the consent form target, and makes the form cookie Secure', async () => {
    const {startDaemon} = await import('../../../server/daemon.js')
    const {tempDir} = await import('../../helpers/daemon.js')
    const {rmSync} = await import('node:fs')
    const dataDir = tempDir()
    const publicUrl = 'https://kb.example.com/api/v1'
    const daemon = await startDaemon({dataDir, host: '127.0.0.1', port: 0, version: 'test', logLevel: 'silent', publicBaseUrl: publicUrl})
    try {
      const local = daemon.url.slice(0, -'/api/v1'.length)
      for (const p of [
        '/.well-known/oauth-authorization-server',
        '/.well-known/oauth-authorization-server/api/v1',
        '/api/v1/.well-known/oauth-authorization-server',
      ]) {
        const m = (await (await fetch(local + p)).json()) as {issuer: string; token_endpoint: string}
        expect(m.issuer).toBe(publicUrl)
        expect(m.token_endpoint).toBe(`${publicUrl}/oauth/token`)
      }
      const prm = await (await fetch(`${local}/.well-known/oauth-protected-resource/api/v1/mcp`)).json()
      expect(prm).toMatchObject({resource: `${publicUrl}/mcp`, authorization_servers: [publicUrl]})
      const c = (await (
        await fetch(`${daemon.url}/oauth/register`, {
          method: 'POST',
          headers: {'content-type': 'application/json'},
          body: JSON.stringify({redirect_uris: ['https://app.example/cb']}),
        })
      ).json()) as {client_id: string}
      const res = await fetch(
        `${daemon.url}/oauth/authorize?response_type=code&client_id=${c.client_id}&code_challenge=${'A'.repeat(43)}&code_challenge_method=S256`,
      )
      const html = await res.text()
      expect(res.status).toBe(200)
      expect(html).toContain(`action="${publicUrl}/oauth/authorize"`)
      expect(res.headers.get('set-cookie')).toMatch(/; Secure/)
      const unauth = await fetch(`${daemon.url}/knowledge`)
      expect(unauth.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${publicUrl}/.well-known/oauth-protected-resource"`)
    } finally {
      await daemon.stop()
      rmSync(dataDir, {recursive: true, force: true})
    }
  })
})
