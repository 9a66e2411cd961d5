/**
 * @module The web view's routes (docs/web.md): pages beside the API in the same daemon, calling the same services
 * the API routes call with the session's caller. Registered in a scope of their own: form bodies, pages for errors
 * (a hidden entry is a 404 page like a missing one), the page headers (strict CSP) on every answer, and a visitor
 * without a session sent to the sign-in page. The global Host check of the app applies here too.
 */
import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'
import {ERROR_CODES, KbError} from '../../src/shared/errors.js'
import {toKbError} from '../http/problem.js'
import {RateLimiter} from '../oauth/rate-limit.js'
import type {Authenticator} from '../auth/authenticate.js'
import type {AuthorizationServer} from '../oauth/authorization-server.js'
import type {Store} from '../store/store.js'
import {oauthSignInRoutes} from './oauth-signin.js'
import {ASSETS} from './assets.js'
import {messagePage, PAGE_HEADERS, type PageContext} from './layout.js'
import {signInPage} from './pages/lists.js'
import {actionRoutes, type ActionServices} from './actions.js'
import {readPages, type WebServices} from './read-pages.js'
import {
  checkFormToken,
  cookie,
  localPath,
  newFormToken,
  param,
  queryOf,
  SESSION_COOKIE,
  setCookie,
  SIGNIN_COOKIE,
  webOrigin,
  type WebOrigin,
} from './request.js'
import {SESSION_TTL_MS, type WebSession, type WebSessions} from './sessions.js'

export interface WebOptions {
  services: WebServices & ActionServices
  sessions: WebSessions
  auth: Authenticator
  oauth: AuthorizationServer
  store: Store
  /** The public base URL (ending in /api/v1) for a request. */
  baseUrl: (req: FastifyRequest) => string
  publicBaseUrl?: string
  apiPrefix: string
}

/** A signed-in request: the session, the page context and where the site is. */
export interface WebRequest {
  req: FastifyRequest
  reply: FastifyReply
  session: WebSession
  ctx: PageContext
  where: WebOrigin
}

/** Sign-in attempts per client address (a wrong key costs one). */
const SIGNIN_BURST = 20
const SIGNIN_PER_MINUTE = 10

export function registerWebRoutes(app: FastifyInstance, o: WebOptions): void {
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', {parseAs: 'string'}, (_req, body, done) => {
      done(null, new URLSearchParams(String(body)))
    })
    scope.addHook('onSend', async (_req, reply) => {
      if (!reply.getHeader('Cache-Control')) reply.headers(PAGE_HEADERS)
    })
    const where = (req: FastifyRequest): WebOrigin => webOrigin(req, o.publicBaseUrl, o.apiPrefix)
    scope.setErrorHandler(errorPages(o, where))
    for (const a of Object.values(ASSETS)) {
      scope.get(a.path, async (_req, reply) =>
        reply
          .headers({...PAGE_HEADERS, 'Cache-Control': 'public, max-age=31536000, immutable'})
          .type(a.type)
          .send(a.body),
      )
    }
    signInRoutes(scope, o, where)

    /** A page for signed-in people: anyone else is sent to sign in, and comes back here afterwards. */
    const signedIn =
      (handler: (w: WebRequest) => Promise<FastifyReply | string>) =>
      async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
        const w = where(req)
        const session = await o.sessions.find(cookie(req, SESSION_COOKIE))
        if (!session)
          return reply
            .code(303)
            .header('Location', `${w.root}/signin?next=${encodeURIComponent(w.root + req.url)}`)
            .send()
        const ctx: PageContext = {root: w.root, user: {name: session.caller.principal.name, csrf: session.csrf}}
        const out = await handler({req, reply, session, ctx, where: w})
        return typeof out === 'string' ? html(reply, 200, out) : out
      }
    readPages(scope, o.services, signedIn)
    actionRoutes(scope, o.services, signedIn)
  })
}

function html(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(text)
}

/** Errors as pages: a hidden entry is the same 404 page as a missing one, a 5xx names only the request id. */
function errorPages(
  o: WebOptions,
  where: (req: FastifyRequest) => WebOrigin,
): (error: unknown, req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  return async (error, req, reply) => {
    const kb = toKbError(error)
    if (kb.status >= 500) req.log.error({err: error, reqId: req.id}, 'unexpected error')
    const session = await o.sessions.find(cookie(req, SESSION_COOKIE)).catch(() => null)
    const ctx: PageContext = {
      root: where(req).root,
      ...(session ? {user: {name: session.caller.principal.name, csrf: session.csrf}} : {}),
    }
    const status = kb.code === 'not_found' ? 404 : kb.status >= 500 ? 500 : kb.status
    const title = status === 404 ? 'Not found' : status >= 500 ? 'Something went wrong' : ERROR_CODES[kb.code].title
    const message =
      status === 404
        ? 'There is no such page, or nothing here you may see.'
        : status >= 500
          ? `Something went wrong in kb; the daemon log has the details (request ${req.id}).`
          : inWords(kb)
    if (kb.headers) reply.headers(kb.headers)
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(messagePage(ctx, title, message))
  }
}

