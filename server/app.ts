/**
 * @module The daemon's HTTP application: fastify with kb's validation, problem+json errors, host check,
 * authentication and every /api/v1 route. `buildApp` is what tests, benchmarks and the daemon all run.
 */
import {JSON_DEPTH_MAX, nestsDeeperThan} from './http/json-depth.js'
import {randomUUID} from 'node:crypto'
import {pino} from 'pino'
import Fastify, {LogController, type FastifyInstance, type FastifyReply, type FastifyRequest} from 'fastify'
import {CLIENT_VIAS, RECALL_RETENTION_DAYS_DEFAULT, USAGE_FLUSH_MS} from '../src/shared/contract.js'
import {KbError} from '../src/shared/errors.js'
import {API_PATH, DEFAULT_BASE_URL, type DaemonInfo} from '../src/shared/paths.js'
import {createValidator} from '../src/shared/validator.js'
import {Authenticator, bearerChallenge} from './auth/authenticate.js'
import {addCorsHeaders, isCorsPath, sendPreflight} from './http/cors.js'
import {honoursIdempotencyKey, IdempotencyLayer} from './http/idempotency.js'
import {loggedUrl} from './http/log-url.js'
import {DiskState, isDiskFull} from './http/disk-state.js'
import {sendClientErrorProblem, sendProblem} from './http/problem.js'
import type {RouteDef} from './http/route.js'
import {oauthOpenApiPaths} from './oauth/openapi-paths.js'
import {createAuthorizationServer, type AuthorizationServer} from './oauth/authorization-server.js'
import {buildOpenApi} from './openapi.js'
import {GrantService} from './oauth/grants.js'
import {apiKeyRoutes} from './routes/api-keys.js'
import {grantRoutes} from './routes/grants.js'
import {webLinkRoutes} from './routes/web-links.js'
import {knowledgeRoutes} from './routes/knowledge.js'
import {metaRoutes} from './routes/meta.js'
import {mcpOpenApiPaths, registerMcpRoute} from './routes/mcp.js'
import {registerOAuthRoutes} from './routes/oauth.js'
import {projectRoutes} from './routes/projects.js'
import {recallRoutes} from './routes/recalls.js'
import {trustRoutes} from './routes/trust.js'
import {curationRoutes} from './routes/curation.js'
import {idRoutes} from './routes/ids.js'
import {IdService} from './services/ids.js'
import {historyRoutes} from './routes/history.js'
import {HistoryService} from './services/history.js'
import {registerWebRoutes} from './web/routes.js'
import {webOrigin} from './web/request.js'
import {WebSessions} from './web/sessions.js'
import {ReviewService} from './services/review.js'
import {UsageCounter} from './services/usage.js'
import {CurationService} from './services/curation.js'
import {TrustService} from './services/trust.js'
import {searchRoutes} from './routes/search.js'
import {transferRoutes} from './routes/transfer.js'
import {ApiKeyService} from './services/api-keys.js'
import type {Caller} from './services/context.js'
import {KnowledgeService} from './services/knowledge.js'
import {EntryQueries} from './services/queries.js'
import {PublishService} from './services/publish.js'
import {RecallService} from './services/recall.js'
import {ProjectService} from './services/projects.js'
import {MembershipService} from './services/membership.js'
import {IMPORT_BODY_LIMIT} from './services/transfer/format.js'
import {TransferService} from './services/transfer/service.js'
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
}

export interface KbApp {
  app: FastifyInstance
  services: {knowledge: KnowledgeService; projects: ProjectService; apiKeys: ApiKeyService; auth: Authenticator; oauth: AuthorizationServer}
  routes: RouteDef[]
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
  const level = options.logLevel ?? 'info'
  const app = Fastify({
    // Lines go to stderr asynchronously (sonic-boom): a synchronous write per request cost ~10 µs of the
    // GET path (docs/performance.md). Lines written while a write is in flight are coalesced into the
    // next one, so nothing waits for a buffer to fill; pino flushes synchronously on exit, a crash included.
    logger: {level, stream: level === 'silent' ? process.stderr : pino.destination({dest: 2, sync: false})},
    // One line per request (onResponse below) instead of fastify's two.
    logController: new LogController({disableRequestLogging: true}),
    bodyLimit: BODY_LIMIT,
    requestIdHeader: false,
    genReqId: (req) => {
      const h = req.headers['x-request-id']
      return typeof h === 'string' && /^[\x21-\x7e]{1,200}$/.test(h) ? h : randomUUID()
    },
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

  // Bodies are JSON, validated without coercion; query strings and path parameters are text.
  const bodyAjv = createValidator('json')
  const textAjv = createValidator('query')
  app.setValidatorCompiler(({schema, httpPart}) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema))

  app.removeAllContentTypeParsers()
  // fastify tests the regex against the whole header, parameters included (`application/json; charset=utf-8`).
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json\s*(;|$)/i, {parseAs: 'string'}, (_req, body, done) => {
    const text = String(body)
    if (text.trim() === '') return done(null, undefined)
    if (nestsDeeperThan(text)) {
      return done(new KbError('bad_request', `request body nests arrays and objects more than ${JSON_DEPTH_MAX} deep`), undefined)
    }
    try {
      done(null, JSON.parse(text))
    } catch (e) {
      done(new KbError('bad_request', `request body is not valid JSON: ${(e as Error).message}`), undefined)
    }
  })
  // Imports are JSON Lines of up to 512 MiB, which the /import route reads as a stream itself
  // (server/services/transfer/); every other route refuses them like any body that is not JSON.
  app.addContentTypeParser(/^application\/x-ndjson\s*(;|$)/i, (req, payload, done) => {
    if (req.routeOptions.url !== `${API_PREFIX}/import`)
      return done(new KbError('unsupported_media_type', 'send the body as JSON with Content-Type: application/json'), undefined)
    done(null, payload)
  })

