/**
 * @module The table of the API's operations (docs/api.md), each written once: its method, its path below
 * `API_PATH`, the names of its path, query and body schemas (`request-schemas.ts`) and the type of what it answers.
 * The daemon's routes are declared from it (server/http/operation.ts) and the API client calls it (client.ts), so
 * a path or a shape is never written twice; test/architecture/operations.test.ts checks that the daemon serves
 * exactly this table. Plain data with type-only imports: the CLI loads it at start-up without TypeBox.
 */
import type {Static} from '@sinclair/typebox'
import type {HistoryPage, ReviewPage, SimilarDismissed} from './curation-schemas.js'
import type {IdResolved} from './id-schemas.js'
import type {Invitation, JoinPending, JoinRequest, Member} from './membership-schemas.js'
import type {RecallRecord, RecallResult} from './recall-schemas.js'
import type {RequestSchemas} from './request-schemas.js'
import type {ImportReport} from './transfer-schemas.js'
import type {
  ApiKeyRecord,
  Comment,
  EntryCreated,
  EntryFull,
  EntryView,
  Grant,
  Health,
  JoinResult,
  Page,
  Project,
  PublishPreview,
  SearchResult,
  WebLink,
} from './types.js'

type SchemaName = keyof RequestSchemas

/** What an operation answers: a type only (every entry shares one empty marker), so the table costs nothing to load. */
export interface Answer<T> {
  readonly type?: T
}
const MARK = Object.freeze({})
const answers = <T>(): Answer<T> => MARK as Answer<T>

interface OperationDef {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** Below `API_PATH`, fastify style: `:name` is a path parameter. */
  path: string
  params?: SchemaName
  query?: SchemaName
  body?: SchemaName
  response: Answer<unknown>
}

/** The answer of an operation that answers 204 (no content). */
type NoContent = null
/** `GET /export`'s JSON Lines and `GET /backup`'s file: a stream, not JSON. */
type Stream = unknown

