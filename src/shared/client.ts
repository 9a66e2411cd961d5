/**
 * @module The kb API client: typed calls over a `Transport`. The CLI sends over node:http
 * (`src/cli/client/http-transport.ts`); the daemon's MCP endpoint through the app in process
 * (`server/mcp/inject-transport.ts`). Query building, JSON decoding, the one OAuth refresh and the
 * problem → `KbError` mapping live here once, whatever carries the bytes.
 */
import {codeForStatus, ERROR_CODES, isErrorCode, KbError, type FieldError} from './errors.js'
import {noteShortIdLength, readIdRef} from './short-id.js'
import type {IdResolved} from './id-schemas.js'
// The inputs are the request schemas' own types: type-only, so the CLI does not load TypeBox to use them.
import type {RecallBody, RecallRecord, RecallResult, RecallsQuery} from './recall-schemas.js'
import type {Invitation, InvitationBody, JoinPending, JoinRequest, Member} from './membership-schemas.js'
import type {DismissSimilarBody, HistoryPage, ReviewPage, ReviewQuery, SimilarDismissed} from './curation-schemas.js'
import type {
  AnchorCheckBody,
  CommentBody,
  CreateApiKeyBody,
  CreateEntryBody,
  FlagBody,
  ForkBody,
  MergeBody,
  SupersedeBody,
  JoinProjectBody,
  ListQuery,
  PatchEntryBody,
  ProjectSettingsBody,
  PublishBody,
  ResolveBody,
  SearchQuery,
  VerifyBody,
} from './schemas.js'
import type {
  ApiKeyRecord,
  Comment,
  Detail,
  EntryCreated,
  EntryFull,
  EntryView,
  Grant,
  Health,
  JoinResult,
  Page,
  Project,
  ProjectRole,
  PublishPreview,
  Scope,
  SearchResult,
  WebLink,
} from './types.js'

/** Response headers as node:http and fastify's `inject` both give them (lower-case names). */
export type Headers = Record<string, string | string[] | number | undefined>

export interface TransportRequest {
  method: string
  url: URL
  headers: Record<string, string>
  body: string | undefined
  timeoutMs: number
}

export interface TransportResponse {
  status: number
  headers: Headers
  text: string
  /** The server's end of the connection, when the transport has one (the daemon's proof is bound to it). */
  peer?: {address: string; port: number}
}

/** Carries one request; a server that cannot be reached rejects with `KbError('unreachable')`. */
export interface Transport {
  send(req: TransportRequest): Promise<TransportResponse>
}

export interface ClientOptions {
  /** Ends in /api/v1, no trailing slash. */
  baseUrl: string
  transport: Transport
  key?: string | null
  userAgent?: string
  timeoutMs?: number
}

export interface ApiResponse<T> {
  status: number
  headers: Headers
  body: T
}

export interface RequestInit {
  query?: Record<string, string | number | boolean | undefined | null>
  body?: unknown
  headers?: Record<string, string>
  timeoutMs?: number
}

/**
 * A creating or changing request as data: what `ApiClient.write` sends, and what the CLI's outbox keeps to send
 * later (src/cli/outbox). Built by `writeRequests`, the one place their paths are written.
 */
export interface WriteRequest {
  method: 'POST' | 'PATCH'
  path: string
  body: unknown
  /** The entity tag the change is based on (sent as If-Match). */
  ifMatch?: string
}

const entryPath = (id: string, tail = ''): string => `/knowledge/${encodeURIComponent(id)}${tail}`

