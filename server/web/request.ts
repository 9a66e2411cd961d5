/**
 * @module What the web routes read from a request and write on an answer (docs/web.md, "Sessions"): cookies, the
 * web root on the public origin, the session cookie's attributes, the form token checks, and local `next` paths.
 */
import {parseCookies} from '../http/cookies.js'
import {randomBytes} from 'node:crypto'
import type {FastifyReply, FastifyRequest} from 'fastify'
import {KbError} from '../../src/shared/errors.js'
import {sameHash} from '../lib/ids.js'

export const SESSION_COOKIE = 'kb_session'
/** The sign-in form's double-submit cookie: a login form cannot be posted from another site's page. */
export const SIGNIN_COOKIE = 'kb_signin'

/** Where the web view is on the public origin: its origin and its path prefix ('' or a proxy's '/kb'). */
export interface WebOrigin {
  origin: string
  root: string
  secure: boolean
}

/** What a request says of where it was sent: fastify's `req.protocol` and `req.host` (a proxy is not trusted). */
export type RequestOrigin = Pick<FastifyRequest, 'protocol' | 'host'>

/** The web view's place, from the public base URL (ending in /api/v1) the daemon was given, else the request. */
export function webOrigin(req: RequestOrigin, publicBaseUrl: string | undefined, apiPrefix: string): WebOrigin {
  if (publicBaseUrl) {
    const u = new URL(publicBaseUrl)
    const path = u.pathname.replace(/\/+$/, '')
    const root = path.endsWith(apiPrefix) ? path.slice(0, -apiPrefix.length) : ''
    return {origin: u.origin, root, secure: u.protocol === 'https:'}
  }
  return {origin: `${req.protocol}://${req.host}`, root: '', secure: req.protocol === 'https'}
}

export function cookie(req: FastifyRequest, name: string): string | undefined {
  return parseCookies(req.headers.cookie)[name]
}

/**
 * Sets a cookie only this site's pages send, never readable by scripts. `SameSite=Lax` for the session, so a link
 * to an entry followed from a chat or a pull request arrives signed in (forms carry a token besides);
 * `Strict` for the sign-in form's cookie. `Secure` behind https.
 */
export function setCookie(
  reply: FastifyReply,
  o: WebOrigin,
  name: string,
  value: string,
  opts: {maxAgeS: number; sameSite: 'Lax' | 'Strict'},
): void {
  const attrs = [
    `Path=${o.root || '/'}`,
    'HttpOnly',
    `SameSite=${opts.sameSite}`,
    `Max-Age=${opts.maxAgeS}`,
    ...(o.secure ? ['Secure'] : []),
  ]
  const prior = reply.getHeader('Set-Cookie')
  const line = `${name}=${value}; ${attrs.join('; ')}`
  reply.header('Set-Cookie', prior === undefined ? [line] : [...(Array.isArray(prior) ? prior : [String(prior)]), line])
}

export function newFormToken(): string {
  return randomBytes(32).toString('base64url')
}

/** Refuses a form whose token is missing or not the expected one (403, shown as a page in words). */
export function checkFormToken(form: URLSearchParams, expected: string | undefined): void {
  const sent = form.get('csrf_token') ?? ''
  if (!expected || sent === '' || !sameHash(sent, expected))
    throw new KbError(
      'forbidden',
      'This form could not be verified as coming from this site in this browser (its security token is missing or wrong). Reload the page and try again.',
    )
}

/** A `next` path that stays on this site: one leading slash, no scheme or host, no backslash tricks; else the search page. */
export function localPath(next: string | null | undefined, root: string): string {
  if (!next || next.length > 2000 || !next.startsWith(`${root}/`) || /^\/[/\\]|[\\\u0000-\u001f]/.test(next.slice(root.length)))
    return `${root}/search`
  return next
}

/** A query parameter that occurs once, as text ('' when absent). */
export function param(q: URLSearchParams, name: string, max = 500): string {
  const v = q.get(name) ?? ''
  return v.length > max ? v.slice(0, max) : v
}

export function queryOf(req: FastifyRequest): URLSearchParams {
  const i = req.url.indexOf('?')
  return new URLSearchParams(i === -1 ? '' : req.url.slice(i + 1))
}
