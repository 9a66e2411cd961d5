/**
 * @module The OAuth 2.1 endpoints over HTTP: discovery documents at every path clients probe, registration,
 * the authorization endpoint's pages, token and revocation. They live in their own fastify scope because
 * they speak OAuth, not problem+json: form bodies in, `{error, error_description}` or HTML out.
 */
import {parseCookies} from '../http/cookies.js'
import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'
import {toKbError} from '../http/problem.js'
import {PAGE_HEADERS, renderConsentPage, renderErrorPage} from '../oauth/consent-page.js'
import {authorizationServerMetadata, mcpResource, protectedResourceMetadata, wellKnownPaths} from '../oauth/metadata.js'
import {errorBody, errorDescription, isFailure, type OAuthFailure} from '../oauth/result.js'
import {CONSENT_TTL_MS} from '../oauth/config.js'
import type {AuthorizationServer} from '../oauth/authorization-server.js'
import type {AuthorizeOutcome} from '../oauth/authorize.js'

export interface OAuthRouteOptions {
  service: AuthorizationServer
  /** The public base URL (ending in /api/v1) for a request. */
  baseUrl: (req: FastifyRequest) => string
  /** The local path prefix of the API (`/api/v1`). */
  prefix: string
}

const NO_STORE = {'Cache-Control': 'no-store', Pragma: 'no-cache'}
const OTHER_METHODS = ['PUT', 'PATCH', 'DELETE', 'POST', 'GET', 'OPTIONS'] as const

/** Registers every OAuth route in an encapsulated scope (its own body parser and error handler). */
export function registerOAuthRoutes(app: FastifyInstance, o: OAuthRouteOptions): void {
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', {parseAs: 'string'}, (_req, body, done) => {
      done(null, new URLSearchParams(String(body)))
    })
    scope.setErrorHandler(oauthErrors(o.prefix))

    const served = new Map<string, Set<string>>()
    const add = (method: 'GET' | 'POST', url: string, handler: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>): void => {
      scope.route({method, url, handler})
      if (!served.has(url)) served.set(url, new Set())
      served.get(url)!.add(method)
    }

    // ---- discovery ----
    const wk = wellKnownPaths(o.prefix)
    for (const url of wk.authorizationServer) add('GET', url, async (req) => authorizationServerMetadata(o.baseUrl(req)))
    for (const url of wk.protectedResource) add('GET', url, async (req) => protectedResourceMetadata(o.baseUrl(req)))
    for (const url of wk.mcpProtectedResource) {
      add('GET', url, async (req) => {
        const base = o.baseUrl(req)
        return protectedResourceMetadata(base, mcpResource(base))
      })
    }

    // ---- registration ----
    add('POST', `${o.prefix}/oauth/register`, async (req, reply) => {
      const result = await o.service.registration.register(req.body, req.ip)
      if (isFailure(result)) return sendFailure(reply, result)
      return reply.code(201).headers(NO_STORE).send(result.client)
    })

    // ---- authorization ----
    const authorizePath = `${o.prefix}/oauth/authorize`
    add('GET', authorizePath, async (req, reply) => {
      const base = o.baseUrl(req)
      const query = new URLSearchParams(req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '')
      return sendAuthorize(req, reply, await o.service.authorization.authorize(query, base, req.ip), base)
    })
    add('POST', authorizePath, async (req, reply) => {
      const base = o.baseUrl(req)
      const form = req.body instanceof URLSearchParams ? req.body : new URLSearchParams()
      return sendAuthorize(req, reply, await o.service.authorization.decide(form, parseCookies(req.headers.cookie), base), base)
    })

    // ---- token and revocation ----
    add('POST', `${o.prefix}/oauth/token`, async (req, reply) => {
      const result = await o.service.token.request(formOf(req), req.headers.authorization)
      if (isFailure(result)) return sendFailure(reply, result)
      return reply.code(200).headers(NO_STORE).send(result)
    })
    add('POST', `${o.prefix}/oauth/revoke`, async (req, reply) => {
      const result = await o.service.revoke(formOf(req), req.headers.authorization)
      if (isFailure(result)) return sendFailure(reply, result)
      return reply.code(200).headers(NO_STORE).send()
    })

    // A known path with another method: 405 with Allow, in OAuth's error shape.
    for (const [url, methods] of served) {
      const allow = [...methods, ...(methods.has('GET') ? ['HEAD'] : [])].join(', ')
      const others = OTHER_METHODS.filter((m) => !methods.has(m))
      scope.route({
        method: others as unknown as string[],
        url,
        handler: async (_req, reply) =>
          reply
            .code(405)
            .headers({...NO_STORE, Allow: allow})
            .send({error: 'invalid_request', error_description: `this endpoint allows ${allow}`}),
      })
    }
  })
}