export const writeRequests = {
  /** With `refuse`, similar entries answer 409 possible_duplicate instead of a new entry (docs/api.md, "Similar entries on write"). */
  createEntry: (input: CreateEntryBody, onSimilar?: 'refuse'): WriteRequest => ({
    method: 'POST',
    path: onSimilar ? `/knowledge?on_similar=${onSimilar}` : '/knowledge',
    body: input,
  }),
  patchEntry: (id: string, input: PatchEntryBody, ifMatch?: string): WriteRequest => ({
    method: 'PATCH',
    path: entryPath(id),
    body: input,
    ...(ifMatch ? {ifMatch} : {}),
  }),
  resolve: (id: string, input: ResolveBody): WriteRequest => ({method: 'POST', path: entryPath(id, '/resolve'), body: input}),
  comment: (id: string, input: CommentBody): WriteRequest => ({method: 'POST', path: entryPath(id, '/comments'), body: input}),
  publish: (id: string, input: PublishBody): WriteRequest => ({method: 'POST', path: entryPath(id, '/publish'), body: input}),
  fork: (id: string, input: ForkBody): WriteRequest => ({method: 'POST', path: entryPath(id, '/fork'), body: input}),
  verify: (id: string, input: VerifyBody): WriteRequest => ({method: 'POST', path: entryPath(id, '/verify'), body: input}),
  flag: (id: string, input: FlagBody): WriteRequest => ({method: 'POST', path: entryPath(id, '/flags'), body: input}),
  supersede: (id: string, input: SupersedeBody): WriteRequest => ({method: 'POST', path: entryPath(id, '/supersede'), body: input}),
  merge: (id: string, input: MergeBody): WriteRequest => ({method: 'POST', path: entryPath(id, '/merge'), body: input}),
  dismissSimilar: (id: string, input: DismissSimilarBody): WriteRequest => ({
    method: 'POST',
    path: entryPath(id, '/similar/dismiss'),
    body: input,
  }),
  checkAnchors: (id: string, input: AnchorCheckBody): WriteRequest => ({
    method: 'POST',
    path: entryPath(id, '/anchors/check'),
    body: input,
  }),
}

export class ApiClient {
  readonly baseUrl: string
  key: string | null
  private readonly transport: Transport
  private readonly userAgent: string
  private readonly timeoutMs: number
  /**
   * No request of this client waits past this time (ms since the epoch), for work that must stay bounded
   * however the server behaves: the CLI's background send of its outbox.
   */
  deadline: number | undefined
  /**
   * Set for OAuth credentials: fresh tokens after a 401 with `error="invalid_token"`. Used at most once
   * per client, so a token the server keeps refusing is reported instead of refreshed in a loop.
   */
  refreshKey: (() => Promise<string | null>) | undefined
  /**
   * Set by the MCP tools: searches and reads then say they give knowledge to an agent (`Kb-Recall-Client`, and
   * `Kb-Recall-Session` when known), and the server records them as recalls (docs/api.md, "Recall").
   */
  recallTag: {client: string; session?: string} | undefined
  /**
   * What this client is, when it acts for something other than a person at the CLI: the MCP tools and the git
   * hook say so in `Kb-Via`, and the history of what they change records it (docs/api.md, "History").
   */
  via: 'mcp' | 'hook' | undefined

  constructor(o: ClientOptions) {
    this.baseUrl = o.baseUrl.replace(/\/+$/, '')
    this.key = o.key ?? null
    this.transport = o.transport
    this.userAgent = o.userAgent ?? 'kb-cli'
    this.timeoutMs = o.timeoutMs ?? 30_000
  }

