/**
 * The authorization endpoint and its consent form, over real HTTP: which errors show a page and which
 * redirect, loopback redirects on any port, the page's security headers, CSRF protection, wrong keys,
 * deny, and single use.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {approve, authorizeUrl, obtainTokens, openConsent, pkcePair, registerOk, submitConsent, type Registered} from './support.js'

let d: TestDaemon
let client: Registered
const REDIRECT = 'http://127.0.0.1:33418/callback'
const {challenge} = pkcePair()

beforeAll(async () => {
  d = await startInProcessDaemon()
  client = await registerOk(d, {redirect_uris: [REDIRECT], client_name: 'Test <b>Editor</b> & "friends"'})
})
afterAll(async () => {
  await d?.stop()
})

function params(over: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-123',
    ...over,
  }
}

async function get(url: string): Promise<Response> {
  return fetch(url, {redirect: 'manual'})
}

/** Asserts an HTML error page: 4xx, no redirect, the page's security headers. */
async function expectErrorPage(res: Response, status: number, text: RegExp): Promise<void> {
  const html = await res.text()
  expect(res.status, html.slice(0, 300)).toBe(status)
  expect(res.headers.get('location')).toBeNull()
  expect(res.headers.get('content-type')).toMatch(/^text\/html/)
  expect(res.headers.get('cache-control')).toBe('no-store')
  expect(html).toMatch(text)
}

/** Asserts an error redirect to the client with state and iss echoed. */
function expectErrorRedirect(res: Response, error: string, base = REDIRECT): URL {
  expect(res.status).toBeGreaterThanOrEqual(302)
  expect(res.status).toBeLessThanOrEqual(303)
  const loc = new URL(res.headers.get('location')!)
  expect(`${loc.origin}${loc.pathname}`).toBe(base)
  expect(loc.searchParams.get('error')).toBe(error)
  expect(loc.searchParams.get('error_description')).toBeTruthy()
  expect(loc.searchParams.get('state')).toBe('st-123')
  expect(loc.searchParams.get('iss')).toBe(d.url)
  expect(loc.searchParams.get('code')).toBeNull()
  return loc
}

describe('requests that must not redirect', () => {
  it('shows an error page for an unknown or missing client', async () => {
    await expectErrorPage(await get(authorizeUrl(d, params({client_id: 'no-such-client'}))), 400, /No application is registered/)
    await expectErrorPage(await get(authorizeUrl(d, params({client_id: undefined}))), 400, /client_id is missing/)
  })

  it('shows an error page for an unregistered redirect URI, and never sends the browser there', async () => {
    for (const uri of [
      'https://evil.example/callback',
      'http://127.0.0.1:33418/other',
      'http://127.0.0.2:33418/callback',
      'http://127.0.0.1:33418/callback?x=1',
      'http://127.0.0.1:33418/callback#f',
    ]) {
      await expectErrorPage(await get(authorizeUrl(d, params({redirect_uri: uri}))), 400, /not registered/)
    }
  })

  it('needs redirect_uri when the client registered several, not when it registered one', async () => {
    const two = await registerOk(d, {redirect_uris: ['https://a.example/cb', 'https://b.example/cb']})
    await expectErrorPage(
      await get(authorizeUrl(d, params({client_id: two.client_id, redirect_uri: undefined}))),
      400,
      /redirect_uri is required/,
    )
    const form = await openConsent(authorizeUrl(d, params({redirect_uri: undefined})))
    expect(form.requestId).not.toBe('')
  })
})

describe('loopback redirects (RFC 8252)', () => {
  it('match on any port, for 127.0.0.1, [::1] and localhost', async () => {
    const c = await registerOk(d, {redirect_uris: ['http://127.0.0.1:33418/', 'http://localhost/cb', 'http://[::1]:9/cb']})
    for (const uri of ['http://127.0.0.1:51234/', 'http://127.0.0.1/', 'http://localhost:8765/cb', 'http://[::1]:40000/cb']) {
      const back = await approve(d, authorizeUrl(d, params({client_id: c.client_id, redirect_uri: uri})), d.ownerKey)
      expect(`${back.origin}${back.pathname}`).toBe(new URL(uri).toString().replace(/\?.*$/, ''))
      expect(back.searchParams.get('code')).toMatch(/^kbac_/)
    }
  })

  it('do not stretch to other hosts, paths or schemes', async () => {
    const c = await registerOk(d, {redirect_uris: ['http://127.0.0.1:33418/cb', 'https://app.example:8443/cb']})
    for (const uri of [
      'http://localhost:33418/cb',
      'http://127.0.0.1:1/cb2',
      'https://app.example:9443/cb',
      'https://127.0.0.1:33418/cb',
    ]) {
      await expectErrorPage(await get(authorizeUrl(d, params({client_id: c.client_id, redirect_uri: uri}))), 400, /not registered/)
    }
  })
})

