/**
 * @module `kb auth login --web`: the CLI as an OAuth 2.1 public client (RFC 8252 native app). Discovery
 * (the API's 401 names the RFC 9728 resource metadata, which names the RFC 8414 authorization server),
 * registration cached per base URL, a loopback listener on 127.0.0.1 with a port picked by the OS, PKCE
 * S256 and state, the browser at the authorize URL (or the URL printed), the code exchanged with the
 * RFC 8707 resource. Loaded only by this command: oauth4webapi and fetch stay off every other path.
 * With the local daemon every request, and the browser, go only to the daemon that proved it owns the
 * data directory (pinned-fetch.ts, docs/security.md). A little over ~350 lines on purpose: one flow whose
 * steps share their state and must run in this order.
 */
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import {hostname} from 'node:os'
import * as oauth from 'oauth4webapi'
import {KbError} from '../../shared/errors.js'
import type {OAuthCredential} from '../credentials/credentials.js'
import {canOpenBrowser, openBrowser} from './browser.js'
import {CALLBACK_HEADERS, callbackPage} from './callback-page.js'
import {cachedClient, saveClient} from './client-cache.js'
import {describeOAuthError, RELOGIN, unreachable} from './errors.js'
import {pinnedFetch, type OAuthFetch, type ProvenDaemon} from './pinned-fetch.js'
import {credentialFrom} from './tokens.js'

export interface WebLoginOptions {
  /** Ends in /api/v1, no trailing slash. */
  baseUrl: string
  userAgent: string
  /** false: only print the URL (`--no-browser`). */
  browser: boolean
  timeoutMs: number
  /** A line for the person, on stderr whatever the output mode: the URL must reach them. */
  say: (line: string) => void
  /** The local daemon that proved itself (every request pinned to it), or null for a remote server. */
  daemon: ProvenDaemon | null
  env?: NodeJS.ProcessEnv
}

export interface WebLoginResult {
  oauth: OAuthCredential
  client_id: string
  /** True when this login registered a new client (none cached, or the cached one was gone). */
  registered: boolean
  browser_opened: boolean
}

/** Registered without a port: RFC 8252 §7.3 lets a loopback redirect use whatever port is free at login. */
const REGISTERED_REDIRECT = 'http://127.0.0.1/callback'
const CALLBACK_PATH = '/callback'

type Insecure = {[oauth.allowInsecureRequests]?: boolean; [oauth.customFetch]?: typeof fetch}

