/**
 * @module `kb auth login --web`: the CLI as an OAuth 2.1 public client (RFC 8252 native app). Discovery
 * (discovery.ts), registration cached per base URL (registration.ts), a loopback listener on 127.0.0.1 with a
 * port picked by the OS (loopback.ts), PKCE S256 and state, the browser at the authorize URL (or the URL
 * printed), the code exchanged with the RFC 8707 resource. Loaded only by this command: oauth4webapi and fetch
 * stay off every other path. With the local daemon every request, and the browser, go only to the daemon that
 * proved it owns the data directory (pinned-fetch.ts, docs/security.md).
 */
import * as oauth from 'oauth4webapi'
import {KbError} from '../../shared/errors.js'
import type {OAuthCredential} from '../credentials/credentials.js'
import {canOpenBrowser, openBrowser} from './browser.js'
import {discover, oauthSession, type Discovered, type OAuthSession} from './discovery.js'
import {describeOAuthError, RELOGIN, unreachable} from './errors.js'
import {CALLBACK_PATH, listen, type Answer} from './loopback.js'
import type {ProvenDaemon} from './pinned-fetch.js'
import {clientFor} from './registration.js'
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

/** One authorization request: the client it is for, where the browser comes back, and its PKCE verifier and state. */
interface Authorization {
  client: oauth.Client & {client_id: string}
  redirectUri: string
  verifier: string
  state: string
}

export async function webLogin(o: WebLoginOptions): Promise<WebLoginResult> {
  const env = o.env ?? process.env
  const session = oauthSession(o.baseUrl, o.userAgent, o.daemon)
  const found = await discover(session)
  // The listener first: the redirect URI names its port.
  const listener = await listen()
  try {
    const redirectUri = `http://127.0.0.1:${listener.port}${CALLBACK_PATH}`
    const {clientId, registered} = await clientFor(session, found, redirectUri, env)
    const auth: Authorization = {
      client: {client_id: clientId, token_endpoint_auth_method: 'none'},
      redirectUri,
      verifier: oauth.generateRandomCodeVerifier(),
      state: oauth.generateRandomState(),
    }
    const url = await authorizeUrl(found, auth)
    const outcome = listener.handle((callback) => answerCallback(session, found, auth, callback))
    const wait = waitWords(o.timeoutMs)
    const opened = await showBrowser(o, env, url, wait)
    const credential = await withTimeout(outcome, o.timeoutMs, wait)
    return {oauth: credential, client_id: clientId, registered, browser_opened: opened}
  } finally {
    await listener.close()
  }
}

/** The authorization endpoint with the request: PKCE S256, state and the RFC 8707 resource. */
async function authorizeUrl({as, resource}: Discovered, auth: Authorization): Promise<URL> {
  const url = new URL(as.authorization_endpoint)
  url.searchParams.set('response_type', 'code')
  url.searchParams.set('client_id', auth.client.client_id)
  url.searchParams.set('redirect_uri', auth.redirectUri)
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(auth.verifier))
  url.searchParams.set('code_challenge_method', 'S256')
  url.searchParams.set('state', auth.state)
  url.searchParams.set('resource', resource)
  return url
}

/** The browser's callback: checked, and its code exchanged before the browser gets its answer, so the page tells the real outcome. */
async function answerCallback(s: OAuthSession, found: Discovered, auth: Authorization, callback: URL): Promise<Answer> {
  if (callback.searchParams.get('state') !== auth.state)
    return {
      status: 400,
      ok: false,
      title: 'Not the sign-in kb is waiting for',
      message: 'This link does not belong to the sign-in started in your terminal (its state does not match), so kb ignored it.',
      done: false,
    }
  let params: URLSearchParams
  try {
    params = oauth.validateAuthResponse(found.as, auth.client, callback, auth.state)
  } catch (e) {
    return refused(e)
  }
  return exchange(s, found, auth, params)
}

/** The authorization server's refusal (or the person's) as the browser's page and the login's error. */
function refused(e: unknown): Answer {
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

/** The code exchanged for tokens (with the verifier and the resource), kept as the credential. */
async function exchange(s: OAuthSession, {as, resource}: Discovered, auth: Authorization, params: URLSearchParams): Promise<Answer> {
  try {
    const res = await oauth.authorizationCodeGrantRequest(as, auth.client, oauth.None(), params, auth.redirectUri, auth.verifier, {
      ...s.insecure,
      headers: s.headers,
      additionalParameters: {resource},
    })
    const tokens = await oauth.processAuthorizationCodeResponse(as, auth.client, res)
    const credential = credentialFrom(tokens, {
      client_id: auth.client.client_id,
      issuer: as.issuer,
      token_endpoint: as.token_endpoint,
      revocation_endpoint: as.revocation_endpoint ?? null,
      resource,
    })
    return {status: 200, ok: true, title: 'Signed in to kb', message: `The kb CLI is signed in to ${s.baseUrl}.`, credential}
  } catch (e) {
    const error =
      unreachable(e, as.token_endpoint) ??
      new KbError('unauthenticated', `the code exchange failed (${describeOAuthError(e)}); ${RELOGIN}`, {cause: e})
    return {
      status: 400,
      ok: false,
      title: 'Sign-in failed',
      message: `kb could not exchange the code for tokens: ${describeOAuthError(e)}.`,
      error,
    }
  }
}

/** The timeout as people say it: minutes from two on, else seconds. */
function waitWords(timeoutMs: number): string {
  const seconds = Math.round(timeoutMs / 1000)
  return seconds >= 120 ? `${Math.round(seconds / 60)} min` : `${seconds} s`
}

/** Opens the browser at the URL where it can, and prints the URL either way; whether it opened. */
async function showBrowser(o: WebLoginOptions, env: NodeJS.ProcessEnv, url: URL, wait: string): Promise<boolean> {
  let opened = false
  if (o.browser && canOpenBrowser(env)) opened = await openBrowser(url.toString())
  if (opened) o.say(`Opening your browser to sign in to ${o.baseUrl}. If it does not open, visit:`)
  else o.say(`Open this URL in a browser to sign in to ${o.baseUrl}:`)
  o.say(`  ${url.toString()}`)
  o.say(`Waiting for the browser (up to ${wait})…`)
  return opened
}

/** The callback's credential, or a timeout that says how to try again. */
async function withTimeout(outcome: Promise<OAuthCredential>, timeoutMs: number, wait: string): Promise<OAuthCredential> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new KbError('unauthenticated', `no sign-in arrived from the browser within ${wait}; ${RELOGIN} (--timeout gives more time)`),
        ),
      timeoutMs,
    )
  })
  try {
    return await Promise.race([outcome, timeout])
  } finally {
    clearTimeout(timer)
  }
}
