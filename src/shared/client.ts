/**
 * @module The kb API client: typed calls over a `Transport`. The CLI sends over node:http
 * (`src/cli/client/http-transport.ts`); the daemon's MCP endpoint through the app in process
 * (`server/mcp/inject-transport.ts`). Query building, JSON decoding, the one OAuth refresh and the
 * problem → `KbError` mapping live here once, whatever carries the bytes.
 */
import {codeForStatus, ERROR_CODES, isErrorCode, KbError, type FieldError} from './errors.js'
import {noteShortIdLength, readIdRef} from './short-id.js'
// The operations table is plain data; its request types are the schemas' own, read as types only, so the CLI does not
// load TypeBox to use them.
import {OPERATIONS, operationPath, type BodyOf, type OperationId, type PathParamsOf, type QueryOf, type ResponseOf} from './operations.js'
import type {Detail, EntryCreated, EntryFull, EntryView, Page, Project, ProjectRole, Scope} from './types.js'

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

/** The operations a `WriteRequest` may carry: the entry's creating and changing ones. */
type EntryWrite =
  | 'updateEntry'
  | 'resolveEntry'
  | 'addComment'
  | 'publishEntry'
  | 'forkEntry'
  | 'verifyEntry'
  | 'flagEntry'
  | 'supersedeEntry'
  | 'mergeEntry'
  | 'dismissSimilar'
  | 'checkAnchors'

/** A write to one entry, its method and path from the operations table. */
function entryWrite<Id extends EntryWrite>(op: Id, id: string, body: BodyOf<Id>): WriteRequest {
  return {method: OPERATIONS[op].method, path: operationPath<EntryWrite>(op, {id}), body}
}

export const writeRequests = {
  /** With `refuse`, similar entries answer 409 possible_duplicate instead of a new entry (docs/api.md, "Similar entries on write"). */
  createEntry: (input: BodyOf<'createEntry'>, onSimilar?: 'refuse'): WriteRequest => {
    const path = operationPath('createEntry', {})
    return {method: OPERATIONS.createEntry.method, path: onSimilar ? `${path}?on_similar=${onSimilar}` : path, body: input}
  },
  patchEntry: (id: string, input: BodyOf<'updateEntry'>, ifMatch?: string): WriteRequest => ({
    ...entryWrite('updateEntry', id, input),
    ...(ifMatch ? {ifMatch} : {}),
  }),
  resolve: (id: string, input: BodyOf<'resolveEntry'>): WriteRequest => entryWrite('resolveEntry', id, input),
  comment: (id: string, input: BodyOf<'addComment'>): WriteRequest => entryWrite('addComment', id, input),
  publish: (id: string, input: BodyOf<'publishEntry'>): WriteRequest => entryWrite('publishEntry', id, input),
  fork: (id: string, input: BodyOf<'forkEntry'>): WriteRequest => entryWrite('forkEntry', id, input),
  verify: (id: string, input: BodyOf<'verifyEntry'>): WriteRequest => entryWrite('verifyEntry', id, input),
  flag: (id: string, input: BodyOf<'flagEntry'>): WriteRequest => entryWrite('flagEntry', id, input),
  supersede: (id: string, input: BodyOf<'supersedeEntry'>): WriteRequest => entryWrite('supersedeEntry', id, input),
  merge: (id: string, input: BodyOf<'mergeEntry'>): WriteRequest => entryWrite('mergeEntry', id, input),
  dismissSimilar: (id: string, input: BodyOf<'dismissSimilar'>): WriteRequest => entryWrite('dismissSimilar', id, input),
  checkAnchors: (id: string, input: BodyOf<'checkAnchors'>): WriteRequest => entryWrite('checkAnchors', id, input),
}

