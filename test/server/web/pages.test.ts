/**
 * The web view over HTTP (docs/web.md), on both drivers: a visitor without a session sees only the sign-in page;
 * sign-in by key and by one-time link; every page carries the strict CSP; hidden entries are 404 pages; a session
 * ends with its key, with sign-out and with `DELETE /oauth/grants/:id`; forms without their token are refused;
 * hostile entries render as text; anchors link to the forge; `--no-web` serves the API alone.
 */
import {request} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {longestHold} from '../../helpers/loop-hold.js'
import {formToken, HOSTILE, signIn, webClient, webRoot} from './support.js'
import {shortId} from '../../../src/shared/short-id.js'

let d: TestDaemon
let entryId: string
let aliceKey: string
let alicePrivate: string

const CSP = /default-src 'none'; script-src 'self'; style-src 'self'.*frame-ancestors 'none'/

beforeAll(async () => {
  d = await startInProcessDaemon()
  const project = await d.request('POST', '/projects/join', {body: {remote: 'https://github.com/Acme/api.git'}})
  expect(project.status, project.text).toBe(201)
  const e = await d.request('POST', '/knowledge', {
    body: {
      title: 'Port 7411 already in use',
      body: 'Run `lsof -i :7411` and stop the **other** daemon.',
      scope: 'project',
      project_id: project.body.project.id,
      tags: ['ports', 'daemon'],
      anchors: [{path: 'server/daemon.ts', lines: '40-62', commit: 'a'.repeat(40)}],
    },
  })
  expect(e.status, e.text).toBe(201)
  entryId = e.body.id
  const alice = await d.request('POST', '/api-keys', {body: {principal: 'alice'}})
  aliceKey = alice.body.key
  alicePrivate = (await d.request('POST', '/knowledge', {key: aliceKey, body: {title: 'Alice only', body: 'mine', scope: 'private'}})).body
    .id
})
afterAll(async () => d?.stop())

