/**
 * @module `/api/v1/mcp`: the kb tools over MCP Streamable HTTP (revisions 2025-06-18 and 2025-11-25).
 * Stateless: every POST gets a fresh SDK server and transport answering in plain JSON, so no session
 * outlives a request and any daemon process can answer any call. GET (a server-to-client event stream)
 * and DELETE (ending a session) are 405, as the transport spec allows a server without either.
 * The bearer credential is checked as for the API; a 401 points at the MCP endpoint's own resource
 * metadata, and the tools call the API in process with the same credential (server/mcp/inject-transport.ts).
 */
import {WebStandardStreamableHTTPServerTransport} from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type {FastifyInstance, FastifyRequest} from 'fastify'
import {KbError} from '../../src/shared/errors.js'
import {createMcpServer} from '../../src/shared/mcp/server.js'
import {bearerChallenge, type Authenticator} from '../auth/authenticate.js'
import {injectClient} from '../mcp/inject-transport.js'

export interface McpRouteOptions {
  auth: Authenticator
  /** The public base URL (ending in /api/v1) of a request. */
  baseUrl: (req: FastifyRequest) => string
  prefix: string
  version: string
}

/** Where the MCP endpoint's protected resource metadata is (RFC 9728 path insertion). */
function mcpResourceMetadataUrl(base: string): string {
  const u = new URL(base)
  return `${u.origin}/.well-known/oauth-protected-resource${u.pathname.replace(/\/+$/, '')}/mcp`
}

/** The transport's 406/415 as a problem, keeping its words (which say what Accept or Content-Type it wants). */
function transportRefusal(status: 406 | 415, text: string): KbError {
  let said = ''
  try {
    said = String((JSON.parse(text) as {error?: {message?: unknown}}).error?.message ?? '')
  } catch {
    // Not JSON: the generic words below.
  }
  const fallback = status === 406 ? 'Accept must list application/json and text/event-stream' : 'Content-Type must be application/json'
  return new KbError(status === 406 ? 'not_acceptable' : 'unsupported_media_type', said || fallback)
}

const problem = (code: string): Record<string, unknown> => ({
  description: `Problem (code: ${code})`,
  content: {'application/problem+json': {schema: {$ref: '#/components/schemas/Problem'}}},
})

/** The `/mcp` path item of `/openapi.json`: it is served outside the route table, by the MCP transport. */
export function mcpOpenApiPaths(): Record<string, Record<string, unknown>> {
  return {
    '/mcp': {
      post: {
        operationId: 'mcp',
        summary: 'MCP Streamable HTTP (stateless): one JSON-RPC message in, its answer out (docs/mcp.md)',
        tags: ['mcp'],
        parameters: [
          {name: 'Accept', in: 'header', required: true, schema: {type: 'string', example: 'application/json, text/event-stream'}},
        ],
        requestBody: {
          required: true,
          content: {'application/json': {schema: {type: 'object', description: 'A JSON-RPC 2.0 request or notification'}}},
        },
        responses: {
          200: {description: 'The JSON-RPC answer', content: {'application/json': {schema: {type: 'object'}}}},
          202: {description: 'A notification, accepted'},
          401: problem('unauthenticated'),
          405: problem('method_not_allowed'),
          406: problem('not_acceptable'),
          415: problem('unsupported_media_type'),
        },
        security: [{bearer: []}],
      },
    },
  }
}

/** The SDK's own bound on a batch: a longer one goes to it whole, and it refuses it. */
const BATCH_MAX = 100

/** One JSON-RPC message (or the whole body) through a fresh stateless SDK server and transport. */
async function answerOne(app: FastifyInstance, o: McpRouteOptions, req: FastifyRequest, body: unknown): Promise<Response> {
  const api = injectClient(app, o.prefix, {
    authorization: req.headers.authorization!,
    host: req.headers.host ?? '127.0.0.1',
    requestId: req.id,
  })
  const server = createMcpServer({api}, o.version)
  const transport = new WebStandardStreamableHTTPServerTransport({sessionIdGenerator: undefined, enableJsonResponse: true})
  try {
    await server.connect(transport)
    const headers = new Headers()
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v)
    const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url}`, {method: 'POST', headers})
    const res = await transport.handleRequest(request, {parsedBody: body})
    // The transport refuses a wrong Accept or Content-Type with a JSON-RPC body; every HTTP failure is problem+json.
    if (res.status === 406 || res.status === 415) throw transportRefusal(res.status, await res.text())
    // Read before the server closes: the body is the answer.
    const text = await res.text()
    return new Response(text === '' ? null : text, {status: res.status, headers: res.headers})
  } finally {
    await server.close()
  }
}

export function registerMcpRoute(app: FastifyInstance, o: McpRouteOptions): void {
  const url = `${o.prefix}/mcp`
  app.route({
    method: 'POST',
    url,
    onRequest: async (req) => {
      const base = o.baseUrl(req)
      req.caller = await o.auth.authenticate(
        req.headers.authorization,
        (invalid) => bearerChallenge(mcpResourceMetadataUrl(base), invalid),
        {baseUrl: base},
      )
    },
    handler: async (req, reply) => {
      // A batch is answered one message after another (each a search at most, bounded and yielding), so a
      // batch of 100 searches holds no more at once than one search does (docs/mcp.md, "Batches").
      const body = req.body
      const messages = Array.isArray(body) && body.length > 1 && body.length <= BATCH_MAX ? (body as unknown[]) : [body]
      const answers: string[] = []
      let last: Response | null = null
      for (const message of messages) {
        if (last) await new Promise((resolve) => setImmediate(resolve))
        last = await answerOne(app, o, req, message)
        const text = await last.text()
        if (text !== '') answers.push(text)
      }
      const res = last!
      reply.code(messages.length > 1 ? (answers.length > 0 ? 200 : 202) : res.status)
      res.headers.forEach((value, key) => {
        if (key !== 'content-length') reply.header(key, value)
      })
      if (messages.length > 1 && answers.length > 0) reply.header('content-type', 'application/json')
      const text = messages.length > 1 ? (answers.length > 0 ? `[${answers.join(',')}]` : '') : (answers[0] ?? '')
      return reply.send(text === '' ? undefined : text)
    },
  })
  app.route({
    method: ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE'],
    url,
    handler: async () => {
      throw new KbError(
        'method_not_allowed',
        'the MCP endpoint is stateless: send JSON-RPC messages with POST (there is no event stream to GET and no session to DELETE)',
        {headers: {Allow: 'POST'}},
      )
    },
  })
}
