/**
 * The consent page in a real browser (Debian's chromium driven by playwright-core), and the MCP TypeScript
 * SDK's client `auth()` flow end to end, its redirectToAuthorization played by that browser: discovery,
 * registration, consent, the redirect to a real loopback listener, code exchange, an API call, refresh.
 */
import {randomBytes} from 'node:crypto'
import {auth, type OAuthClientProvider} from '@modelcontextprotocol/sdk/client/auth.js'
import type {OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens} from '@modelcontextprotocol/sdk/shared/auth.js'
import {chromium, type Browser, type Page} from 'playwright-core'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {authorizeUrl, pkcePair, redirectListener, registerOk, tokenRequest, type RedirectListener} from './support.js'
import {requireSystem} from '../../helpers/system.js'

const system = requireSystem('chromium')
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

let d: TestDaemon
let browser: Browser
let listener: RedirectListener

beforeAll(async () => {
  // Started side by side; whatever did start is kept so afterAll can stop it even if another part failed.
  const [dr, br, lr] = await Promise.allSettled([
    startInProcessDaemon(),
    chromium.launch({executablePath: system.paths.chromium!, args: CHROMIUM_ARGS}),
    redirectListener('/callback'),
  ])
  if (dr.status === 'fulfilled') d = dr.value
  if (br.status === 'fulfilled') browser = br.value
  if (lr.status === 'fulfilled') listener = lr.value
  for (const r of [dr, br, lr]) if (r.status === 'rejected') throw r.reason
})
afterAll(async () => {
  await browser?.close()
  await listener?.close()
  await d?.stop()
})

async function withPage<T>(fn: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext()
  try {
    return await fn(await context.newPage())
  } finally {
    await context.close()
  }
}

system.describe('the consent page in chromium', () => {
  it('names the client and redirect host, shows an error for a wrong key, and approves with the right one', async () => {
    // Registered without a port: the listener's run-time port must still match (RFC 8252).
    const client = await registerOk(d, {redirect_uris: ['http://127.0.0.1/callback'], client_name: 'Chromium <Test> Client'})
    const {verifier, challenge} = pkcePair()
    const url = authorizeUrl(d, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: listener.url,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'browser-state',
      resource: d.url,
    })
    await withPage(async (page) => {
      const res = await page.goto(url)
      expect(res!.status()).toBe(200)
      expect(await page.textContent('#client-name')).toBe('Chromium <Test> Client')
      expect(await page.textContent('#redirect-host')).toBe(`127.0.0.1:${listener.port}`)

      await page.fill('#api_key', `kb_${'Z'.repeat(43)}`)
      await Promise.all([page.waitForLoadState('load'), page.click('button[value=approve]')])
      await page.waitForSelector('.error')
      expect(await page.textContent('.error')).toMatch(/unknown, revoked or expired/)
      expect(page.url()).toBe(`${d.url}/oauth/authorize`)

      await page.fill('#api_key', d.ownerKey)
      const arrived = listener.next()
      await Promise.all([page.waitForURL(`${listener.url}?**`), page.click('button[value=approve]')])
      const back = await arrived
      expect(back.searchParams.get('state')).toBe('browser-state')
      expect(back.searchParams.get('iss')).toBe(d.url)
      const code = back.searchParams.get('code')!
      expect(code).toMatch(/^kbac_/)
      expect(await page.textContent('body')).toContain('You can close this window.')

      const tokens = await tokenRequest(d, {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: listener.url,
        client_id: client.client_id,
      })
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200)
      expect((await d.request('GET', '/knowledge', {key: tokens.body.access_token})).status).toBe(200)
    })
  })

  it('denies: the browser lands on the client with access_denied', async () => {
    const client = await registerOk(d, {redirect_uris: [listener.url], client_name: 'Denied Client'})
    const url = authorizeUrl(d, {
      response_type: 'code',
      client_id: client.client_id,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 'deny-state',
    })
    await withPage(async (page) => {
      await page.goto(url)
      const arrived = listener.next()
      await Promise.all([page.waitForURL(`${listener.url}?**`), page.click('button[value=deny]')])
      const back = await arrived
      expect(back.searchParams.get('error')).toBe('access_denied')
      expect(back.searchParams.get('state')).toBe('deny-state')
      expect(back.searchParams.get('code')).toBeNull()
    })
  })

  it('refuses to be framed by another page', async () => {
    const client = await registerOk(d, {redirect_uris: [listener.url]})
    const url = authorizeUrl(d, {
      response_type: 'code',
      client_id: client.client_id,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    })
    await withPage(async (page) => {
      // The loopback listener is another origin; the frame must stay empty rather than show the form.
      await page.goto(`${listener.url}?frame`)
      await listener.next()
      await page.setContent(`<iframe id="f" src="${url}"></iframe>`)
      await page.waitForLoadState('load')
      const frame = page.frames().find((f) => f !== page.mainFrame())
      const hasForm = frame
        ? await frame
            .$('form')
            .then((el) => el !== null)
            .catch(() => false)
        : false
      expect(hasForm).toBe(false)
    })
  })
})