export const OPERATIONS = {
  // ---- knowledge entries (docs/api.md, "Knowledge entries") ----
  createEntry: {method: 'POST', path: '/knowledge', query: 'CreateEntryQuery', body: 'CreateEntryBody', response: answers<EntryCreated>()},
  listEntries: {method: 'GET', path: '/knowledge', query: 'ListQuery', response: answers<Page<EntryView>>()},
  getEntry: {method: 'GET', path: '/knowledge/:id', params: 'IdParams', query: 'GetEntryQuery', response: answers<EntryView>()},
  updateEntry: {method: 'PATCH', path: '/knowledge/:id', params: 'IdParams', body: 'PatchEntryBody', response: answers<EntryFull>()},
  deleteEntry: {method: 'DELETE', path: '/knowledge/:id', params: 'IdParams', response: answers<NoContent>()},
  resolveEntry: {method: 'POST', path: '/knowledge/:id/resolve', params: 'IdParams', body: 'ResolveBody', response: answers<EntryFull>()},
  listComments: {
    method: 'GET',
    path: '/knowledge/:id/comments',
    params: 'IdParams',
    query: 'CommentsQuery',
    response: answers<Page<Comment>>(),
  },
  addComment: {method: 'POST', path: '/knowledge/:id/comments', params: 'IdParams', body: 'CommentBody', response: answers<Comment>()},
  previewPublish: {
    method: 'GET',
    path: '/knowledge/:id/publish-preview',
    params: 'IdParams',
    query: 'PublishPreviewQuery',
    response: answers<PublishPreview>(),
  },
  publishEntry: {method: 'POST', path: '/knowledge/:id/publish', params: 'IdParams', body: 'PublishBody', response: answers<EntryFull>()},
  forkEntry: {
    method: 'POST',
    path: '/knowledge/:id/fork',
    params: 'IdParams',
    query: 'CreateEntryQuery',
    body: 'ForkBody',
    response: answers<EntryCreated>(),
  },
  // ---- trust (docs/api.md, "Anchors, freshness, verify and flags") ----
  verifyEntry: {method: 'POST', path: '/knowledge/:id/verify', params: 'IdParams', body: 'VerifyBody', response: answers<EntryFull>()},
  flagEntry: {method: 'POST', path: '/knowledge/:id/flags', params: 'IdParams', body: 'FlagBody', response: answers<EntryFull>()},
  withdrawFlag: {method: 'DELETE', path: '/knowledge/:id/flags/mine', params: 'IdParams', response: answers<EntryFull>()},
  checkAnchors: {
    method: 'POST',
    path: '/knowledge/:id/anchors/check',
    params: 'IdParams',
    body: 'AnchorCheckBody',
    response: answers<EntryFull>(),
  },
  // ---- curation (docs/api.md, "Curation", "History, usage and the review queue") ----
  supersedeEntry: {
    method: 'POST',
    path: '/knowledge/:id/supersede',
    params: 'IdParams',
    body: 'SupersedeBody',
    response: answers<EntryFull>(),
  },
  mergeEntry: {method: 'POST', path: '/knowledge/:id/merge', params: 'IdParams', body: 'MergeBody', response: answers<EntryFull>()},
  dismissSimilar: {
    method: 'POST',
    path: '/knowledge/:id/similar/dismiss',
    params: 'IdParams',
    body: 'DismissSimilarBody',
    response: answers<SimilarDismissed>(),
  },
  entryHistory: {
    method: 'GET',
    path: '/knowledge/:id/history',
    params: 'IdParams',
    query: 'HistoryQuery',
    response: answers<HistoryPage>(),
  },
  reviewQueue: {method: 'GET', path: '/review', query: 'ReviewQuery', response: answers<ReviewPage>()},
  // ---- short ids, search, recall ----
  resolveId: {method: 'GET', path: '/ids/:ref', params: 'IdRefParams', response: answers<IdResolved>()},
  search: {method: 'GET', path: '/search', query: 'SearchQuery', response: answers<SearchResult>()},
  recall: {method: 'POST', path: '/recalls', body: 'RecallBody', response: answers<RecallResult>()},
  listRecalls: {method: 'GET', path: '/recalls', query: 'RecallsQuery', response: answers<Page<RecallRecord>>()},
  // ---- projects and membership (docs/api.md, "Projects", "Membership") ----
  joinProject: {method: 'POST', path: '/projects/join', body: 'JoinProjectBody', response: answers<JoinResult | JoinPending>()},
  listProjects: {method: 'GET', path: '/projects', query: 'ProjectsQuery', response: answers<Page<Project>>()},
  getProject: {method: 'GET', path: '/projects/:id', params: 'IdParams', response: answers<Project>()},
  updateProject: {method: 'PATCH', path: '/projects/:id', params: 'IdParams', body: 'ProjectSettingsBody', response: answers<Project>()},
  approveJoinRequest: {
    method: 'POST',
    path: '/projects/:id/requests/:request_id/approve',
    params: 'RequestParams',
    body: 'EmptyBody',
    response: answers<JoinRequest>(),
  },
  denyJoinRequest: {
    method: 'POST',
    path: '/projects/:id/requests/:request_id/deny',
    params: 'RequestParams',
    body: 'EmptyBody',
    response: answers<JoinRequest>(),
  },
  listMembers: {method: 'GET', path: '/projects/:id/members', params: 'IdParams', response: answers<Page<Member>>()},
  listJoinRequests: {method: 'GET', path: '/projects/:id/requests', params: 'IdParams', response: answers<Page<JoinRequest>>()},
  invite: {method: 'POST', path: '/projects/:id/invitations', params: 'IdParams', body: 'InvitationBody', response: answers<Invitation>()},
  removeMember: {method: 'DELETE', path: '/projects/:id/members/:principal_id', params: 'MemberParams', response: answers<NoContent>()},
  setMemberRole: {
    method: 'PATCH',
    path: '/projects/:id/members/:principal_id',
    params: 'MemberParams',
    body: 'RoleBody',
    response: answers<Member>(),
  },
  leaveProject: {method: 'POST', path: '/projects/:id/leave', params: 'IdParams', body: 'EmptyBody', response: answers<NoContent>()},
  // ---- credentials: API keys, OAuth grants, web links ----
  createApiKey: {method: 'POST', path: '/api-keys', body: 'CreateApiKeyBody', response: answers<ApiKeyRecord>()},
  listApiKeys: {method: 'GET', path: '/api-keys', response: answers<Page<ApiKeyRecord>>()},
  revokeApiKey: {method: 'DELETE', path: '/api-keys', body: 'RevokeApiKeyBody', response: answers<NoContent>()},
  listGrants: {method: 'GET', path: '/oauth/grants', response: answers<Page<Grant>>()},
  revokeGrant: {method: 'DELETE', path: '/oauth/grants/:id', params: 'GrantIdParams', response: answers<NoContent>()},
  createWebLink: {method: 'POST', path: '/web/links', body: 'WebLinkBody', response: answers<WebLink>()},
  // ---- the daemon itself, export, import and backup ----
  health: {method: 'GET', path: '/health', response: answers<Health>()},
  openapi: {method: 'GET', path: '/openapi.json', response: answers<Record<string, unknown>>()},
  exportAll: {method: 'GET', path: '/export', query: 'ExportQuery', response: answers<Stream>()},
  importAll: {method: 'POST', path: '/import', query: 'ImportQuery', response: answers<ImportReport>()},
  backupStore: {method: 'GET', path: '/backup', response: answers<Stream>()},
} as const satisfies Record<string, OperationDef>

type Operations = typeof OPERATIONS
export type OperationId = keyof Operations

/** The validated value of a part of a request, from the schema the table names for it (undefined: none). */
type Part<Id extends OperationId, K extends 'params' | 'query' | 'body'> = Operations[Id] extends {[P in K]: infer N extends SchemaName}
  ? Static<RequestSchemas[N]>
  : undefined
export type ParamsOf<Id extends OperationId> = Part<Id, 'params'>
export type QueryOf<Id extends OperationId> = Part<Id, 'query'>
export type BodyOf<Id extends OperationId> = Part<Id, 'body'>
export type ResponseOf<Id extends OperationId> = Operations[Id]['response'] extends Answer<infer T> ? T : never

/** The `:name` parameters of a path template, as the text that fills them. */
type TemplateParams<P extends string> = P extends `${string}:${infer K}/${infer Rest}`
  ? Record<K, string> & TemplateParams<`/${Rest}`>
  : P extends `${string}:${infer K}`
    ? Record<K, string>
    : Record<never, never>
export type PathParamsOf<Id extends OperationId> = TemplateParams<Operations[Id]['path']>

/** An operation's path below `API_PATH` with its parameters filled in (each percent-encoded). */
export function operationPath<Id extends OperationId>(id: Id, params: PathParamsOf<Id>): string {
  const values = params as Record<string, string>
  return OPERATIONS[id].path.replace(/:([a-z_]+)/g, (_, name: string) => encodeURIComponent(values[name] ?? ''))
}
