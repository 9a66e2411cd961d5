/**
 * @module POST /web/links (docs/web.md, "Sessions"): a one-time link that opens the web view signed in as the API key
 * that asked for it — how `kb open` signs the browser in without putting the key in a URL.
 */
import type {FastifyRequest} from 'fastify'
import {operation} from '../http/operation.js'
import type {RouteDef} from '../http/route.js'
import type {WebOrigin} from '../web/request.js'
import {LINK_TTL_MS, type WebSessions} from '../web/sessions.js'
import {errorResponses} from './common.js'

export function webLinkRoutes(sessions: WebSessions, where: (req: FastifyRequest) => WebOrigin): RouteDef[] {
  return [
    operation('createWebLink', {
      summary: 'A one-time link that opens the web view signed in as this API key',
      description: `Single use, valid ${LINK_TTL_MS / 1000} s, made with an API key only (403 for an OAuth token). The session it opens ends with the key.`,
      tags: ['web'],
      auth: true,
      bodyOptional: true,
      // The answer holds a secret: never stored for a replay.
      idempotencyKey: false,
      responses: {201: {description: 'The link', schema: 'WebLink'}, ...errorResponses(400, 401, 403, 413, 415, 422)},
      handler: async ({caller, body, req, reply}) => {
        const w = where(req)
        const link = await sessions.createLink(caller)
        const q = new URLSearchParams({code: link.code, ...(body.next ? {next: w.root + body.next} : {})})
        reply.header('Cache-Control', 'no-store')
        reply.code(201)
        return {url: `${w.origin}${w.root}/signin/link?${q.toString()}`, expires_at: link.expires_at}
      },
    }),
  ]
}