  /** One request; a 4xx/5xx answer throws `KbError` with the problem's code and detail. */
  async request<T>(method: string, path: string, init: RequestInit = {}): Promise<ApiResponse<T>> {
    const url = new URL(this.baseUrl + path)
    for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined && v !== null) url.searchParams.set(k, String(v))
    const headers: Record<string, string> = {
      accept: 'application/json, application/problem+json',
      'user-agent': this.userAgent,
      ...init.headers,
    }
    if (this.key) headers.authorization = `Bearer ${this.key}`
    if (this.via) headers['kb-via'] = this.via
    let payload: string | undefined
    if (init.body !== undefined) {
      payload = JSON.stringify(init.body)
      headers['content-type'] = 'application/json'
      headers['content-length'] = String(Buffer.byteLength(payload))
    }
    let timeoutMs = init.timeoutMs ?? this.timeoutMs
    if (this.deadline !== undefined) timeoutMs = Math.max(250, Math.min(timeoutMs, this.deadline - Date.now()))
    let res = await this.transport.send({method, url, headers, body: payload, timeoutMs})
    if (res.status === 401 && this.key && this.refreshKey && /invalid_token/.test(String(res.headers['www-authenticate'] ?? ''))) {
      const refresh = this.refreshKey
      this.refreshKey = undefined
      const fresh = await refresh()
      if (fresh && fresh !== headers.authorization?.slice(7)) {
        this.key = fresh
        headers.authorization = `Bearer ${fresh}`
        res = await this.transport.send({method, url, headers, body: payload, timeoutMs})
      }
    }
    if (res.headers['kb-short-id-length'] !== undefined) noteShortIdLength(res.headers['kb-short-id-length'])
    let body: unknown = res.text
    const type = String(res.headers['content-type'] ?? '')
    if (res.text !== '' && type.includes('json')) {
      try {
        body = JSON.parse(res.text)
      } catch {
        throw new KbError(
          'internal',
          `${this.origin()} answered ${method} ${url.pathname} with malformed JSON (status ${res.status}); is --base-url a kb server?`,
        )
      }
    }
    if (res.status >= 400) throw problemToError(res.status, body, res.headers, `${method} ${url.pathname}`)
    return {status: res.status, headers: res.headers, body: body as T}
  }

  private origin(): string {
    return new URL(this.baseUrl).origin
  }

  /**
   * Sends a write. With `idempotencyKey` (docs/api.md, "Idempotency"), sending it again — after a timeout, from
   * the outbox — is answered with the first answer instead of acting twice.
   */
  async write<T>(w: WriteRequest, o: {idempotencyKey?: string; timeoutMs?: number} = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = {}
    if (w.ifMatch) headers['if-match'] = w.ifMatch
    if (o.idempotencyKey) headers['idempotency-key'] = `"${o.idempotencyKey}"`
    return this.request<T>(w.method, w.path, {body: w.body, headers, ...(o.timeoutMs ? {timeoutMs: o.timeoutMs} : {})})
  }

  async health(timeoutMs = 2000): Promise<Health> {
    return (await this.request<Health>('GET', '/health', {timeoutMs})).body
  }

  /**
   * The whole id of the entry a typed reference names (docs/api.md, "Short ids"): a whole id is itself, without a
   * request; a start or an end of one is asked of the server, which answers 404 or 409 `ambiguous_id` (exit 2).
   */
  async entryId(typed: string): Promise<string> {
    const ref = readIdRef(typed)
    if ('id' in ref) return ref.id
    return (await this.request<IdResolved>('GET', `/ids/${encodeURIComponent(ref.hex)}`)).body.id
  }

  async createEntry(input: CreateEntryBody, onSimilar?: 'refuse'): Promise<EntryCreated> {
    return (await this.write<EntryCreated>(writeRequests.createEntry(input, onSimilar))).body
  }

  /** The headers that mark a read as a recall, when this client serves an agent. */
  private recallHeaders(): Record<string, string> {
    if (!this.recallTag) return {}
    const h: Record<string, string> = {'kb-recall-client': this.recallTag.client}
    if (this.recallTag.session) h['kb-recall-session'] = this.recallTag.session
    return h
  }

  async getEntry(id: string, detail?: Detail): Promise<{entry: EntryView; etag: string | null}> {
    const res = await this.request<EntryView>('GET', `/knowledge/${encodeURIComponent(id)}`, {
      query: {detail},
      headers: this.recallHeaders(),
    })
    return {entry: res.body, etag: typeof res.headers.etag === 'string' ? res.headers.etag : null}
  }

  async listEntries(query: ListQuery): Promise<Page<EntryView>> {
    return (await this.request<Page<EntryView>>('GET', '/knowledge', {query: {...query}})).body
  }

  async patchEntry(id: string, input: PatchEntryBody, ifMatch?: string): Promise<EntryFull> {
    return (await this.write<EntryFull>(writeRequests.patchEntry(id, input, ifMatch))).body
  }

  async deleteEntry(id: string): Promise<void> {
    await this.request('DELETE', `/knowledge/${encodeURIComponent(id)}`)
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    return (await this.request<SearchResult>('GET', '/search', {query: {...query}, headers: this.recallHeaders()})).body
  }

  async resolve(id: string, input: ResolveBody): Promise<EntryFull> {
    return (await this.write<EntryFull>(writeRequests.resolve(id, input))).body
  }

  /** One page of an entry's comments, oldest first (docs/api.md). */
  async listComments(id: string, query: {limit?: number; cursor?: string} = {}): Promise<Page<Comment>> {
    return (await this.request<Page<Comment>>('GET', `/knowledge/${encodeURIComponent(id)}/comments`, {query})).body
  }

  async comment(id: string, input: CommentBody): Promise<Comment> {
    return (await this.write<Comment>(writeRequests.comment(id, input))).body
  }

  async publish(id: string, input: PublishBody): Promise<EntryFull> {
    return (await this.write<EntryFull>(writeRequests.publish(id, input))).body
  }

  /** What publishing would expose and what redaction would make of it (docs/api.md, "Safe publish"); changes nothing. */
  async publishPreview(id: string, scope?: Scope): Promise<PublishPreview> {
    return (await this.request<PublishPreview>('GET', `/knowledge/${encodeURIComponent(id)}/publish-preview`, {query: {scope}})).body
  }

  async fork(id: string, input: ForkBody): Promise<EntryCreated> {
    return (await this.write<EntryCreated>(writeRequests.fork(id, input))).body
  }

  /** Says the entry still holds (docs/api.md, "Verify"); re-bases the anchors sent and withdraws the caller's own flag. */
  async supersede(id: string, input: SupersedeBody): Promise<EntryFull> {
    return (await this.write<EntryFull>(writeRequests.supersede(id, input))).body
  }

  async merge(id: string, input: MergeBody): Promise<EntryFull> {
    return (await this.write<EntryFull>(writeRequests.merge(id, input))).body
  }

  /** A similar pair of the review queue is not the same knowledge (docs/api.md, "Review queue"). */
  async dismissSimilar(id: string, input: DismissSimilarBody): Promise<SimilarDismissed> {
    return (await this.write<SimilarDismissed>(writeRequests.dismissSimilar(id, input))).body
  }

  async verify(id: string, input: VerifyBody): Promise<EntryFull> {
    return (await this.write<EntryFull>(writeRequests.verify(id, input))).body
  }

  /** Opens (or replaces) the caller's flag on the entry (docs/api.md, "Flags"). */
  async flag(id: string, input: FlagBody): Promise<EntryFull> {
    return (await this.write<EntryFull>(writeRequests.flag(id, input))).body
  }

  /** Withdraws the caller's open flag; an entry without one is answered as it is. */
  async withdrawFlag(id: string): Promise<EntryFull> {
    return (await this.request<EntryFull>('DELETE', entryPath(id, '/flags/mine'))).body
  }

  /** Reports what a checkout found of the entry's anchors (docs/api.md, "Anchors"). */
  async checkAnchors(id: string, input: AnchorCheckBody): Promise<EntryFull> {
    return (await this.write<EntryFull>(writeRequests.checkAnchors(id, input))).body
  }

  async getProject(id: string): Promise<Project> {
    return (await this.request<Project>('GET', `/projects/${encodeURIComponent(id)}`)).body
  }

  /** Changes a project's settings (its maintainers or the owner). */
  async patchProject(id: string, input: ProjectSettingsBody): Promise<Project> {
    return (await this.request<Project>('PATCH', `/projects/${encodeURIComponent(id)}`, {body: input})).body
  }

  /** The knowledge for a prompt, within a budget; recorded (docs/api.md, "Recall"). */
  async recall(input: RecallBody): Promise<RecallResult> {
    return (await this.request<RecallResult>('POST', '/recalls', {body: input})).body
  }

  async listRecalls(query: RecallsQuery): Promise<Page<RecallRecord>> {
    return (await this.request<Page<RecallRecord>>('GET', '/recalls', {query: {...query}})).body
  }

  /** Joins or creates; a JoinPending (202) when a maintainer must approve first (docs/api.md, "Membership"). */
  async joinProject(input: JoinProjectBody): Promise<JoinResult | JoinPending> {
    return (await this.request<JoinResult | JoinPending>('POST', '/projects/join', {body: input})).body
  }

  async listMembers(projectId: string): Promise<Member[]> {
    return (await this.request<Page<Member>>('GET', `${projectPath(projectId)}/members`)).body.items
  }

  async listJoinRequests(projectId: string): Promise<JoinRequest[]> {
    return (await this.request<Page<JoinRequest>>('GET', `${projectPath(projectId)}/requests`)).body.items
  }

  async decideJoinRequest(projectId: string, requestId: string, verb: 'approve' | 'deny'): Promise<JoinRequest> {
    return (await this.request<JoinRequest>('POST', `${projectPath(projectId)}/requests/${encodeURIComponent(requestId)}/${verb}`)).body
  }

  async invite(projectId: string, input: InvitationBody): Promise<Invitation> {
    return (await this.request<Invitation>('POST', `${projectPath(projectId)}/invitations`, {body: input})).body
  }

  async removeMember(projectId: string, principalId: string): Promise<void> {
    await this.request('DELETE', `${projectPath(projectId)}/members/${encodeURIComponent(principalId)}`)
  }

  async setMemberRole(projectId: string, principalId: string, role: ProjectRole): Promise<Member> {
    return (await this.request<Member>('PATCH', `${projectPath(projectId)}/members/${encodeURIComponent(principalId)}`, {body: {role}}))
      .body
  }

  async leaveProject(projectId: string): Promise<void> {
    await this.request('POST', `${projectPath(projectId)}/leave`)
  }

  /** An entry's history, oldest first, a page at a time (docs/api.md, "History"). */
  async history(id: string, cursor?: string | null): Promise<HistoryPage> {
    return (await this.request<HistoryPage>('GET', `/knowledge/${encodeURIComponent(id)}/history`, {query: {cursor, limit: 100}})).body
  }

  /** The review queue (docs/api.md, "Review queue"). */
  async review(query: ReviewQuery): Promise<ReviewPage> {
    return (await this.request<ReviewPage>('GET', '/review', {query: {...query}})).body
  }

  /** Every project of the caller, following cursors. */
  async listProjects(): Promise<Project[]> {
    const all: Project[] = []
    let cursor: string | null = null
    do {
      const page: Page<Project> = (await this.request<Page<Project>>('GET', '/projects', {query: {limit: 100, cursor}})).body
      all.push(...page.items)
      cursor = page.next_cursor
    } while (cursor)
    return all
  }

  async createApiKey(input: CreateApiKeyBody): Promise<ApiKeyRecord> {
    return (await this.request<ApiKeyRecord>('POST', '/api-keys', {body: input})).body
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    return (await this.request<Page<ApiKeyRecord>>('GET', '/api-keys')).body.items
  }

  async revokeApiKey(id: string): Promise<void> {
    await this.request('DELETE', '/api-keys', {body: {id}})
  }

  /** A one-time link that opens the web view signed in as this client's API key (docs/web.md, "Sessions"). */
  async webLink(next?: string): Promise<WebLink> {
    return (await this.request<WebLink>('POST', '/web/links', {body: next ? {next} : {}})).body
  }

  async listGrants(): Promise<Grant[]> {
    return (await this.request<Page<Grant>>('GET', '/oauth/grants')).body.items
  }

  async revokeGrant(id: string): Promise<void> {
    await this.request('DELETE', `/oauth/grants/${encodeURIComponent(id)}`)
  }
}

