/**
 * @module The daemon's HTTP application: fastify with kb's validation, problem+json errors, host check,
 * authentication and every /api/v1 route. `buildApp` is what tests, benchmarks and the daemon all run.
 */
import {pino} from 'pino'
import Fastify, {LogController, type FastifyInstance, type FastifyReply, type FastifyRequest} from 'fastify'
import {CLIENT_VIAS} from '../src/shared/contract.js'
import {KbError} from '../src/shared/errors.js'
import {API_PATH, DEFAULT_BASE_URL, type DaemonInfo} from '../src/shared/paths.js'
import {bearerChallenge} from './auth/authenticate.js'
import {composeServices, startBackground, type Services} from './compose.js'
import {addBodyParsers} from './http/body-parsers.js'
import {addCorsHeaders, isCorsPath, sendPreflight} from './http/cors.js'
import {installFastGet, type ApiAuthentication, type FastLane} from './http/fast-get.js'
import {addHostCheck} from './http/host-check.js'
import {honoursIdempotencyKey} from './http/idempotency.js'
import {requestIdOf, requestLogFields} from './http/request-log.js'
import {DiskState, isDiskFull} from './http/disk-state.js'
import {sendClientErrorProblem, sendProblem} from './http/problem.js'
import type {RouteDef} from './http/route.js'
import {oauthOpenApiPaths} from './oauth/openapi-paths.js'
import type {AuthorizationServer} from './oauth/authorization-server.js'
import {buildOpenApi} from './openapi.js'
import {apiKeyRoutes} from './routes/api-keys.js'
import {grantRoutes} from './routes/grants.js'
import {webLinkRoutes} from './routes/web-links.js'
import {entryReader, knowledgeRoutes, type ReadEntry} from './routes/knowledge.js'
import {metaRoutes} from './routes/meta.js'
import {mcpOpenApiPaths, registerMcpRoute} from './routes/mcp.js'
import {registerOAuthRoutes} from './routes/oauth.js'
import {projectRoutes} from './routes/projects.js'
import {recallRoutes} from './routes/recalls.js'
import {trustRoutes} from './routes/trust.js'
import {curationRoutes} from './routes/curation.js'
import {idRoutes} from './routes/ids.js'
import {historyRoutes} from './routes/history.js'
import {searchRoutes} from './routes/search.js'
import {transferRoutes} from './routes/transfer.js'
import {registerWebRoutes} from './web/routes.js'
import {webOrigin, type RequestOrigin} from './web/request.js'
import type {Authenticator} from './auth/authenticate.js'
import type {ApiKeyService} from './services/api-keys.js'
import type {Caller} from './services/context.js'
import type {KnowledgeService} from './services/knowledge.js'
import type {ProjectService} from './services/projects.js'
import type {Store} from './store/store.js'

export const API_PREFIX = API_PATH
const BODY_LIMIT = 1024 * 1024
const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const
/** Requests whose success shows the disk had room (server/http/disk-state.ts). */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

export interface AppOptions {
  store: Store
  version: string
  /** pino level; 'silent' in tests. */
  logLevel?: string
  /** Host names (without port) accepted besides `LOCAL_HOST_NAMES`, e.g. a team server's public name. */
  allowedHosts?: string[]
  /** The public base URL ending in /api/v1, when the daemon sits behind a proxy or has a public name. */
  publicBaseUrl?: string
  /** The secret of `daemon.secret`, with which `/health` proves the daemon owns its data directory. */
  proofSecret?: Buffer
  /** A daemon bound to loopback: what `/health` tells a caller on the same machine (its daemon.json). */
  localInfo?: () => DaemonInfo | null
  /** Days a recall's record is kept (docs/api.md, "Recall"); RECALL_RETENTION_DAYS_DEFAULT when unset. */
  recallRetentionDays?: number
  /** `kb daemon run --open-projects`: anyone who knows a remote joins its project (docs/api.md, "Membership"). */
  openProjects?: boolean
  /** The directory of a SQLite store, whose free space `/health` reports (server/http/disk-state.ts). */
  storeDir?: string
  /** false (`kb daemon run --no-web`): no web view (docs/web.md); the API alone. */
  web?: boolean
  /** false: `GET /knowledge/:id` is always answered by fastify (server/http/fast-get.ts); for the tests comparing the two. */
  fastLane?: boolean
}

export interface KbApp {
  app: FastifyInstance
  services: {knowledge: KnowledgeService; projects: ProjectService; apiKeys: ApiKeyService; auth: Authenticator; oauth: AuthorizationServer}
  routes: RouteDef[]
  /** The fast lane of `GET /knowledge/:id` (server/http/fast-get.ts): how many requests it answered, and a switch. */
  fastLane: FastLane
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller
  }
}

/** Headers every answer carries: its request id (how a report is found in the log) and CORS on API paths. */
function answerHeaders(req: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Request-Id', req.id)
  if (isCorsPath(pathOf(req.url), API_PREFIX)) addCorsHeaders(reply)
}