/** What a call of one operation sends besides its method and path: path parameters when its path has some. */
type CallInit<Id extends OperationId> = {
  query?: QueryOf<Id>
  body?: BodyOf<Id>
  headers?: Record<string, string>
  timeoutMs?: number
} & (keyof PathParamsOf<Id> extends never ? {params?: undefined} : {params: PathParamsOf<Id>})

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

  /** One operation of the table (operations.ts): its method and path from there, its answer as the table types it. */
  private async call<Id extends OperationId>(op: Id, init: CallInit<Id>): Promise<ApiResponse<ResponseOf<Id>>> {
    const {params, query, ...rest} = init
    const path = operationPath<OperationId>(op, params ?? {})
    return this.request<ResponseOf<Id>>(OPERATIONS[op].method, path, {...rest, ...(query ? {query: query as RequestInit['query']} : {})})
  }

  async health(timeoutMs = 2000): Promise<ResponseOf<'health'>> {
    return (await this.call('health', {timeoutMs})).body
  }

  /**
   * The whole id of the entry a typed reference names (docs/api.md, "Short ids"): a whole id is itself, without a
   * request; a start or an end of one is asked of the server, which answers 404 or 409 `ambiguous_id` (exit 2).
   */
  async entryId(typed: string): Promise<string> {
    const ref = readIdRef(typed)
    if ('id' in ref) return ref.id
    return (await this.call('resolveId', {params: {ref: ref.hex}})).body.id
  }

  async createEntry(input: BodyOf<'createEntry'>, onSimilar?: 'refuse'): Promise<EntryCreated> {
    return (await this.write<ResponseOf<'createEntry'>>(writeRequests.createEntry(input, onSimilar))).body
  }

  /** The headers that mark a read as a recall, when this client serves an agent. */
  private recallHeaders(): Record<string, string> {
    if (!this.recallTag) return {}
    const h: Record<string, string> = {'kb-recall-client': this.recallTag.client}
    if (this.recallTag.session) h['kb-recall-session'] = this.recallTag.session
    return h
  }

  async getEntry(id: string, detail?: Detail): Promise<{entry: EntryView; etag: string | null}> {
    const res = await this.call('getEntry', {params: {id}, query: {detail}, headers: this.recallHeaders()})
    return {entry: res.body, etag: typeof res.headers.etag === 'string' ? res.headers.etag : null}
  }

  async listEntries(query: QueryOf<'listEntries'>): Promise<ResponseOf<'listEntries'>> {
    return (await this.call('listEntries', {query})).body
  }

  async patchEntry(id: string, input: BodyOf<'updateEntry'>, ifMatch?: string): Promise<EntryFull> {
    return (await this.write<ResponseOf<'updateEntry'>>(writeRequests.patchEntry(id, input, ifMatch))).body
  }

  async deleteEntry(id: string): Promise<void> {
    await this.call('deleteEntry', {params: {id}})
  }

  async search(query: QueryOf<'search'>): Promise<ResponseOf<'search'>> {
    return (await this.call('search', {query, headers: this.recallHeaders()})).body
  }

  async resolve(id: string, input: BodyOf<'resolveEntry'>): Promise<EntryFull> {
    return (await this.write<ResponseOf<'resolveEntry'>>(writeRequests.resolve(id, input))).body
  }

  /** One page of an entry's comments, oldest first (docs/api.md). */
  async listComments(id: string, query: QueryOf<'listComments'> = {}): Promise<ResponseOf<'listComments'>> {
    return (await this.call('listComments', {params: {id}, query})).body
  }

  async comment(id: string, input: BodyOf<'addComment'>): Promise<ResponseOf<'addComment'>> {
    return (await this.write<ResponseOf<'addComment'>>(writeRequests.comment(id, input))).body
  }

  async publish(id: string, input: BodyOf<'publishEntry'>): Promise<EntryFull> {
    return (await this.write<ResponseOf<'publishEntry'>>(writeRequests.publish(id, input))).body
  }

  /** What publishing would expose and what redaction would make of it (docs/api.md, "Safe publish"); changes nothing. */
  async publishPreview(id: string, scope?: Scope): Promise<ResponseOf<'previewPublish'>> {
    return (await this.call('previewPublish', {params: {id}, query: {scope}})).body
  }

  async fork(id: string, input: BodyOf<'forkEntry'>): Promise<EntryCreated> {
    return (await this.write<ResponseOf<'forkEntry'>>(writeRequests.fork(id, input))).body
  }

  /** Says the entry still holds (docs/api.md, "Verify"); re-bases the anchors sent and withdraws the caller's own flag. */
  async supersede(id: string, input: BodyOf<'supersedeEntry'>): Promise<EntryFull> {
    return (await this.write<ResponseOf<'supersedeEntry'>>(writeRequests.supersede(id, input))).body
  }

  async merge(id: string, input: BodyOf<'mergeEntry'>): Promise<EntryFull> {
    return (await this.write<ResponseOf<'mergeEntry'>>(writeRequests.merge(id, input))).body
  }

  /** A similar pair of the review queue is not the same knowledge (docs/api.md, "Review queue"). */
  async dismissSimilar(id: string, input: BodyOf<'dismissSimilar'>): Promise<ResponseOf<'dismissSimilar'>> {
    return (await this.write<ResponseOf<'dismissSimilar'>>(writeRequests.dismissSimilar(id, input))).body
  }

  async verify(id: string, input: BodyOf<'verifyEntry'>): Promise<EntryFull> {
    return (await this.write<ResponseOf<'verifyEntry'>>(writeRequests.verify(id, input))).body
  }

  /** Opens (or replaces) the caller's flag on the entry (docs/api.md, "Flags"). */
  async flag(id: string, input: BodyOf<'flagEntry'>): Promise<EntryFull> {
    return (await this.write<ResponseOf<'flagEntry'>>(writeRequests.flag(id, input))).body
  }

  /** Withdraws the caller's open flag; an entry without one is answered as it is. */
  async withdrawFlag(id: string): Promise<EntryFull> {
    return (await this.call('withdrawFlag', {params: {id}})).body
  }

  /** Reports what a checkout found of the entry's anchors (docs/api.md, "Anchors"). */
  async checkAnchors(id: string, input: BodyOf<'checkAnchors'>): Promise<EntryFull> {
    return (await this.write<ResponseOf<'checkAnchors'>>(writeRequests.checkAnchors(id, input))).body
  }

  async getProject(id: string): Promise<Project> {
    return (await this.call('getProject', {params: {id}})).body
  }

  /** Changes a project's settings (its maintainers or the owner). */
  async patchProject(id: string, input: BodyOf<'updateProject'>): Promise<Project> {
    return (await this.call('updateProject', {params: {id}, body: input})).body
  }

  /** The knowledge for a prompt, within a budget; recorded (docs/api.md, "Recall"). */
  async recall(input: BodyOf<'recall'>): Promise<ResponseOf<'recall'>> {
    return (await this.call('recall', {body: input})).body
  }

  async listRecalls(query: QueryOf<'listRecalls'>): Promise<ResponseOf<'listRecalls'>> {
    return (await this.call('listRecalls', {query})).body
  }

  /** Joins or creates; a JoinPending (202) when a maintainer must approve first (docs/api.md, "Membership"). */
  async joinProject(input: BodyOf<'joinProject'>): Promise<ResponseOf<'joinProject'>> {
    return (await this.call('joinProject', {body: input})).body
  }

  async listMembers(projectId: string): Promise<ResponseOf<'listMembers'>['items']> {
    return (await this.call('listMembers', {params: {id: projectId}})).body.items
  }

  async listJoinRequests(projectId: string): Promise<ResponseOf<'listJoinRequests'>['items']> {
    return (await this.call('listJoinRequests', {params: {id: projectId}})).body.items
  }

  async decideJoinRequest(projectId: string, requestId: string, verb: 'approve' | 'deny'): Promise<ResponseOf<'approveJoinRequest'>> {
    const op = verb === 'approve' ? 'approveJoinRequest' : 'denyJoinRequest'
    return (await this.call(op, {params: {id: projectId, request_id: requestId}})).body
  }

  async invite(projectId: string, input: BodyOf<'invite'>): Promise<ResponseOf<'invite'>> {
    return (await this.call('invite', {params: {id: projectId}, body: input})).body
  }

  async removeMember(projectId: string, principalId: string): Promise<void> {
    await this.call('removeMember', {params: {id: projectId, principal_id: principalId}})
  }

  async setMemberRole(projectId: string, principalId: string, role: ProjectRole): Promise<ResponseOf<'setMemberRole'>> {
    return (await this.call('setMemberRole', {params: {id: projectId, principal_id: principalId}, body: {role}})).body
  }

  async leaveProject(projectId: string): Promise<void> {
    await this.call('leaveProject', {params: {id: projectId}})
  }

  /** An entry's history, oldest first, a page at a time (docs/api.md, "History"). */
  async history(id: string, cursor?: string | null): Promise<ResponseOf<'entryHistory'>> {
    return (await this.call('entryHistory', {params: {id}, query: {cursor: cursor ?? undefined, limit: 100}})).body
  }

  /** The review queue (docs/api.md, "Review queue"). */
  async review(query: QueryOf<'reviewQueue'>): Promise<ResponseOf<'reviewQueue'>> {
    return (await this.call('reviewQueue', {query})).body
  }

  /** Every project of the caller, following cursors. */
  async listProjects(): Promise<Project[]> {
    const all: Project[] = []
    let cursor: string | null = null
    do {
      const page: Page<Project> = (await this.call('listProjects', {query: {limit: 100, cursor: cursor ?? undefined}})).body
      all.push(...page.items)
      cursor = page.next_cursor
    } while (cursor)
    return all
  }

  async createApiKey(input: BodyOf<'createApiKey'>): Promise<ResponseOf<'createApiKey'>> {
    return (await this.call('createApiKey', {body: input})).body
  }

  async listApiKeys(): Promise<ResponseOf<'listApiKeys'>['items']> {
    return (await this.call('listApiKeys', {})).body.items
  }

  async revokeApiKey(id: string): Promise<void> {
    await this.call('revokeApiKey', {body: {id}})
  }

  /** A one-time link that opens the web view signed in as this client's API key (docs/web.md, "Sessions"). */
  async webLink(next?: string): Promise<ResponseOf<'createWebLink'>> {
    return (await this.call('createWebLink', {body: next ? {next} : {}})).body
  }

  async listGrants(): Promise<ResponseOf<'listGrants'>['items']> {
    return (await this.call('listGrants', {})).body.items
  }

  async revokeGrant(id: string): Promise<void> {
    await this.call('revokeGrant', {params: {id}})
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