/** The form body of a token or revocation request; an absent body counts as an empty form. */
function formOf(req: FastifyRequest): URLSearchParams {
  return req.body instanceof URLSearchParams ? req.body : new URLSearchParams()
}

function sendFailure(reply: FastifyReply, f: OAuthFailure): FastifyReply {
  return reply
    .code(f.status)
    .headers({...NO_STORE, ...f.headers})
    .type('application/json')
    .send(errorBody(f))
}

function sendAuthorize(req: FastifyRequest, reply: FastifyReply, outcome: AuthorizeOutcome, base: string): FastifyReply {
  reply.headers(PAGE_HEADERS)
  const action = `${base}/oauth/authorize`
  const cookie = cookieAttributes(base)
  switch (outcome.kind) {
    case 'error_page':
      if (outcome.headers) reply.headers(outcome.headers)
      return reply.code(outcome.status).type('text/html; charset=utf-8').send(renderErrorPage(outcome.title, outcome.message))
    case 'redirect':
      if (outcome.clearCookie) reply.header('Set-Cookie', `${outcome.clearCookie}=; ${cookie}; Max-Age=0`)
      // After the form's POST, 303 makes the browser follow with a GET (OAuth 2.1 §4.1.2).
      return reply
        .code(req.method === 'POST' ? 303 : 302)
        .header('Location', outcome.location)
        .send()
    case 'consent':
      if (outcome.setCookie)
        reply.header('Set-Cookie', `${outcome.setCookie.name}=${outcome.setCookie.value}; ${cookie}; Max-Age=${CONSENT_TTL_MS / 1000}`)
      return reply
        .code(outcome.status)
        .type('text/html; charset=utf-8')
        .send(renderConsentPage({...outcome.view, action}))
  }
}

/** The consent cookie is sent only to the authorization endpoint, only by same-site requests, never to scripts. */
function cookieAttributes(base: string): string {
  const url = new URL(base)
  const path = `${url.pathname.replace(/\/+$/, '')}/oauth/authorize`
  return `Path=${path}; HttpOnly; SameSite=Strict${url.protocol === 'https:' ? '; Secure' : ''}`
}

/**
 * The OAuth scope's errors: the authorization endpoint's as an HTML page (a browser is there), the others in
 * OAuth's JSON error shape (RFC 6749 §5.2), a 5xx without its details.
 */
function oauthErrors(prefix: string): (error: unknown, req: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return (error, req, reply) => {
    const kb = toKbError(error)
    if (kb.code === 'internal') req.log.error({err: error, reqId: req.id}, 'unexpected error')
    const path = req.url.split('?')[0]!
    if (path.startsWith(`${prefix}/oauth/authorize`)) {
      return reply
        .code(kb.status >= 500 ? 500 : 400)
        .headers(PAGE_HEADERS)
        .type('text/html; charset=utf-8')
        .send(renderErrorPage('Bad request', kb.status >= 500 ? 'Something went wrong in kb; the daemon log has the details.' : kb.message))
    }
    if (kb.status >= 500)
      return reply
        .code(500)
        .headers(NO_STORE)
        .send({error: 'server_error', error_description: 'internal error; the daemon log has the details'})
    const code = path.endsWith('/oauth/register') ? 'invalid_client_metadata' : 'invalid_request'
    let hint = kb.message
    if (kb.code === 'unsupported_media_type')
      hint =
        code === 'invalid_request' ? 'send the parameters as application/x-www-form-urlencoded' : 'send the metadata as application/json'
    return reply
      .code(400)
      .headers(NO_STORE)
      .type('application/json')
      .send({error: code, error_description: errorDescription(hint)})
  }
}