export async function buildApp(options: AppOptions): Promise<KbApp> {
  const {store, version} = options
  const app = createFastify(options.logLevel ?? 'info')
  addBodyParsers(app, `${API_PREFIX}/import`)
  const hostRefusal = addHostCheck(app, [
    ...(options.allowedHosts ?? []),
    ...(options.publicBaseUrl ? [new URL(options.publicBaseUrl).hostname] : []),
  ])
  const disk = addRequestHooks(app, options.storeDir)
  const s = composeServices(store, options, app.log)

  const baseUrl = (req: RequestOrigin): string => options.publicBaseUrl ?? `${req.protocol}://${req.host}${API_PREFIX}`
  const authenticate = apiAuthentication(s, baseUrl)
  const read = entryReader(s.knowledge, s.recalls, entryWebUrl(options))
  let openapiDoc: Record<string, unknown> | null = null
  const routes = apiRoutes(s, options, read, {disk, openapi: () => openapiDoc ?? {}})
  registerApiRoutes(app, routes, s, authenticate)
  registerOAuthRoutes(app, {service: s.oauth, baseUrl, prefix: API_PREFIX})
  registerMcpRoute(app, {auth: s.auth, baseUrl, prefix: API_PREFIX, version})
  if (options.web !== false)
    registerWebRoutes(app, {
      services: s,
      sessions: s.sessions,
      auth: s.auth,
      oauth: s.oauth,
      store,
      baseUrl,
      apiPrefix: API_PREFIX,
      ...(options.publicBaseUrl ? {publicBaseUrl: options.publicBaseUrl} : {}),
    })
  app.addHook('onClose', startBackground(s))
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  const fastLane = installFastGet(app.server, {
    apiPrefix: API_PREFIX,
    hostRefusal,
    authenticate,
    read,
    log: app.log,
    closing: () => closing,
  })
  fastLane.enabled = options.fastLane !== false

  openapiDoc = buildOpenApi(
    routes,
    {version, serverUrl: options.publicBaseUrl ?? DEFAULT_BASE_URL},
    {...oauthOpenApiPaths(), ...mcpOpenApiPaths()},
  )
  return {app, services: {knowledge: s.knowledge, projects: s.projects, apiKeys: s.apiKeys, auth: s.auth, oauth: s.oauth}, routes, fastLane}
}

/** fastify with kb's logging, limits and request ids; a URL it cannot route is a problem like any other. */
function createFastify(level: string): FastifyInstance {
  const app = Fastify({
    // Lines go to stderr asynchronously (sonic-boom): a synchronous write per request cost ~10 µs of the
    // GET path (docs/performance.md). Lines written while a write is in flight are coalesced into the
    // next one, so nothing waits for a buffer to fill; pino flushes synchronously on exit, a crash included.
    logger: {level, stream: level === 'silent' ? process.stderr : pino.destination({dest: 2, sync: false})},
    // One line per request (onResponse below) instead of fastify's two.
    logController: new LogController({disableRequestLogging: true}),
    bodyLimit: BODY_LIMIT,
    requestIdHeader: false,
    genReqId: (req) => requestIdOf(req.headers),
    routerOptions: {ignoreTrailingSlash: true, maxParamLength: 500},
    return503OnClosing: true,
    frameworkErrors: (error, req, reply) => {
      // A URL fastify cannot route (`%ff`, an over-long id) is answered before any hook runs.
      answerHeaders(req, reply)
      sendProblem(req, reply, error)
    },
    clientErrorHandler: sendClientErrorProblem,
  })
  // A client may close its sending side once the request is out (`shutdown(SHUT_WR)`). node then drops the
  // request unless it still awaits an answer: with a store that answers asynchronously (PostgreSQL) nearly
  // every answer would be lost. Half-open, the connection closes once the answer is sent.
  Object.assign(app.server, {httpAllowHalfOpen: true})
  return app
}

/** CORS preflights, the headers and the log line of every answer, errors as problems, unknown routes as 404; the disk's state. */
function addRequestHooks(app: FastifyInstance, storeDir: string | undefined): DiskState {
  // CORS (server/http/cors.ts): preflights are answered before routing decides 404 or 405.
  app.addHook('onRequest', async (req, reply) => {
    if (req.method === 'OPTIONS' && isCorsPath(pathOf(req.url), API_PREFIX)) return sendPreflight(reply)
  })
  app.addHook('onSend', async (req, reply) => answerHeaders(req, reply))
  const disk = new DiskState(storeDir)
  app.addHook('onResponse', async (req, reply) => {
    if (reply.statusCode < 400 && WRITE_METHODS.has(req.method)) disk.noteWritten()
    req.log.info(requestLogFields(req.method, req.url, reply.statusCode, reply.elapsedTime), 'request')
  })
  app.setErrorHandler((error, req, reply) => {
    if (isDiskFull(error)) disk.noteFull()
    return sendProblem(req, reply, error)
  })
  app.setNotFoundHandler((req, reply) =>
    sendProblem(req, reply, new KbError('not_found', `no route ${req.method} ${req.url.split('?')[0]}; see ${API_PREFIX}/openapi.json`)),
  )
  return disk
}