describe('requests that redirect with an error', () => {
  it('refuses the plain PKCE method, and a missing challenge or method', async () => {
    expectErrorRedirect(await get(authorizeUrl(d, params({code_challenge_method: 'plain'}))), 'invalid_request')
    expectErrorRedirect(await get(authorizeUrl(d, params({code_challenge_method: undefined}))), 'invalid_request')
    expectErrorRedirect(await get(authorizeUrl(d, params({code_challenge: undefined}))), 'invalid_request')
    expectErrorRedirect(await get(authorizeUrl(d, params({code_challenge: 'short'}))), 'invalid_request')
  })

  it('refuses other response types', async () => {
    expectErrorRedirect(await get(authorizeUrl(d, params({response_type: 'token'}))), 'unsupported_response_type')
    expectErrorRedirect(await get(authorizeUrl(d, params({response_type: undefined}))), 'invalid_request')
  })

  it('refuses a resource that is not this server (RFC 8707)', async () => {
    expectErrorRedirect(await get(authorizeUrl(d, params({resource: 'https://other.example/api/v1'}))), 'invalid_target')
    expectErrorRedirect(await get(authorizeUrl(d, params({resource: `${d.url}/knowledge`}))), 'invalid_target')
    for (const ok of [d.url, `${d.url}/`, `${d.url}/mcp`])
      expect((await openConsent(authorizeUrl(d, params({resource: ok})))).requestId).not.toBe('')
  })

  it('refuses repeated parameters', async () => {
    const url = `${authorizeUrl(d, params())}&code_challenge=${challenge}`
    expectErrorRedirect(await get(url), 'invalid_request')
  })

  it('keeps the registered query of a redirect URI and adds to it', async () => {
    const c = await registerOk(d, {redirect_uris: ['https://app.example/cb?tenant=7']})
    const res = await get(
      authorizeUrl(d, params({client_id: c.client_id, redirect_uri: 'https://app.example/cb?tenant=7', response_type: 'token'})),
    )
    const loc = new URL(res.headers.get('location')!)
    expect(loc.searchParams.get('tenant')).toBe('7')
    expect(loc.searchParams.get('error')).toBe('unsupported_response_type')
  })
})

