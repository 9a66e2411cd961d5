/**
 * @module The composition root of the daemon: every service made once from the store and the daemon's options, in
 * the order they need each other, and the background work they do (the OAuth sweeps, stale Idempotency-Keys,
 * retrieval counts written in batches) started and stopped together. `buildApp` (app.ts) hands them to the routes.
 */
import type {FastifyBaseLogger} from 'fastify'
import {RECALL_RETENTION_DAYS_DEFAULT, USAGE_FLUSH_MS} from '../src/shared/contract.js'
import {KbError} from '../src/shared/errors.js'
import {Authenticator} from './auth/authenticate.js'
import {IdempotencyLayer} from './http/idempotency.js'
import {createAuthorizationServer, type AuthorizationServer} from './oauth/authorization-server.js'
import {GrantService} from './oauth/grants.js'
import {ApiKeyService} from './services/api-keys.js'
import {CurationService} from './services/curation.js'
import {HistoryService} from './services/history.js'
import {IdService} from './services/ids.js'
import {KnowledgeService} from './services/knowledge.js'
import {MembershipService} from './services/membership.js'
import {ProjectService} from './services/projects.js'
import {PublishService} from './services/publish.js'
import {EntryQueries} from './services/queries.js'
import {RecallService} from './services/recall.js'
import {ReviewService} from './services/review.js'
import {TrustService} from './services/trust.js'
import {IMPORT_BODY_LIMIT} from './services/transfer/format.js'
import {TransferService} from './services/transfer/service.js'
import {SimilarBackfill} from './services/similar-backfill.js'
import {TallyFolder} from './services/tally-fold.js'
import {UsageCounter} from './services/usage.js'
import type {Store} from './store/store.js'
import {WebSessions} from './web/sessions.js'

export interface ServiceOptions {
  version: string
  /** Days a recall's record is kept (docs/api.md, "Recall"); RECALL_RETENTION_DAYS_DEFAULT when unset. */
  recallRetentionDays?: number
  /** `kb daemon run --open-projects` (docs/api.md, "Membership"). */
  openProjects?: boolean
}

/** Every service of one daemon, each made once. */
export interface Services {
  auth: Authenticator
  oauth: AuthorizationServer
  knowledge: KnowledgeService
  usage: UsageCounter
  queries: EntryQueries
  membership: MembershipService
  projects: ProjectService
  apiKeys: ApiKeyService
  idempotency: IdempotencyLayer
  recalls: RecallService
  history: HistoryService
  publish: PublishService
  trust: TrustService
  curation: CurationService
  review: ReviewService
  /** Similar pairs for entries from before kb kept them, found in the background (docs/search.md, "Similar entries"). */
  backfill: SimilarBackfill
  /** The review tally's rows of ended PostgreSQL connections, folded into one now and then. */
  tallyFold: TallyFolder
  ids: IdService
  sessions: WebSessions
  grants: GrantService
  transfer: TransferService
}

export function composeServices(store: Store, options: ServiceOptions, log: FastifyBaseLogger): Services {
  const {auth, oauth} = authentication(store, log)
  const knowledge = new KnowledgeService(store)
  const usage = new UsageCounter(store, Number(process.env.KB_USAGE_FLUSH_MS) || USAGE_FLUSH_MS, log)
  knowledge.usage = usage
  const queries = new EntryQueries(store, knowledge)
  const membership = new MembershipService(store, {openProjects: options.openProjects === true})
  return {
    auth,
    oauth,
    knowledge,
    usage,
    queries,
    membership,
    projects: new ProjectService(store, membership),
    apiKeys: new ApiKeyService(store),
    idempotency: new IdempotencyLayer(store.idempotency, log, {maxStreamBytes: IMPORT_BODY_LIMIT}),
    recalls: new RecallService(store, queries, knowledge, options.recallRetentionDays ?? RECALL_RETENTION_DAYS_DEFAULT),
    history: new HistoryService(store, knowledge),
    publish: new PublishService(store, knowledge),
    trust: new TrustService(store, knowledge),
    curation: new CurationService(store, knowledge),
    review: new ReviewService(store, knowledge),
    tallyFold: new TallyFolder(store, log),
    backfill: new SimilarBackfill(store, Number(process.env.KB_SIMILAR_BACKFILL_PAUSE_MS ?? '') || undefined, log),
    ids: new IdService(store, knowledge),
    sessions: new WebSessions(store),
    grants: new GrantService(store),
    transfer: new TransferService(store, options.version, () => usage.flush()),
  }
}

/** Starts the services' background work; the function returned stops it (the app's onClose). */
export function startBackground(s: Services): () => Promise<void> {
  s.oauth.sweeper.start()
  s.idempotency.start()
  s.usage.start()
  s.backfill.start()
  s.tallyFold.start()
  return async () => {
    s.oauth.sweeper.stop()
    s.idempotency.stop()
    await s.backfill.stop()
    await s.tallyFold.stop()
    await s.usage.stop()
  }
}

/**
 * Bearer authentication: API keys, and the OAuth authorization server's access tokens. The consent page checks the
 * API key a person types with the same authenticator (a key it does not know is no sign-in, not an error).
 */
function authentication(store: Store, log: FastifyBaseLogger): {auth: Authenticator; oauth: AuthorizationServer} {
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
    log,
  )
  auth.addVerifier((token, context) => oauth.verifyAccessToken(token, context.baseUrl))
  return {auth, oauth}
}