describe('without a session', () => {
  it('every page sends to the sign-in page, which comes back to it', async () => {
    const c = webClient(d)
    for (const path of ['/', '/search?q=port', `/e/${entryId}`, '/review', '/projects']) {
      const res = await c.get(path)
      expect(res.status, path).toBe(303)
      expect(res.headers.get('location')).toBe(`/signin?next=${encodeURIComponent(path)}`)
      expect(res.headers.get('content-security-policy')).toMatch(CSP)
    }
    const page = await c.get('/signin')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toMatch(CSP)
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    const text = await page.text()
    expect(text).toContain('Sign in to kb')
    expect(text).toContain('href="/signin/oauth?next=%2Fsearch"')
    expect(text).not.toContain('Port 7411')
  })

  it('refuses a sign-in form without its token, a wrong key, and a next that leaves the site', async () => {
    const c = webClient(d)
    const noToken = await c.post('/signin', {api_key: d.ownerKey, next: '/search'})
    expect(noToken.status).toBe(403)
    expect(await noToken.text()).toContain('could not be verified')
    expect(c.cookies.has('kb_session')).toBe(false)

    const wrong = await signIn(c, `kb_${'Z'.repeat(43)}`)
    expect(wrong.status).toBe(400)
    expect(await wrong.text()).toContain('unknown, revoked or expired')

    const away = await signIn(c, d.ownerKey, '//evil.example/x')
    expect(away.status).toBe(303)
    expect(away.headers.get('location')).toBe('/search')
  })

  it('refuses another Host, as the API does', async () => {
    // fetch cannot send another Host: node:http can.
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${webRoot(d)}/signin`)
      request({host: u.hostname, port: u.port, path: u.pathname, headers: {host: 'evil.example'}}, (res) => {
        res.resume()
        resolve(res.statusCode!)
      })
        .on('error', reject)
        .end()
    })
    expect(status).toBe(403)
  })
})

describe('signed in by key', () => {
  it('sets an HttpOnly SameSite session cookie and shows every page with the CSP', async () => {
    const c = webClient(d)
    const res = await signIn(c, d.ownerKey, `/e/${entryId}`)
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe(`/e/${entryId}`)
    const set = res.headers.getSetCookie().find((l) => l.startsWith('kb_session='))!
    expect(set).toMatch(/; HttpOnly/)
    expect(set).toMatch(/; SameSite=Lax/)
    expect(set).not.toMatch(/Secure/) // plain http on loopback
    expect(set).not.toContain(d.ownerKey)

    for (const path of ['/search', '/search?q=port', `/e/${entryId}`, '/review', '/projects', '/review?kind=stale']) {
      const page = await c.get(path)
      expect(page.status, path).toBe(200)
      expect(page.headers.get('content-security-policy'), path).toMatch(CSP)
      expect(page.headers.get('cache-control')).toBe('no-store')
      const html = await page.text()
      expect(html).not.toMatch(/<script>|<style>| style=| on[a-z]+=/i)
      expect(Buffer.byteLength(html), path).toBeLessThan(60 * 1024)
    }
  })

  it('searches with highlighted snippets and filters, and opens the entry with its forge links', async () => {
    const c = webClient(d)
    await signIn(c, d.ownerKey)
    const found = await (await c.get('/search?q=lsof&tag=ports')).text()
    expect(found).toContain(`href="/e/${entryId}"`)
    expect(found).toContain('<mark>lsof</mark>')
    expect(found).toContain('1 entry matches')
    const none = await (await c.get('/search?q=lsof&tag=other')).text()
    expect(none).toContain('Nothing matched')

    const page = await (await c.get(`/e/${entryId}`)).text()
    expect(page).toContain('<h1>Port 7411 already in use</h1>')
    expect(page).toContain('<strong>other</strong>')
    expect(page).toContain(`href="https://github.com/acme/api/blob/${'a'.repeat(40)}/server/daemon.ts#L40-L62"`)
    expect(page).toContain('href="/search?tag=ports"')
  })

  it("shows another person's private entry, and an unknown id, as the same 404 page", async () => {
    const c = webClient(d)
    await signIn(c, d.ownerKey)
    const hidden = await c.get(`/e/${alicePrivate}`)
    const missing = await c.get('/e/00000000-0000-4000-8000-000000000000')
    const junk = await c.get('/e/not-an-id')
    for (const res of [hidden, missing, junk]) {
      expect(res.status).toBe(404)
      expect(res.headers.get('content-security-policy')).toMatch(CSP)
    }
    const [a, b] = [await hidden.text(), await missing.text()]
    expect(a).not.toContain('Alice only')
    expect(a).toBe(b)
  })

  it('leads a short id, as kb prints it, to the permanent link; one naming a hidden entry is the 404 page', async () => {
    const c = webClient(d)
    await signIn(c, d.ownerKey)
    for (const ref of [shortId(entryId), shortId(entryId, 12).toUpperCase()]) {
      const res = await c.get(`/e/${ref}`)
      expect(res.status, ref).toBe(303)
      expect(new URL(res.headers.get('location')!, 'http://x').pathname).toMatch(new RegExp(`/e/${entryId}$`))
    }
    for (const ref of [shortId(alicePrivate, 12), 'fffffffffffff', 'zz']) expect((await c.get(`/e/${ref}`)).status, ref).toBe(404)
  })

  it('ends with sign-out (which needs its token), and with the key that made it', async () => {
    const key = (await d.request('POST', '/api-keys', {body: {name: 'web-test'}})).body
    const c = webClient(d)
    await signIn(c, key.key)
    expect((await c.get('/projects')).status).toBe(200)

    const forged = await c.post('/signout', {csrf_token: 'x'.repeat(43)})
    expect(forged.status).toBe(403)
    expect((await c.get('/projects')).status).toBe(200)

    // Revoking the key ends the session at once.
    expect((await d.request('DELETE', '/api-keys', {body: {id: key.id}})).status).toBe(204)
    const after = await c.get('/projects')
    expect(after.status).toBe(303)
    expect(after.headers.get('location')).toMatch(/^\/signin/)

    const c2 = webClient(d)
    await signIn(c2, d.ownerKey)
    const out = await c2.post('/signout', {csrf_token: await c2.csrf()})
    expect(out.status).toBe(303)
    expect(c2.cookies.has('kb_session')).toBe(false)
  })

  it('is listed and revoked with the grants', async () => {
    const c = webClient(d)
    await signIn(c, aliceKey)
    const grants = await d.request('GET', '/oauth/grants', {key: aliceKey})
    const mine = grants.body.items.filter((g: any) => g.client_id === 'kb-web')
    expect(mine).toHaveLength(1)
    expect((await d.request('DELETE', `/oauth/grants/${mine[0].id}`, {key: d.ownerKey})).status).toBe(404)
    expect((await d.request('DELETE', `/oauth/grants/${mine[0].id}`, {key: aliceKey})).status).toBe(204)
    expect((await c.get('/projects')).status).toBe(303)
    expect((await d.request('GET', '/oauth/grants', {key: aliceKey})).body.items).toEqual([])
  })
})

describe('one-time sign-in links', () => {
  it('sign the browser in once, as the key that asked, and land on the page asked for', async () => {
    const link = await d.request('POST', '/web/links', {body: {next: `/e/${entryId}`}})
    expect(link.status, link.text).toBe(201)
    expect(link.body.url).toMatch(new RegExp(`^${webRoot(d)}/signin/link\\?code=kbwl_`))
    expect(link.body.url).not.toContain(d.ownerKey)
    expect(link.headers.get('cache-control')).toBe('no-store')
    const path = link.body.url.slice(webRoot(d).length)

    const c = webClient(d)
    const first = await c.get(path)
    expect(first.status).toBe(303)
    expect(first.headers.get('location')).toBe(`/e/${entryId}`)
    expect((await c.get(`/e/${entryId}`)).status).toBe(200)

    const again = await webClient(d).get(path)
    expect(again.status).toBe(400)
    expect(await again.text()).toContain('unknown, used or expired')
  })

  it('refuse a next that is not a path of this site', async () => {
    for (const next of ['https://evil.example/', '//evil.example/', '/\\evil.example']) {
      expect((await d.request('POST', '/web/links', {body: {next}})).status).toBe(422)
    }
  })
})

describe('hostile entries', () => {
  it('render as text: no markup, no script, no javascript: link, no direction override', async () => {
    const e = await d.request('POST', '/knowledge', {
      body: {title: HOSTILE.title, body: HOSTILE.body, tags: [HOSTILE.tag], scope: 'private'},
    })
    expect(e.status, e.text).toBe(201)
    expect((await d.request('POST', `/knowledge/${e.body.id}/comments`, {body: {body: HOSTILE.comment}})).status).toBe(201)
    const c = webClient(d)
    await signIn(c, d.ownerKey)
    for (const path of [`/e/${e.body.id}`, '/search?q=hostile', '/search']) {
      const html = await (await c.get(path)).text()
      const main = html.slice(html.indexOf('<main'))
      expect(main, path).not.toMatch(/<(script|img|iframe|style|a href="javascript)/i)
      // Every `<` of the text is escaped, so any `<` left starts real markup: none of it may carry a handler.
      expect(main, path).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i)
      expect(main, path).not.toMatch(/href="(javascript|data|vbscript):/i)
      expect(main, path).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b]/)
    }
    const page = await (await c.get(`/e/${e.body.id}`)).text()
    expect(page).toContain('&lt;script&gt;window.__pwned=3&lt;/script&gt;')
    expect(page).toContain('<a href="https://example.com/ok" rel="noopener nofollow ugc">safe</a>')
    expect(page).toContain('href="mailto:team@example.com"')
  })
})

describe('bounded work', () => {
  it('renders 100,000-character adversarial bodies in linear time, the loop held briefly', async () => {
    const N = 100_000
    const shapes: Record<string, string> = {
      brackets: '['.repeat(N),
      'open links': '[a]('.repeat(N / 4),
      emphasis: '*_'.repeat(N / 2),
      backticks: '`'.repeat(N),
      'nested quotes': '>'.repeat(N),
      'nested lists': Array.from({length: 2000}, (_, i) => `${' '.repeat(i % 60)}- x`)
        .join('\n')
        .slice(0, N),
      entities: '&#'.repeat(N / 2),
      'bidi and tags': '\u202e<b>'.repeat(N / 4),
    }
    const c = webClient(d)
    await signIn(c, d.ownerKey)
    for (const [name, body] of Object.entries(shapes)) {
      const e = await d.request('POST', '/knowledge', {body: {title: name, body, scope: 'private'}})
      expect(e.status, `${name}: ${e.text.slice(0, 200)}`).toBe(201)
      const {result, worstMs} = await longestHold(() => c.get(`/e/${e.body.id}`))
      expect(result.status, name).toBe(200)
      await result.text()
      // markdown-it is linear; 100k characters take tens of milliseconds. Generous for a loaded machine.
      expect(worstMs, name).toBeLessThan(1000)
    }
  })
})