/** Every route of the API, each resource's routes over its services. */
function apiRoutes(
  s: Services,
  options: AppOptions,
  read: ReadEntry,
  meta: {disk: DiskState; openapi: () => Record<string, unknown>},
): RouteDef[] {
  const web = options.web !== false
  const origin = (req: FastifyRequest): ReturnType<typeof webOrigin> => webOrigin(req, options.publicBaseUrl, API_PREFIX)
  return [
    ...metaRoutes(options.version, meta.openapi, {store: options.store, disk: meta.disk}, options.proofSecret, options.localInfo),
    ...knowledgeRoutes(s.knowledge, s.queries, s.publish, read),
    ...trustRoutes(s.trust),
    ...curationRoutes(s.curation),
    ...historyRoutes(s.history, s.review),
    ...idRoutes(s.ids),
    ...searchRoutes(s.queries, s.recalls),
    ...recallRoutes(s.recalls),
    ...projectRoutes(s.projects, s.membership),
    ...apiKeyRoutes(s.apiKeys),
    ...grantRoutes(s.grants, s.sessions),
    ...(web ? webLinkRoutes(s.sessions, origin) : []),
    ...transferRoutes(s.transfer),
  ]
}

/** An entry's permanent page on the daemon's public origin (docs/web.md), given with GET /knowledge/:id; none without the web view. */
function entryWebUrl(options: AppOptions): ((req: RequestOrigin, id: string) => string) | undefined {
  if (options.web === false) return undefined
  return (req, id) => {
    const w = webOrigin(req, options.publicBaseUrl, API_PREFIX)
    return `${w.origin}${w.root}/e/${id}`
  }
}

/**
 * The caller of an authenticated API request (401 with a challenge otherwise), the `Kb-Short-Id-Length` its answer
 * carries and the client it says it is; for every route's `onRequest` and the fast lane (server/http/fast-get.ts).
 */
function apiAuthentication(s: Services, baseUrl: (req: RequestOrigin) => string): ApiAuthentication {
  return async (headers, origin) => {
    const caller = await s.auth.authenticate(
      headers.authorization,
      (invalid) => bearerChallenge(`${baseUrl(origin)}/.well-known/oauth-protected-resource`, invalid),
      {baseUrl: baseUrl(origin)},
    )
    // The length the caller's client prints short ids with (docs/api.md, "Short ids").
    const shortIdLength = String(await s.ids.shortLength())
    // What the client says it is, for history only (docs/api.md, "History"): identity is the credential's.
    const via = CLIENT_VIAS.find((v) => v === headers['kb-via'])
    if (via) caller.via = via
    return {caller, shortIdLength}
  }
}

/** Each route under the API prefix: authentication before the body is read, Idempotency-Key where it applies; 405 + Allow for the other methods of a path. */
function registerApiRoutes(app: FastifyInstance, routes: RouteDef[], s: Services, authenticate: ApiAuthentication): void {
  const methodsByPath = new Map<string, Set<string>>()
  for (const r of routes) {
    const url = API_PREFIX + r.path
    if (!methodsByPath.has(url)) methodsByPath.set(url, new Set())
    methodsByPath.get(url)!.add(r.method)
    const idempotent = honoursIdempotencyKey(r)
    app.route({
      method: r.method,
      url,
      schema: {
        ...(r.params ? {params: r.params} : {}),
        ...(r.query ? {querystring: r.query} : {}),
        ...(r.body ? {body: r.body} : {}),
      },
      onRequest: r.auth
        ? async (req, reply) => {
            const {caller, shortIdLength} = await authenticate(req.headers, req)
            req.caller = caller
            reply.header('Kb-Short-Id-Length', shortIdLength)
          }
        : undefined,
      preValidation: r.body
        ? async (req) => {
            if (req.body === undefined) req.body = {}
          }
        : undefined,
      preHandler: idempotent ? s.idempotency.preHandler : undefined,
      onSend: idempotent ? s.idempotency.onSend : undefined,
      handler: async (req, reply) => {
        const result = await r.handler({req, reply, params: req.params, query: req.query, body: req.body, caller: req.caller as Caller})
        if (reply.statusCode === 204) return reply.send()
        return result
      },
    })
  }
  // A known path with a method it does not serve is 405 with Allow, not 404.
  for (const [url, methods] of methodsByPath) {
    if (methods.has('GET')) methods.add('HEAD')
    const allow = [...methods].join(', ')
    const others = ALL_METHODS.filter((m) => !methods.has(m))
    if (others.length === 0) continue
    app.route({
      method: others as unknown as string[],
      url,
      handler: async () => {
        throw new KbError('method_not_allowed', `this path allows ${allow}`, {headers: {Allow: allow}})
      },
    })
  }
}

/** The path of a request URL, without its query. */
function pathOf(url: string): string {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}