export async function webLogin(o: WebLoginOptions): Promise<WebLoginResult> {
  const env = o.env ?? process.env
  const base = new URL(o.baseUrl)
  const get: OAuthFetch = o.daemon ? pinnedFetch(o.daemon) : fetch
  const insecure: Insecure = {
    ...(base.protocol === 'http:' ? {[oauth.allowInsecureRequests]: true} : {}),
    ...(o.daemon ? {[oauth.customFetch]: get as typeof fetch} : {}),
  }
  const headers = {'user-agent': o.userAgent}
  const guard = async <T>(url: string, what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn()
    } catch (e) {
      if (e instanceof KbError) throw e
      throw (
        unreachable(e, url) ??
        new KbError(
          'unauthenticated',
          `${what} failed at ${url} (${describeOAuthError(e)}); is ${o.baseUrl} a kb server that supports OAuth?`,
          {cause: e},
        )
      )
    }
  }

  // Discovery, as MCP clients do it: the API's 401 names the resource metadata; the well-known URL otherwise.
  const prm = await guard(o.baseUrl, 'discovery', async () => {
    const probe = await get(`${o.baseUrl}/knowledge`, {headers: {...headers, accept: 'application/json'}, redirect: 'manual'})
    await probe.body?.cancel()
    const pointer = /resource_metadata="([^"]+)"/.exec(probe.headers.get('www-authenticate') ?? '')?.[1]
    const res = pointer
      ? await get(pointer, {headers, redirect: 'manual'})
      : await oauth.resourceDiscoveryRequest(base, {...insecure, headers})
    try {
      return await oauth.processResourceDiscoveryResponse(base, res)
    } catch (e) {
      if (e instanceof oauth.OperationProcessingError && e.code === oauth.JSON_ATTRIBUTE_COMPARISON) {
        const resource = (e.cause as {body?: {resource?: unknown}})?.body?.resource
        throw new KbError(
          'usage',
          `the server calls itself ${String(resource)}, not ${o.baseUrl}; log in with --base-url ${String(resource)}`,
        )
      }
      throw e
    }
  })
  const issuerUrl = prm.authorization_servers?.[0]
  if (!issuerUrl)
    throw new KbError(
      'unauthenticated',
      `${o.baseUrl} names no OAuth authorization server; log in with an API key instead (\`kb auth login --with-token\`)`,
    )
  const issuer = new URL(issuerUrl)
  const as = await guard(issuerUrl, 'authorization server discovery', async () =>
    oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, {algorithm: 'oauth2', ...insecure, headers})),
  )
  if (!as.authorization_endpoint || !as.token_endpoint)
    throw new KbError('unauthenticated', `the authorization server ${as.issuer} has no authorization or token endpoint`)
  // The browser is not pinned: it must at least be sent to the proven daemon's origin (login.ts in commands checks every address of it).
  if (o.daemon && new URL(as.authorization_endpoint).origin !== o.daemon.origin)
    throw new KbError(
      'conflict',
      `the local daemon names a consent page at ${new URL(as.authorization_endpoint).origin}, not ${o.daemon.origin}; no browser was opened`,
    )
  if (!as.code_challenge_methods_supported?.includes('S256'))
    throw new KbError('unauthenticated', `the authorization server ${as.issuer} does not support PKCE with S256, which kb requires`)
  const resource = prm.resource

  // The listener first: the redirect URI names its port.
  const listener = await listen()
  try {
    const redirectUri = `http://127.0.0.1:${listener.port}${CALLBACK_PATH}`
    let registered = false
    let clientId = cachedClient(o.baseUrl, as.issuer, env)?.client_id ?? null
    // A cached client may have been swept by the server (unused for 90 days). The authorization endpoint
    // would then show an error page in the browser and never come back here, so ask it first: a known
    // client with a valid redirect is *redirected* (with invalid_request, as no PKCE was sent).
    if (clientId && !(await clientKnown(get, as.authorization_endpoint, clientId, redirectUri, headers))) clientId = null
    if (!clientId) {
      if (!as.registration_endpoint)
        throw new KbError(
          'unauthenticated',
          `the authorization server ${as.issuer} offers no client registration; log in with an API key (\`kb auth login --with-token\`)`,
        )
      const reg = await guard(as.registration_endpoint, 'client registration', async () =>
        oauth.processDynamicClientRegistrationResponse(
          await oauth.dynamicClientRegistrationRequest(
            as,
            {
              client_name: `kb CLI on ${hostname()}`,
              redirect_uris: [REGISTERED_REDIRECT],
              grant_types: ['authorization_code', 'refresh_token'],
              response_types: ['code'],
              token_endpoint_auth_method: 'none',
              software_id: 'kb-cli',
            },
            {...insecure, headers},
          ),
        ),
      )
      clientId = reg.client_id
      registered = true
      saveClient(o.baseUrl, {client_id: clientId, issuer: as.issuer, registered_at: new Date().toISOString()}, env)
    }
    const client: oauth.Client = {client_id: clientId, token_endpoint_auth_method: 'none'}

    const verifier = oauth.generateRandomCodeVerifier()
    const state = oauth.generateRandomState()
    const url = new URL(as.authorization_endpoint)
    url.searchParams.set('response_type', 'code')
    url.searchParams.set('client_id', clientId)
    url.searchParams.set('redirect_uri', redirectUri)
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier))
    url.searchParams.set('code_challenge_method', 'S256')
    url.searchParams.set('state', state)
    url.searchParams.set('resource', resource)

    // The code is exchanged before the browser gets its answer, so the page tells the real outcome.
    const outcome = listener.handle(async (callback) => {
      if (callback.searchParams.get('state') !== state)
        return {
          status: 400,
          ok: false,
          title: 'Not the sign-in kb is waiting for',
          message: 'This link does not belong to the sign-in started in your terminal (its state does not match), so kb ignored it.',
          done: false,
        }
      let params: URLSearchParams
      try {
        params = oauth.validateAuthResponse(as, client, callback, state)
      } catch (e) {
        const denied = e instanceof oauth.AuthorizationResponseError && e.error === 'access_denied'
        const error = denied
          ? new KbError('unauthenticated', `the sign-in was denied in the browser; nothing was stored. To sign in, ${RELOGIN} and approve`)
          : new KbError('unauthenticated', `the authorization server refused the sign-in (${describeOAuthError(e)}); ${RELOGIN}`)
        return {
          status: denied ? 200 : 400,
          ok: false,
          title: denied ? 'Sign-in denied' : 'Sign-in failed',
          message: denied ? 'You denied kb access. Nothing was stored.' : `The sign-in failed: ${describeOAuthError(e)}.`,
          error,
        }
      }
      try {
        const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, {
          ...insecure,
          headers,
          additionalParameters: {resource},
        })
        const tokens = await oauth.processAuthorizationCodeResponse(as, client, res)
        const credential = credentialFrom(tokens, {
          client_id: clientId!,
          issuer: as.issuer,
          token_endpoint: as.token_endpoint!,
          revocation_endpoint: as.revocation_endpoint ?? null,
          resource,
        })
        return {status: 200, ok: true, title: 'Signed in to kb', message: `The kb CLI is signed in to ${o.baseUrl}.`, credential}
      } catch (e) {
        const error =
          unreachable(e, as.token_endpoint!) ??
          new KbError('unauthenticated', `the code exchange failed (${describeOAuthError(e)}); ${RELOGIN}`, {cause: e})
        return {
          status: 400,
          ok: false,
          title: 'Sign-in failed',
          message: `kb could not exchange the code for tokens: ${describeOAuthError(e)}.`,
          error,
        }
      }
    })

    const seconds = Math.round(o.timeoutMs / 1000)
    const wait = seconds >= 120 ? `${Math.round(seconds / 60)} min` : `${seconds} s`
    let opened = false
    if (o.browser && canOpenBrowser(env)) opened = await openBrowser(url.toString())
    if (opened) o.say(`Opening your browser to sign in to ${o.baseUrl}. If it does not open, visit:`)
    else o.say(`Open this URL in a browser to sign in to ${o.baseUrl}:`)
    o.say(`  ${url.toString()}`)
    o.say(`Waiting for the browser (up to ${wait})…`)

    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new KbError('unauthenticated', `no sign-in arrived from the browser within ${wait}; ${RELOGIN} (--timeout gives more time)`),
          ),
        o.timeoutMs,
      )
    })
    try {
      const credential = await Promise.race([outcome, timeout])
      return {oauth: credential, client_id: clientId, registered, browser_opened: opened}
    } finally {
      clearTimeout(timer)
    }
  } finally {
    await listener.close()
  }
}

