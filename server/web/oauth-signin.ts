/**
 * @module Signing in to the web view through the daemon's own OAuth authorization server (docs/web.md, "Sessions"):
 * the web view is a public client of it like any other — registered, sent to the consent page with PKCE (S256) and a
 * state kept in an HttpOnly cookie, and the code exchanged in process. The grant that results names the API key the
 * person approved with; the session is made for that key, and the grant, needed no more, is ended at once.
 */
import {createHash, randomBytes} from 'node:crypto'
import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'
import {KbError} from '../../src/shared/errors.js'
import {sha256Hex} from '../lib/ids.js'
import type {AuthorizationServer} from '../oauth/authorization-server.js'
import {isFailure} from '../oauth/result.js'
import type {Store} from '../store/store.js'
import {cookie, localPath, param, queryOf, setCookie, type WebOrigin} from './request.js'
import type {WebSessions} from './sessions.js'

const FLOW_COOKIE = 'kb_web_oauth'
/** As long as a consent page stays valid (server/oauth/config.ts CONSENT_TTL_MS). */
const FLOW_TTL_S = 600

interface Flow {
  client_id: string
  verifier: string
  state: string
  next: string
}

export interface OAuthSignInOptions {
  oauth: AuthorizationServer
  store: Store
  sessions: WebSessions
  where: (req: FastifyRequest) => WebOrigin
  /** The public base URL ending in /api/v1. */
  baseUrl: (req: FastifyRequest) => string
  startSession: (req: FastifyRequest, reply: FastifyReply, secret: string, next: string) => FastifyReply
}

const refused = (message: string): KbError => new KbError('bad_request', message)

export function oauthSignInRoutes(scope: FastifyInstance, o: OAuthSignInOptions): void {
  scope.get('/signin/oauth', async (req, reply) => {
    const w = o.where(req)
    const base = o.baseUrl(req)
    const redirect = `${w.origin}${w.root}/signin/oauth/callback`
    const reg = await o.oauth.registration.register(
      {redirect_uris: [redirect], client_name: 'kb web view', token_endpoint_auth_method: 'none'},
      req.ip,
    )
    if (isFailure(reg)) throw new KbError('rate_limited', 'Too many sign-ins were started from this address; try again in a minute.')
    const flow: Flow = {
      client_id: String(reg.client.client_id),
      verifier: randomBytes(32).toString('base64url'),
      state: randomBytes(16).toString('base64url'),
      next: localPath(param(queryOf(req), 'next', 2000), w.root),
    }
    setCookie(reply, w, FLOW_COOKIE, Buffer.from(JSON.stringify(flow)).toString('base64url'), {maxAgeS: FLOW_TTL_S, sameSite: 'Lax'})
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: flow.client_id,
      redirect_uri: redirect,
      code_challenge: createHash('sha256').update(flow.verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: flow.state,
      resource: base,
    })
    return reply
      .code(303)
      .header('Location', `${new URL(base).pathname}/oauth/authorize?${q.toString()}`)
      .send()
  })

  scope.get('/signin/oauth/callback', async (req, reply) => {
    const w = o.where(req)
    const q = queryOf(req)
    let flow: Flow
    try {
      flow = JSON.parse(Buffer.from(cookie(req, FLOW_COOKIE) ?? '', 'base64url').toString('utf8')) as Flow
    } catch {
      throw refused('This sign-in was not started in this browser, or took too long. Start again from the sign-in page.')
    }
    setCookie(reply, w, FLOW_COOKIE, '', {maxAgeS: 0, sameSite: 'Lax'})
    if (!flow?.state || param(q, 'state', 100) !== flow.state)
      throw refused('This sign-in was not started in this browser, or took too long. Start again from the sign-in page.')
    if (q.get('error'))
      throw refused(q.get('error') === 'access_denied' ? 'You denied the sign-in.' : `The sign-in failed: ${param(q, 'error', 100)}.`)
    const tokens = await o.oauth.token.request(
      new URLSearchParams({
        grant_type: 'authorization_code',
        code: param(q, 'code', 200),
        code_verifier: flow.verifier,
        redirect_uri: `${w.origin}${w.root}/signin/oauth/callback`,
        client_id: flow.client_id,
      }),
      undefined,
    )
    if (isFailure(tokens))
      throw refused("The sign-in code was refused (used, expired or not this browser's). Start again from the sign-in page.")
    const token = await o.store.oauth.findToken(sha256Hex(tokens.access_token))
    const grant = token ? await o.store.oauth.getGrant(token.grant_id) : null
    const principal = grant ? await o.store.getPrincipal(grant.principal_id) : null
    if (!grant || !principal) throw refused('The sign-in ended before it was complete. Start again from the sign-in page.')
    const secret = await o.sessions.create(
      {principal, credential: {kind: 'api_key', id: grant.api_key_id, projectId: grant.project_id}},
      req.headers['user-agent'],
    )
    // The session stands for the key now; the grant and its tokens are of no further use.
    await o.store.oauth.revokeGrant(grant.id, new Date().toISOString())
    return o.startSession(req, reply, secret, flow.next)
  })
}