describe('the consent page', () => {
  it('names the client and where it will send you, escaped, with no-store and no framing', async () => {
    const form = await openConsent(authorizeUrl(d, params()))
    expect(form.headers.get('cache-control')).toBe('no-store')
    expect(form.headers.get('x-frame-options')).toBe('DENY')
    expect(form.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(form.html).toContain('Test &lt;b&gt;Editor&lt;/b&gt; &amp; &quot;friends&quot;')
    expect(form.html).not.toContain('<b>Editor</b>')
    expect(form.html).toContain('127.0.0.1:33418')
    expect(form.html).not.toMatch(/<script/i)
    expect(form.requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(form.csrf.length).toBeGreaterThanOrEqual(43)
    expect(form.cookie.startsWith(`kb_oauth_${form.requestId}=`)).toBe(true)
    const setCookie = form.headers.get('set-cookie')!
    expect(setCookie).toMatch(/HttpOnly/)
    expect(setCookie).toMatch(/SameSite=Strict/)
  })

  it('approves with a valid API key: a code, state and iss go back to the client', async () => {
    const back = await approve(d, authorizeUrl(d, params()), d.ownerKey)
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT)
    expect(back.searchParams.get('code')).toMatch(/^kbac_[0-9A-Za-z]{43}$/)
    expect(back.searchParams.get('state')).toBe('st-123')
    expect(back.searchParams.get('iss')).toBe(d.url)
  })

  it('shows the page again with an error for a wrong or missing key, and then still approves', async () => {
    const form = await openConsent(authorizeUrl(d, params()))
    for (const key of ['kb_wrongwrongwrongwrongwrongwrongwrongwrongwro', '', 'not a key']) {
      const res = await submitConsent(d, form, {api_key: key, decision: 'approve'})
      const html = await res.text()
      expect(res.status).toBe(400)
      expect(res.headers.get('location')).toBeNull()
      expect(html).toMatch(/role="alert"/)
      expect(html).toContain(form.requestId)
    }
    const ok = await submitConsent(d, form, {api_key: d.ownerKey, decision: 'approve'})
    expect(ok.status).toBe(303)
    expect(new URL(ok.headers.get('location')!).searchParams.get('code')).toBeTruthy()
  })

  it('denies: access_denied with state and iss, and clears the form cookie', async () => {
    const form = await openConsent(authorizeUrl(d, params()))
    const res = await submitConsent(d, form, {decision: 'deny'})
    expect(res.status).toBe(303)
    expectErrorRedirect(res, 'access_denied')
    expect(res.headers.get('set-cookie')).toMatch(/Max-Age=0/)
  })

  it('refuses a form without its cookie, with a wrong token, or for an unknown request', async () => {
    const form = await openConsent(authorizeUrl(d, params()))
    await expectErrorPage(
      await submitConsent(d, form, {api_key: d.ownerKey, decision: 'approve'}, {cookie: null}),
      403,
      /could not be verified/,
    )
    await expectErrorPage(
      await submitConsent(d, {...form, csrf: 'x'.repeat(43)}, {api_key: d.ownerKey, decision: 'approve'}),
      403,
      /could not be verified/,
    )
    const other = await openConsent(authorizeUrl(d, params()))
    // Another consent page's token and cookie do not fit this request.
    await expectErrorPage(
      await submitConsent(d, {...form, csrf: other.csrf}, {api_key: d.ownerKey, decision: 'approve'}, {cookie: other.cookie}),
      403,
      /could not be verified/,
    )
    await expectErrorPage(
      await submitConsent(d, {...form, requestId: '00000000-0000-4000-8000-000000000000'}, {api_key: d.ownerKey, decision: 'approve'}),
      400,
      /expired/,
    )
    // None of that consumed the real request.
    expect((await submitConsent(d, form, {api_key: d.ownerKey, decision: 'approve'})).status).toBe(303)
  })

  it('completes once: sending the approval twice gives no second code', async () => {
    const form = await openConsent(authorizeUrl(d, params()))
    expect((await submitConsent(d, form, {api_key: d.ownerKey, decision: 'approve'})).status).toBe(303)
    await expectErrorPage(await submitConsent(d, form, {api_key: d.ownerKey, decision: 'approve'}), 400, /expired|already/)
  })

  it('gives up after five wrong keys with access_denied', async () => {
    const form = await openConsent(authorizeUrl(d, params()))
    let res: Response | null = null
    for (let i = 0; i < 5; i++) res = await submitConsent(d, form, {api_key: `kb_${'x'.repeat(43)}`, decision: 'approve'})
    expectErrorRedirect(res!, 'access_denied')
  })

  it('takes only API keys as proof of identity, not OAuth access tokens', async () => {
    const {tokens} = await obtainTokens(d, d.ownerKey)
    const form = await openConsent(authorizeUrl(d, params()))
    const res = await submitConsent(d, form, {api_key: tokens.access_token, decision: 'approve'})
    expect(res.status).toBe(400)
    expect(res.headers.get('location')).toBeNull()
  })
})

describe('consent page rate limit', () => {
  it('lets a burst of sign-ins through, then shows a 429 page with Retry-After instead of storing more requests', async () => {
    const fresh = await startInProcessDaemon()
    try {
      const c = await registerOk(fresh, {redirect_uris: [REDIRECT]})
      const url = authorizeUrl(fresh, {
        response_type: 'code',
        client_id: c.client_id,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      })
      let limited: Response | null = null
      let ok = 0
      for (let i = 0; i < 200 && !limited; i++) {
        const res = await get(url)
        if (res.status === 429) limited = res
        else {
          expect(res.status).toBe(200)
          ok++
          await res.arrayBuffer()
        }
      }
      expect(ok).toBeGreaterThanOrEqual(100)
      expect(limited, 'no 429 after 200 consent pages').not.toBeNull()
      expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      await expectErrorPage(limited!, 429, /Too many sign-in pages/)
    } finally {
      await fresh.stop()
    }
  })
})

describe('what the consent page shows of a client (issue 24)', () => {
  it('prints no control, direction or invisible character of its name', async () => {
    const tricky = 'Good\u202Eeulav\u202C Editor\u0007\u200B\u2066x\u2069'
    const c = await registerOk(d, {redirect_uris: [REDIRECT], client_name: tricky})
    const form = await openConsent(authorizeUrl(d, {...params(), client_id: c.client_id}))
    const shown = /<span id="client-name">([^<]*)<\/span>/.exec(form.html)![1]!
    expect(shown).toBe('Good\ufffdeulav\ufffd Editor\ufffd\ufffd\ufffdx\ufffd')
    expect(form.html).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/)
  })
})