  const baseUrl = (req: FastifyRequest): string => options.publicBaseUrl ?? `${req.protocol}://${req.host}${API_PREFIX}`
  const allowed = new Set([...LOCAL_HOST_NAMES, ...(options.allowedHosts ?? []).map((h) => h.toLowerCase())])
  if (options.publicBaseUrl) allowed.add(new URL(options.publicBaseUrl).hostname.toLowerCase())
  app.addHook('onRequest', async (req) => {
    // node keeps the first of several Host lines; a proxy may route by another, so the check would be
    // checking the wrong name (RFC 9112 §3.2: such a request is a 400).
    const raw = req.raw.rawHeaders
    let hosts = 0
    for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++
    if (hosts > 1) {
      throw new KbError('bad_request', 'the request has more than one Host header')
    }
    const host = hostName(req.headers.host)
    if (host === null) throw new KbError('forbidden', 'requests whose Host is not a host name with at most one port are refused')
    if (!allowed.has(host)) {
      throw new KbError('forbidden', `requests for host "${host}" are refused; start the daemon with --allow-host ${host} to serve it`)
    }
  })
  // CORS (server/http/cors.ts): preflights are answered before routing decides 404 or 405.
  app.addHook('onRequest', async (req, reply) => {
    if (req.method === 'OPTIONS' && isCorsPath(pathOf(req.url), API_PREFIX)) return sendPreflight(reply)
  })
  app.addHook('onSend', async (req, reply) => answerHeaders(req, reply))
  const disk = new DiskState(options.storeDir)
  app.addHook('onResponse', async (req, reply) => {
    if (reply.statusCode < 400 && WRITE_METHODS.has(req.method)) disk.noteWritten()
    req.log.info(
      {method: req.method, url: loggedUrl(req.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10},
      'request',
    )
  })
  app.setErrorHandler((error, req, reply) => {
    if (isDiskFull(error)) disk.noteFull()
    return sendProblem(req, reply, error)
  })
  app.setNotFoundHandler((req, reply) =>
    sendProblem(req, reply, new KbError('not_found', `no route ${req.method} ${req.url.split('?')[0]}; see ${API_PREFIX}/openapi.json`)),
  )

  const auth = new Authenticator(store)
  const oauth = createAuthorizationServer(
    store,
    async (key) => {
      try {
        return await auth.authenticate(`Bearer ${key}`, () => '')
      } catch (e) {
        if (e instanceof KbError && e.code === 'unauthenticated') return null
        throw e
      }
    },
    app.log,
  )
  auth.addVerifier((token, context) => oauth.verifyAccessToken(token, context.baseUrl))
  const knowledge = new KnowledgeService(store)
  const usage = new UsageCounter(store, Number(process.env.KB_USAGE_FLUSH_MS) || USAGE_FLUSH_MS, app.log)
  knowledge.usage = usage
  const queries = new EntryQueries(store, knowledge)
  const membership = new MembershipService(store, {openProjects: options.openProjects === true})
  const projects = new ProjectService(store, membership)
  const apiKeys = new ApiKeyService(store)
  const idempotency = new IdempotencyLayer(store.idempotency, app.log, {maxStreamBytes: IMPORT_BODY_LIMIT})
  let openapiDoc: Record<string, unknown> | null = null
  const recalls = new RecallService(store, queries, knowledge, options.recallRetentionDays ?? RECALL_RETENTION_DAYS_DEFAULT)
  const history = new HistoryService(store, knowledge)
  const publish = new PublishService(store, knowledge)
  const trust = new TrustService(store, knowledge)
  const curation = new CurationService(store, knowledge)
  const review = new ReviewService(store, knowledge)
  // The review queue's kept counts go with any write answered (before the answer leaves, so a client's next read sees it).
  app.addHook('onSend', async (req, reply) => {
    if (reply.statusCode < 400 && WRITE_METHODS.has(req.method)) review.forget()
  })
  const sessions = new WebSessions(store)
  const web = options.web !== false
  // An entry's permanent page on the daemon's public origin (docs/web.md), given with GET /knowledge/:id.
  const webUrl = web
    ? (req: FastifyRequest, id: string): string => {
        const w = webOrigin(req, options.publicBaseUrl, API_PREFIX)
        return `${w.origin}${w.root}/e/${id}`
      }
    : undefined
  const ids = new IdService(store, knowledge)
  const routes: RouteDef[] = [
    ...metaRoutes(version, () => openapiDoc ?? {}, {store, disk}, options.proofSecret, options.localInfo),
    ...knowledgeRoutes(knowledge, queries, publish, recalls, webUrl),
    ...trustRoutes(trust),
    ...curationRoutes(curation),
    ...historyRoutes(history, review),
    ...idRoutes(ids),
    ...searchRoutes(queries, recalls),
    ...recallRoutes(recalls),
    ...projectRoutes(projects, membership),
    ...apiKeyRoutes(apiKeys),
    ...grantRoutes(new GrantService(store), sessions),
    ...(web ? webLinkRoutes(sessions, (req) => webOrigin(req, options.publicBaseUrl, API_PREFIX)) : []),
    ...transferRoutes(new TransferService(store, version)),
  ]

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
            req.caller = await auth.authenticate(
              req.headers.authorization,
              (invalid) => bearerChallenge(`${baseUrl(req)}/.well-known/oauth-protected-resource`, invalid),
              {baseUrl: baseUrl(req)},
            )
            // The length the caller's client prints short ids with (docs/api.md, "Short ids").
            reply.header('Kb-Short-Id-Length', String(await ids.shortLength()))
            // What the client says it is, for history only (docs/api.md, "History"): identity is the credential's.
            const via = CLIENT_VIAS.find((v) => v === req.headers['kb-via'])
            if (via) req.caller.via = via
          }
        : undefined,
      preValidation: r.body
        ? async (req) => {
            if (req.body === undefined) req.body = {}
          }
        : undefined,
      preHandler: idempotent ? idempotency.preHandler : undefined,
      onSend: idempotent ? idempotency.onSend : undefined,
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

