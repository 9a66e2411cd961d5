/**
 * `kb auth login --web` when it does not end in a sign-in: the consent denied in chromium, no answer
 * within --timeout, stray requests to the loopback listener, and a cached client the server no longer
 * knows (registered again rather than sending the browser to an error page).
 */
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, expect, it} from 'vitest'
import type {ChildDaemon} from '../helpers/daemon.js'
import {consent, startLogin, startAuthWebFixture, type AuthWebFixture} from './auth-web-support.js'
import type {KbEnv} from './helpers.js'
import {requireSystem} from '../helpers/system.js'

const FORGOTTEN = '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980'

let d: ChildDaemon
let browser: Browser
let user: KbEnv

let fixture: AuthWebFixture | undefined

beforeAll(async () => {
  fixture = await startAuthWebFixture('kb-auth-web-fail-daemon-', {KB_KEYCHAIN_TIMEOUT_MS: '1000'})
  ;({d, browser, user} = fixture)
}, 60_000)

afterAll(async () => {
  await fixture?.stop()
})

const configFile = (name: string): string => join(user.env.XDG_CONFIG_HOME!, 'kb', name)
const readJson = (path: string): any => JSON.parse(readFileSync(path, 'utf8'))

requireSystem('chromium').describe('kb auth login --web without a sign-in', () => {
  it('times out with a clear message; without a display it prints the URL; stray requests are ignored; a client the server forgot is registered again', async () => {
    // A client cached by an earlier login that the server has since swept.
    mkdirSync(join(user.env.XDG_CONFIG_HOME!, 'kb'), {recursive: true})
    writeFileSync(
      configFile('oauth-clients.json'),
      JSON.stringify({version: 1, clients: {[d.url]: {client_id: FORGOTTEN, issuer: d.url, registered_at: '2026-01-01T00:00:00.000Z'}}}),
    )
    // No --no-browser: with DISPLAY and WAYLAND_DISPLAY empty there is no browser to open.
    const login = startLogin(user, d.dataDir, ['--timeout', '2'])
    const url = new URL(await login.url)
    // Another path, and a callback whose state is not this sign-in's (a page slipping its own code in).
    const redirect = new URL(url.searchParams.get('redirect_uri')!)
    expect(redirect.hostname).toBe('127.0.0.1')
    expect((await fetch(`${redirect.origin}/favicon.ico`)).status).toBe(404)
    const stray = await fetch(`${redirect.href}?code=kbac_forged&state=not-ours&iss=${encodeURIComponent(d.url)}`)
    expect(stray.status).toBe(400)
    expect(stray.headers.get('cache-control')).toBe('no-store')
    expect(await stray.text()).toContain('Not the sign-in kb is waiting for')

    const r = await login.done
    expect(r.code, r.stderr).toBe(4)
    expect(r.stderr).toContain('Open this URL in a browser')
    expect(r.stderr).toMatch(/kb: no sign-in arrived from the browser within 2 s; run `kb auth login --web` again/)
    expect(JSON.parse(r.stdout).error).toMatchObject({code: 'unauthenticated', exit: 4})
    expect(r.ms).toBeLessThan(15_000)
    const fresh = readJson(configFile('oauth-clients.json')).clients[d.url].client_id
    expect(fresh).not.toBe(FORGOTTEN)
    expect(url.searchParams.get('client_id')).toBe(fresh)
    // The listener went with the process: the redirect port refuses connections.
    await expect(fetch(`${redirect.origin}/callback?code=x&state=y`)).rejects.toThrow()
  })

  it('deny: the page says so, kb exits 4 and stores nothing; the cached client is reused', async () => {
    const cached = readJson(configFile('oauth-clients.json')).clients[d.url].client_id
    const login = startLogin(user, d.dataDir)
    const url = new URL(await login.url)
    expect(url.searchParams.get('client_id')).toBe(cached)
    const page = await consent(browser, url.toString(), '', 'deny')
    expect(page.title).toBe('Sign-in denied')
    expect(page.body).toContain('You can close this tab')
    expect(page.landed.searchParams.get('error')).toBe('access_denied')
    const r = await login.done
    expect(r.code, r.stderr).toBe(4)
    expect(r.stderr).toContain('kb: the sign-in was denied in the browser; nothing was stored')
    expect(JSON.parse(r.stdout).error).toMatchObject({code: 'unauthenticated', exit: 4})
    let creds: any = {credentials: {}}
    try {
      creds = readJson(configFile('credentials.json'))
    } catch {
      // never written: nothing was stored
    }
    expect(creds.credentials[d.url]).toBeUndefined()
  })
})
