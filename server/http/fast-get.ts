/**
 * @module The fast lane of `GET /knowledge/:id` (docs/performance.md, "Throughput of GET /knowledge/:id"): the daemon's
 * hottest read, answered beside fastify rather than through it, with the same functions and the same bytes.
 *
 * It takes only the plainest request: `GET <api>/knowledge/<uuid>` with no query but `?detail=<level>`, no body, a
 * Host the daemon answers to and an `Authorization` header. Everything else — and any such request that does not end
 * in 200 (a bad credential, an entry the caller may not see, a failing store) — goes to fastify untouched, which
 * answers it as it answers every request. What the lane sends is what fastify would: the route's authentication
 * (server/app.ts) and reader (server/routes/knowledge.ts), the headers in fastify's order and case, `JSON.stringify`'s
 * body, and the one log line of request-log.ts; `test/server/fast-get.test.ts` compares both answers byte for byte.
 * A read that fails after its entry was found (the store failing mid-read) is read again by fastify, so its retrieval
 * may be counted twice (docs/api.md, "Usage"): nothing else a read does is repeated.
 */
import type {IncomingHttpHeaders, IncomingMessage, Server, ServerResponse} from 'node:http'
import type {TLSSocket} from 'node:tls'
import {DETAILS, UUID_PATTERN} from '../../src/shared/contract.js'
import type {Detail} from '../../src/shared/types.js'
import type {Caller} from '../services/context.js'
import {CORS_ANSWER_HEADERS} from './cors.js'
import type {HostRefusal} from './host-check.js'
import {requestIdOf, requestLogFields} from './request-log.js'

/** fastify's `req.protocol` and `req.host` of a request (no proxy trusted): what the base URL and web links are made of. */
interface Origin {
  protocol: 'http' | 'https'
  host: string
}

/** An API route's authentication (server/app.ts): the caller and the `Kb-Short-Id-Length` of the answer; throws a 401. */
export type ApiAuthentication = (headers: IncomingHttpHeaders, origin: Origin) => Promise<{caller: Caller; shortIdLength: string}>

export interface FastGetOptions {
  apiPrefix: string
  hostRefusal: HostRefusal
  authenticate: ApiAuthentication
  /** The reader of `GET /knowledge/:id` (server/routes/knowledge.ts, `entryReader`). */
  read: (
    caller: Caller,
    id: string,
    detail: Detail | undefined,
    req: Origin & {headers: IncomingHttpHeaders},
    found: (etag: string) => void,
  ) => Promise<unknown>
  log: {info(fields: object, message: string): void}
  /** Whether the app is closing: fastify then answers 503 to what arrives. */
  closing: () => boolean
}

/** The lane's switch (for the tests that compare it with fastify) and the count of requests it answered. */
export interface FastLane {
  enabled: boolean
  served: number
}

/** fastify's content type of a JSON body. */
const JSON_TYPE = 'application/json; charset=utf-8'
const UUID = new RegExp(UUID_PATTERN)
const UUID_LENGTH = 36
const QUERIES = new Map<string, Detail | undefined>([['', undefined], ...DETAILS.map((d): [string, Detail] => [`?detail=${d}`, d])])

type Listener = (req: IncomingMessage, res: ServerResponse) => void

/** Puts the lane in front of the server's one `request` listener (fastify's), which gets every request the lane does not answer. */
export function installFastGet(server: Server, o: FastGetOptions): FastLane {
  const listeners = server.listeners('request') as Listener[]
  if (listeners.length !== 1) throw new Error(`the fast lane expects fastify's request listener alone, found ${listeners.length}`)
  const fastify = listeners[0]!
  const lane: FastLane = {enabled: true, served: 0}
  const prefix = `${o.apiPrefix}/knowledge/`
  server.removeListener('request', fastify)
  server.on('request', function lanes(this: Server, req: IncomingMessage, res: ServerResponse) {
    const asked = lane.enabled && !o.closing() ? plainRead(req, prefix, o.hostRefusal) : null
    if (asked === null) return fastify.call(this, req, res)
    void answer(req, res, asked, o).then(
      (answered) => {
        if (answered) lane.served++
        else fastify.call(this, req, res)
      },
      // Nothing is thrown once the answer is written (see `answer`); but a request must never be left unanswered.
      () => (res.headersSent ? res.destroy() : fastify.call(this, req, res)),
    )
  })
  return lane
}

/** The id and detail of a request the lane takes, or null for one it leaves to fastify. */
function plainRead(req: IncomingMessage, prefix: string, hostRefusal: HostRefusal): {id: string; detail: Detail | undefined} | null {
  const url = req.url
  if (req.method !== 'GET' || url === undefined || !url.startsWith(prefix)) return null
  const id = url.slice(prefix.length, prefix.length + UUID_LENGTH)
  const query = url.slice(prefix.length + UUID_LENGTH)
  if (id.length !== UUID_LENGTH || !QUERIES.has(query) || !UUID.test(id)) return null
  const h = req.headers
  if (h.authorization === undefined || h['content-length'] !== undefined || h['transfer-encoding'] !== undefined) return null
  if (hostRefusal(req) !== null) return null
  return {id, detail: QUERIES.get(query)}
}

/** Answers with 200 and true, or with nothing written and false when the request is fastify's to answer. */
async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  asked: {id: string; detail: Detail | undefined},
  o: FastGetOptions,
): Promise<boolean> {
  const started = performance.now()
  const headers = req.headers
  const origin = {protocol: (req.socket as TLSSocket).encrypted ? 'https' : 'http', host: headers.host ?? '', headers} as const
  let shortIdLength: string
  let etag = ''
  let view: unknown
  try {
    const auth = await o.authenticate(headers, origin)
    shortIdLength = auth.shortIdLength
    view = await o.read(auth.caller, asked.id, asked.detail, origin, (e) => (etag = e))
  } catch {
    // fastify asks again and answers the problem (401, 404, 503 …) with its error handler.
    return false
  }
  const body = JSON.stringify(view)
  const reqId = requestIdOf(headers)
  res.writeHead(200, {
    'kb-short-id-length': shortIdLength,
    etag,
    'content-type': JSON_TYPE,
    'x-request-id': reqId,
    ...CORS_ANSWER_HEADERS,
    'content-length': String(Buffer.byteLength(body)),
  })
  res.end(body)
  o.log.info({reqId, ...requestLogFields('GET', req.url!, 200, performance.now() - started)}, 'request')
  return true
}