/** Whether the authorization endpoint knows this client and accepts the redirect (a redirect back, not an error page). */
async function clientKnown(
  get: OAuthFetch,
  authorizationEndpoint: string,
  clientId: string,
  redirectUri: string,
  headers: Record<string, string>,
): Promise<boolean> {
  const u = new URL(authorizationEndpoint)
  u.searchParams.set('response_type', 'code')
  u.searchParams.set('client_id', clientId)
  u.searchParams.set('redirect_uri', redirectUri)
  try {
    const res = await get(u, {headers, redirect: 'manual'})
    await res.body?.cancel()
    const location = res.headers.get('location')
    return res.status >= 300 && res.status < 400 && location !== null && location.startsWith(redirectUri)
  } catch (e) {
    throw (e instanceof KbError ? null : unreachable(e, authorizationEndpoint)) ?? e
  }
}

interface Answer {
  status: number
  ok: boolean
  title: string
  message: string
  /** false: answer the browser but keep waiting (a stray request). */
  done?: boolean
  credential?: OAuthCredential
  error?: KbError
}

interface Listener {
  port: number
  /** Resolves with the credential of the first real callback, or rejects with its error. */
  handle(fn: (callback: URL) => Promise<Answer>): Promise<OAuthCredential>
  close(): Promise<void>
}

/** The loopback redirect listener on 127.0.0.1 (never all interfaces) with a port the OS picks. */
async function listen(): Promise<Listener> {
  let handler: ((callback: URL) => Promise<Answer>) | null = null
  let settle: {resolve: (c: OAuthCredential) => void; reject: (e: Error) => void} | null = null
  let busy = false
  let finished = false
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const page = (status: number, ok: boolean, title: string, message: string, then?: () => void): void => {
      res.writeHead(status, CALLBACK_HEADERS).end(callbackPage(ok, title, message), then)
    }
    // Browsers also ask for /favicon.ico; only the callback counts.
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH || !handler) {
      res.writeHead(404, {'content-type': 'text/plain; charset=utf-8', connection: 'close'}).end('Not found')
      return
    }
    if (finished || busy) {
      page(409, false, 'Already handled', finished ? 'kb has already finished this sign-in.' : 'kb is still finishing this sign-in.')
      return
    }
    busy = true
    void handler(url)
      .catch((e: unknown): Answer => {
        const message = e instanceof Error ? e.message : String(e)
        return {
          status: 500,
          ok: false,
          title: 'Sign-in failed',
          message,
          error: e instanceof KbError ? e : new KbError('internal', `the sign-in failed unexpectedly (${message})`),
        }
      })
      .then((a) => {
        busy = false
        if (a.done === false) {
          page(a.status, a.ok, a.title, a.message)
          return
        }
        finished = true
        // Settled once the page is on its way: closing the listener must not cut it off.
        page(a.status, a.ok, a.title, a.message, () => {
          if (a.credential) settle?.resolve(a.credential)
          else settle?.reject(a.error ?? new KbError('unauthenticated', `the sign-in failed; ${RELOGIN}`))
        })
      })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as {port: number}).port
  return {
    port,
    handle: (fn) => {
      handler = fn
      return new Promise((resolve, reject) => (settle = {resolve, reject}))
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