/** Sign-in (an API key, a one-time link of `kb open`, or the daemon's OAuth) and sign-out. */
function signInRoutes(scope: FastifyInstance, o: WebOptions, where: (req: FastifyRequest) => WebOrigin): void {
  const signinLimit = new RateLimiter(SIGNIN_BURST, SIGNIN_PER_MINUTE)
  const signInForm = (req: FastifyRequest, reply: FastifyReply, next: string, status: number, error?: string): FastifyReply => {
    const w = where(req)
    const csrf = newFormToken()
    setCookie(reply, w, SIGNIN_COOKIE, csrf, {maxAgeS: 3600, sameSite: 'Strict'})
    const oauthUrl = `${w.root}/signin/oauth?next=${encodeURIComponent(next)}`
    return html(reply, status, signInPage({root: w.root}, {csrf, next, oauthUrl, ...(error ? {error} : {})}))
  }
  const startSession = (req: FastifyRequest, reply: FastifyReply, secret: string, next: string): FastifyReply => {
    setCookie(reply, where(req), SESSION_COOKIE, secret, {maxAgeS: SESSION_TTL_MS / 1000, sameSite: 'Lax'})
    return reply.code(303).header('Location', next).send()
  }

  oauthSignInRoutes(scope, {oauth: o.oauth, store: o.store, sessions: o.sessions, where, baseUrl: o.baseUrl, startSession})

  scope.get('/signin', async (req, reply) => {
    const w = where(req)
    const next = localPath(param(queryOf(req), 'next', 2000), w.root)
    if (await o.sessions.find(cookie(req, SESSION_COOKIE))) return reply.code(303).header('Location', next).send()
    return signInForm(req, reply, next, 200)
  })
  scope.post('/signin', async (req, reply) => {
    const form = formOf(req)
    const w = where(req)
    const next = localPath(form.get('next'), w.root)
    checkFormToken(form, cookie(req, SIGNIN_COOKIE))
    const wait = signinLimit.take(req.ip)
    if (wait > 0)
      throw new KbError('rate_limited', `Too many sign-in attempts from this address; try again in ${wait} s.`, {
        headers: {'Retry-After': String(wait)},
      })
    const key = (form.get('api_key') ?? '').trim()
    const caller = key === '' ? null : await o.auth.authenticate(`Bearer ${key}`, () => '').catch(() => null)
    if (!caller || caller.credential.kind !== 'api_key')
      return signInForm(
        req,
        reply,
        next,
        400,
        key === '' ? 'Paste your API key to sign in.' : 'That API key is unknown, revoked or expired. Try another one.',
      )
    return startSession(req, reply, await o.sessions.create(caller, req.headers['user-agent']), next)
  })
  scope.get('/signin/link', async (req, reply) => {
    const q = queryOf(req)
    const w = where(req)
    const secret = await o.sessions.redeemLink(param(q, 'code', 100), req.headers['user-agent'])
    if (!secret)
      return signInForm(
        req,
        reply,
        localPath(param(q, 'next', 2000), w.root),
        400,
        'That sign-in link is unknown, used or expired: run `kb open` again, or sign in with a key.',
      )
    // The code leaves the address bar at once: the answer is a redirect to where the link was meant to go.
    return startSession(req, reply, secret, localPath(param(q, 'next', 2000), w.root))
  })
  scope.post('/signout', async (req, reply) => {
    const w = where(req)
    const secret = cookie(req, SESSION_COOKIE)
    const session = await o.sessions.find(secret)
    if (session) {
      checkFormToken(formOf(req), session.csrf)
      await o.sessions.end(secret)
    }
    setCookie(reply, w, SESSION_COOKIE, '', {maxAgeS: 0, sameSite: 'Lax'})
    return reply.code(303).header('Location', `${w.root}/signin`).send()
  })
}

/** The form body of a POST; an absent or other body counts as an empty form. */
export function formOf(req: FastifyRequest): URLSearchParams {
  return req.body instanceof URLSearchParams ? req.body : new URLSearchParams()
}

/** A refusal in words: the message, and each field's problem when the request broke field rules. */
export function inWords(kb: KbError): string {
  const fields = (kb.errors ?? []).map((e) => `${e.path}: ${e.message}`)
  return fields.length === 0 ? kb.message : `${kb.message} (${fields.join('; ')})`
}