  registerOAuthRoutes(app, {service: oauth, baseUrl, prefix: API_PREFIX})
  registerMcpRoute(app, {auth, baseUrl, prefix: API_PREFIX, version})
  if (web)
    registerWebRoutes(app, {
      services: {knowledge, queries, history, review, projects, trust, curation, publish, ids},
      sessions,
      auth,
      oauth,
      store,
      baseUrl,
      apiPrefix: API_PREFIX,
      ...(options.publicBaseUrl ? {publicBaseUrl: options.publicBaseUrl} : {}),
    })
  oauth.sweeper.start()
  idempotency.start()
  usage.start()
  app.addHook('onClose', async () => {
    oauth.sweeper.stop()
    idempotency.stop()
    await usage.stop()
  })

  openapiDoc = buildOpenApi(
    routes,
    {version, serverUrl: options.publicBaseUrl ?? DEFAULT_BASE_URL},
    {...oauthOpenApiPaths(), ...mcpOpenApiPaths()},
  )
  return {app, services: {knowledge, projects, apiKeys, auth, oauth}, routes}
}

/** The path of a request URL, without its query. */
function pathOf(url: string): string {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

/** The host name of a Host header, lower case, without port; IPv6 keeps its brackets. */
function hostName(host: string | undefined): string | null {
  if (!host) return ''
  const h = host.trim().toLowerCase()
  // A name and at most one port of digits (RFC 9110 §7.2): `localhost:7471:1` would become the issuer of tokens.
  const close = h.startsWith('[') ? h.indexOf(']') + 1 : 0
  if (h.startsWith('[') && close === 0) return null
  const colon = h.indexOf(':', close)
  const name = close > 0 ? h.slice(0, close) : colon === -1 ? h : h.slice(0, colon)
  const rest = close > 0 ? h.slice(close) : colon === -1 ? '' : h.slice(colon)
  return rest === '' || /^:[0-9]{1,5}$/.test(rest) ? name : null
}

/**
 * The Host names every daemon answers to, on any port (docs/security.md): exact, so that no DNS name a web
 * page controls — `*.localhost` included, which not every resolver keeps on this machine — reaches it.
 */
const LOCAL_HOST_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]']