describe('GET /knowledge/:id', () => {
  it("answers with the entry's web_url", async () => {
    const res = await d.request('GET', `/knowledge/${entryId}`)
    expect(res.body.web_url).toBe(`${webRoot(d)}/e/${entryId}`)
  })
})

describe('--no-web', () => {
  it('serves the API alone', async () => {
    const off = await startInProcessDaemon({web: false})
    try {
      const root = webRoot(off)
      for (const path of ['/signin', '/search', '/']) expect((await fetch(root + path, {redirect: 'manual'})).status, path).toBe(404)
      const e = await off.request('POST', '/knowledge', {body: {title: 't', body: 'b'}})
      expect((await off.request('GET', `/knowledge/${e.body.id}`)).body.web_url).toBeUndefined()
      expect((await off.request('POST', '/web/links', {body: {}})).status).toBe(404)
    } finally {
      await off.stop()
    }
  })
})

describe('behind a proxy at a public https origin', () => {
  it('links under its prefix and marks the cookie Secure', async () => {
    const p = await startInProcessDaemon({publicBaseUrl: 'https://kb.example.com/team/api/v1'})
    try {
      const res = await p.request('GET', '/knowledge?limit=1')
      expect(res.status).toBe(200)
      const link = await p.request('POST', '/web/links', {body: {next: '/search'}})
      expect(link.body.url).toMatch(/^https:\/\/kb\.example\.com\/team\/signin\/link\?code=kbwl_[0-9A-Za-z]+&next=%2Fteam%2Fsearch$/)
      const root = webRoot(p)
      const signin = await fetch(`${root}/signin`)
      expect(signin.headers.getSetCookie()[0]).toMatch(/Path=\/team; HttpOnly; SameSite=Strict; Max-Age=3600; Secure/)
      expect(await signin.text()).toContain('action="/team/signin"')
      void formToken
    } finally {
      await p.stop()
    }
  })
})