const fromServer = new WeakSet<KbError>()
const PROBLEM_MEMBERS = new Set(['type', 'title', 'status', 'code', 'detail', 'errors', 'instance'])

/** Did the server report this error (as opposed to the CLI deciding it)? Only those get a generic hint. */
export function isServerError(e: KbError): boolean {
  return fromServer.has(e)
}

/** A problem+json answer (or any error status) as a `KbError` carrying the server's code. */
export function problemToError(status: number, body: unknown, headers: Headers, what: string): KbError {
  const p = (typeof body === 'object' && body !== null ? body : {}) as {code?: unknown; detail?: unknown; title?: unknown; errors?: unknown}
  const code = isErrorCode(p.code) ? p.code : codeForStatus(status)
  let detail =
    typeof p.detail === 'string' && p.detail !== ''
      ? p.detail
      : typeof p.title === 'string'
        ? p.title
        : `${what} failed with HTTP ${status}`
  const errors = Array.isArray(p.errors) ? (p.errors as FieldError[]).filter((e) => e && typeof e.path === 'string') : undefined
  if (errors && errors.length > 0 && !errors.every((e) => detail.includes(e.message)))
    detail += ` (${errors.map((e) => `${e.path}: ${e.message}`).join('; ')})`
  const h: Record<string, string> = {}
  for (const k of ['retry-after', 'www-authenticate', 'etag']) if (typeof headers[k] === 'string') h[k] = headers[k] as string
  // Extension members (RFC 9457, section 3.2) travel on: a sensitive_content problem's findings, for one.
  const extra = Object.fromEntries(Object.entries(p).filter(([k]) => !PROBLEM_MEMBERS.has(k)))
  const err = new KbError(code, detail, {
    ...(errors ? {errors} : {}),
    headers: h,
    ...(Object.keys(extra).length > 0 ? {extra} : {}),
    ...(status !== ERROR_CODES[code].status && status >= 400 ? {status} : {}),
  })
  fromServer.add(err)
  return err
}

function projectPath(id: string): string {
  return `/projects/${encodeURIComponent(id)}`
}
