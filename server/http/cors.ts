/**
 * @module CORS for browser clients such as MCP Inspector (docs/oauth.md): any origin may call the API, the
 * discovery documents and the OAuth JSON endpoints, without credentials (bearer tokens, never cookies).
 * The consent page is a top-level navigation and gets none of it, so no other site can read its form.
 */
import type {FastifyReply} from 'fastify'

const CORS_ALLOW_METHODS = 'GET, POST, PATCH, DELETE, OPTIONS'
const CORS_ALLOW_HEADERS =
  'Authorization, Content-Type, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID, If-Match, Idempotency-Key, X-Request-Id'
const CORS_EXPOSE_HEADERS = 'WWW-Authenticate, Mcp-Session-Id, ETag, Location, Retry-After, X-Request-Id, Idempotent-Replayed'

/** Whether responses to this path (no query) carry CORS headers. */
export function isCorsPath(path: string, apiPrefix: string): boolean {
  if (path.startsWith('/.well-known/')) return true
  if (path !== apiPrefix && !path.startsWith(`${apiPrefix}/`)) return false
  return !path.startsWith(`${apiPrefix}/oauth/authorize`)
}

/** The CORS headers of an answer on a CORS path, as fastify writes them (lower case): also the fast lane's (fast-get.ts). */
export const CORS_ANSWER_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': CORS_EXPOSE_HEADERS,
} as const

export function addCorsHeaders(reply: FastifyReply): void {
  reply.headers(CORS_ANSWER_HEADERS)
}

/** Answers an OPTIONS (preflight) request: 204 with what a cross-origin request may use. */
export function sendPreflight(reply: FastifyReply): FastifyReply {
  return reply
    .code(204)
    .headers({
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': CORS_ALLOW_METHODS,
      'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS,
      'Access-Control-Max-Age': '86400',
    })
    .send()
}