/** An OAuthClientProvider as an MCP client implements it, with the browser step played by chromium. */
class BrowserProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ''
  lastState = ''
  authorizationUrls: URL[] = []

  constructor(
    private readonly page: Page,
    private readonly redirect: string,
    private readonly apiKey: string,
  ) {}

  get redirectUrl(): string {
    return this.redirect
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      redirect_uris: [this.redirect],
      client_name: 'MCP SDK test client',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }

  state(): string {
    this.lastState = randomBytes(16).toString('hex')
    return this.lastState
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info
  }

  tokens(): OAuthTokens | undefined {
    return this.saved
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrls.push(url)
    await this.page.goto(url.toString())
    await this.page.fill('#api_key', this.apiKey)
    await Promise.all([this.page.waitForURL(`${this.redirect}?**`), this.page.click('button[value=approve]')])
  }

  saveCodeVerifier(v: string): void {
    this.verifier = v
  }

  codeVerifier(): string {
    return this.verifier
  }
}

system.describe('the MCP TypeScript SDK client auth()', () => {
  for (const target of ['mcp', 'api'] as const) {
    it(`goes from discovery to an API call and a refresh (server URL: the ${target === 'mcp' ? 'MCP endpoint' : 'API base'})`, async () => {
      const serverUrl = target === 'mcp' ? `${d.url}/mcp` : d.url
      await withPage(async (page) => {
        const provider = new BrowserProvider(page, listener.url, d.ownerKey)
        const arrived = listener.next()
        expect(await auth(provider, {serverUrl})).toBe('REDIRECT')
        const back = await arrived
        expect(back.searchParams.get('state')).toBe(provider.lastState)
        expect(back.searchParams.get('iss')).toBe(d.url)
        const sent = provider.authorizationUrls[0]!
        expect(sent.searchParams.get('resource')).toBe(serverUrl)
        expect(sent.searchParams.get('code_challenge_method')).toBe('S256')

        expect(await auth(provider, {serverUrl, authorizationCode: back.searchParams.get('code')!})).toBe('AUTHORIZED')
        const first = provider.saved!
        expect(first.token_type).toBe('Bearer')
        expect((await d.request('GET', '/knowledge', {key: first.access_token})).status).toBe(200)

        // With a refresh token stored, auth() refreshes instead of sending the person to the browser again.
        expect(await auth(provider, {serverUrl})).toBe('AUTHORIZED')
        const second = provider.saved!
        expect(provider.authorizationUrls).toHaveLength(1)
        expect(second.access_token).not.toBe(first.access_token)
        expect(second.refresh_token).not.toBe(first.refresh_token)
        expect((await d.request('GET', '/knowledge', {key: second.access_token})).status).toBe(200)
        const reused = await tokenRequest(d, {
          grant_type: 'refresh_token',
          refresh_token: first.refresh_token!,
          client_id: provider.client!.client_id,
        })
        expect(reused.body.error).toBe('invalid_grant')
      })
    })
  }
})
