/**
 * @module The Store interface every driver implements (SQLite now, PostgreSQL later), and its records.
 * Asynchronous on purpose: a networked driver cannot be synchronous. Visibility is part of the queries
 * (a `Viewer`), so a driver filters in its own query language and never returns what the caller may not see.
 */
import type {AuthorRef, Branch, Comment, CommentType, Resolution, Scope, Status, ThoughtStep} from '../../src/shared/types.js'

export interface PrincipalRecord {
  id: string
  name: string
  role: 'owner' | 'member'
  created_at: string
}

export interface ApiKeyRow {
  id: string
  principal_id: string
  name: string
  prefix: string
  hash: string
  project_id: string | null
  created_at: string
  expires_at: string | null
  last_used_at: string | null
  revoked_at: string | null
}

export interface ProjectRow {
  id: string
  name: string
  remote: string
  created_by: string
  created_at: string
}

export interface EntryRow {
  id: string
  title: string
  body: string
  /** The summary form of the body (docs/api.md, "Summary form"), computed whenever title or body change. */
  summary: string
  /** The title as shown at `summary` level: the title itself unless it alone would break the budget. */
  summary_title: string
  scope: Scope
  project_id: string | null
  tags: string[]
  url: string | null
  status: Status
  resolution: Resolution | null
  thought_chain: ThoughtStep[]
  forked_from: string | null
  author: AuthorRef
  created_at: string
  updated_at: string
  version: number
  comment_count: number
}

/** The fields an update may change. */
export type EntryChanges = Partial<Pick<EntryRow, 'title' | 'body' | 'summary' | 'summary_title' | 'scope' | 'project_id' | 'tags' | 'url' | 'status' | 'resolution' | 'thought_chain'>>

export interface CommentRow {
  id: string
  entry_id: string
  body: string
  type: CommentType
  author_id: string
  created_at: string
}

/** Who is asking: reads return only what this principal may see (docs/api.md, "Visibility and permissions"). */
export interface Viewer {
  principalId: string
}

export interface EntryFilter {
  scope?: Scope
  projectId?: string
  status?: Status
  tag?: string
  authorId?: string
}

export interface ListPage {
  limit: number
  /** Keyset position: entries strictly after this one in (updated_at desc, id desc) order. */
  after?: {updated_at: string; id: string}
}

export interface SearchOptions {
  /** The query's terms (search-terms.ts `queryTerms`: words, phrases of a code token's parts, a prefix being typed), lower-cased and accent-free; the driver stems and matches them. */
  terms: string[]
  limit: number
  explain: boolean
}

export interface SearchHit {
  entry: EntryRow
  score: number
  matched?: {fields: string[]; terms: string[]}
  snippet?: string
}

export interface SearchOutcome {
  hits: SearchHit[]
  total: number
}

export interface UpdateOptions {
  at: string
  expectedVersion?: number
  /** New bodies for comments of the entry (redaction), in the same transaction. */
  commentBodies?: Array<{id: string; body: string}>
  /** A comment added in the same transaction (the record of an acknowledgement); it counts in comment_count. */
  comment?: CommentRow
}

export type UpdateOutcome = {ok: true; entry: EntryRow} | {ok: false; reason: 'missing' | 'stale'; entry?: EntryRow}

export interface Store {
  readonly driver: string
  close(): Promise<void>

  countPrincipals(): Promise<number>
  insertPrincipal(principal: PrincipalRecord): Promise<void>
  getPrincipal(id: string): Promise<PrincipalRecord | null>
  getPrincipalByName(name: string): Promise<PrincipalRecord | null>

  insertApiKey(key: ApiKeyRow): Promise<void>
  findApiKeyByHash(hash: string): Promise<ApiKeyRow | null>
  listApiKeys(principalId: string): Promise<ApiKeyRow[]>
  /** Marks the key revoked if it belongs to the principal and is live; false otherwise. */
  revokeApiKey(id: string, principalId: string, at: string): Promise<boolean>
  touchApiKey(id: string, at: string): Promise<void>

  getProject(id: string): Promise<ProjectRow | null>
  getProjectByRemote(remote: string): Promise<ProjectRow | null>
  /** Creates the project with its creator as maintainer, or returns the one that already has the remote. */
  createProject(project: ProjectRow): Promise<{project: ProjectRow; created: boolean}>
  /** Adds a membership if there is none; never downgrades a maintainer. */
  addMember(projectId: string, principalId: string, role: 'maintainer' | 'member', at: string): Promise<void>
  getMemberRole(projectId: string, principalId: string): Promise<'maintainer' | 'member' | null>
  listProjects(principalId: string, page: {limit: number; after?: string}): Promise<Array<ProjectRow & {role: 'maintainer' | 'member'}>>

  /** Inserts the entry, with `comments` (an acknowledgement record: docs/api.md, "Safe publish") in the same transaction. */
  insertEntry(entry: EntryRow, comments?: CommentRow[]): Promise<void>
  getEntry(id: string): Promise<EntryRow | null>
  /**
   * Applies the changes, sets `updated_at` and bumps `version`, atomically. With `expectedVersion`, the
   * update happens only if the stored version still equals it (optimistic concurrency).
   */
  updateEntry(id: string, changes: EntryChanges, options: UpdateOptions): Promise<UpdateOutcome>
  deleteEntry(id: string): Promise<boolean>
  listEntries(viewer: Viewer, filter: EntryFilter, page: ListPage): Promise<EntryRow[]>
  searchEntries(viewer: Viewer, filter: EntryFilter, options: SearchOptions): Promise<SearchOutcome>
  listBranches(parentId: string, viewer: Viewer): Promise<Branch[]>

  /** Adds the comment and bumps the entry's version and `updated_at` in one transaction; null if the entry is gone. */
  addComment(comment: CommentRow): Promise<{comment: Comment; entry: EntryRow} | null>
  listComments(entryId: string): Promise<Comment[]>

  /** The OAuth 2.1 authorization server's records (server/oauth), grouped so a driver implements them apart. */
  readonly oauth: OAuthStore

  /** Export, import and online backup (server/services/transfer.ts), grouped so a driver implements them apart. */
  readonly transfer: TransferStore
}

// ---- export, import, backup ----

/** A project as exported: its creator and (for the owner's export) its members by id and name. */
export interface ProjectExport {
  id: string
  name: string
  remote: string
  created_at: string
  created_by: AuthorRef
  members?: Array<AuthorRef & {role: 'maintainer' | 'member'}>
}

/** An entry as exported and imported: every stored field but the derived summary, with its comments. */
export type EntryExport = Omit<EntryRow, 'summary' | 'summary_title' | 'comment_count'> & {comments: Comment[]}

export interface ExportFilter {
  scope?: Scope
  /** Only this project (its line and its entries). */
  projectId?: string
}

/** One validated line of an import, with its line number for the report. */
export type ImportRecord =
  | {line: number; kind: 'project'; project: ProjectExport}
  | {line: number; kind: 'entry'; entry: EntryExport & {summary: string; summary_title: string}}

export interface ImportOptions {
  onConflict: 'skip' | 'overwrite'
  dryRun: boolean
  /** Who imports: only the owner may create principals and import what other principals wrote. */
  importer: {id: string; name: string; owner: boolean}
  at: string
}

export interface ImportOutcome {
  created: number
  updated: number
  skipped: number
  principals_created: number
  rejected: Array<{line: number; reason: string}>
}

/** A consistent copy of the whole store in a file of its own; `release` deletes it. */
export interface StoreSnapshot {
  path: string
  bytes: number
  /** What the file is, e.g. `application/vnd.sqlite3`. */
  contentType: string
  release(): Promise<void>
}

export interface TransferStore {
  /** Projects visible to the viewer (null: every project, for the owner), in id order, `limit` after `after`. */
  exportProjects(viewer: Viewer | null, filter: ExportFilter, page: {limit: number; after?: string}): Promise<ProjectExport[]>
  /**
   * Entries visible to the viewer (null: all, private ones included, for the owner's backup), in the
   * order they were stored, `limit` after the opaque position `after`; each with its comments.
   */
  exportEntries(viewer: Viewer | null, filter: ExportFilter, page: {limit: number; after?: number}): Promise<{entries: EntryExport[]; next?: number}>
  /**
   * Applies every record in one transaction, in order, or none: any rejected record rolls all back
   * (the outcome then lists every rejection found). A dry run applies and always rolls back, so its
   * counts are exact. The records are read synchronously inside the transaction.
   */
  applyImport(records: Iterable<ImportRecord>, options: ImportOptions): Promise<ImportOutcome>
  /** Takes a consistent copy of the live store while it keeps serving (SQLite's online backup). */
  snapshot(): Promise<StoreSnapshot>
}

// ---- OAuth 2.1 records ----

/** The registration fields kb keeps for a client (RFC 7591), echoed back exactly at registration. */
export interface OAuthClientMetadata {
  redirect_uris: string[]
  token_endpoint_auth_method: 'none' | 'client_secret_basic' | 'client_secret_post'
  grant_types: string[]
  response_types: string[]
  client_name?: string
  client_uri?: string
  logo_uri?: string
  scope?: string
  contacts?: string[]
  tos_uri?: string
  policy_uri?: string
  software_id?: string
  software_version?: string
}

export interface OAuthClientRow {
  id: string
  /** SHA-256 of the client secret; null for a public client. */
  secret_hash: string | null
  metadata: OAuthClientMetadata
  created_at: string
  /** Set whenever the client obtains tokens; idle clients are purged eventually. */
  last_used_at: string | null
}

/** An authorization request waiting on the consent page; its CSRF token is stored hashed. */
export interface OAuthRequestRow {
  id: string
  csrf_hash: string
  client_id: string
  redirect_uri: string
  /** Whether the request named its redirect_uri (then the token request must repeat it). */
  redirect_uri_given: boolean
  code_challenge: string
  resource: string
  scope: string | null
  state: string | null
  /** Failed sign-in attempts on the consent page. */
  attempts: number
  created_at: string
  expires_at: string
}

/** An authorization code, stored by hash; `grant_id` ties it to every token issued from it. */
export interface OAuthCodeRow {
  hash: string
  grant_id: string
  client_id: string
  principal_id: string
  /** The project binding of the API key that approved, carried over to the tokens. */
  project_id: string | null
  redirect_uri: string
  redirect_uri_given: boolean
  code_challenge: string
  resource: string
  scope: string | null
  created_at: string
  expires_at: string
  used_at: string | null
}

export interface OAuthTokenRow {
  hash: string
  id: string
  kind: 'access' | 'refresh'
  /** The grant (one approval) this token descends from; reuse of a code or refresh token revokes all of it. */
  grant_id: string
  client_id: string
  principal_id: string
  project_id: string | null
  /** The audience (RFC 8707) the token was issued for. */
  resource: string
  scope: string | null
  created_at: string
  expires_at: string
  /** For refresh tokens: when it was rotated (used). */
  used_at: string | null
  revoked_at: string | null
}

/** Cut-off times (RFC 3339) for `purgeExpired`. */
export interface OAuthPurgeCutoffs {
  /** Tokens and pending requests that expired before this go. */
  now: string
  /** Codes that expired before this go (kept a while after expiry so a late replay still revokes its grant). */
  codes: string
  /** Clients registered before this that never obtained a token go. */
  unusedClients: string
  /** Clients last used before this and holding no token go. */
  idleClients: string
}

export interface OAuthStore {
  insertClient(client: OAuthClientRow): Promise<void>
  getClient(id: string): Promise<OAuthClientRow | null>
  touchClient(id: string, at: string): Promise<void>

  insertRequest(request: OAuthRequestRow): Promise<void>
  getRequest(id: string): Promise<OAuthRequestRow | null>
  /** Counts one failed sign-in on a pending request; returns the attempts so far. */
  addRequestAttempt(id: string): Promise<number>
  /** Deletes the pending request; true if this call removed it (so a request completes once). */
  deleteRequest(id: string): Promise<boolean>

  insertCode(code: OAuthCodeRow): Promise<void>
  findCode(hash: string): Promise<OAuthCodeRow | null>
  /** Atomically marks the code used and stores the tokens issued for it; false (nothing stored) if it was already used. */
  exchangeCode(hash: string, at: string, tokens: OAuthTokenRow[]): Promise<boolean>

  findToken(hash: string): Promise<OAuthTokenRow | null>
  /** Atomically marks a live refresh token used and stores its replacements; false if it was used or revoked already. */
  rotateRefreshToken(hash: string, at: string, tokens: OAuthTokenRow[]): Promise<boolean>
  /** Revokes every live token of a grant; returns how many. */
  revokeGrant(grantId: string, at: string): Promise<number>
  /** Revokes one token; false if it was unknown or already revoked. */
  revokeToken(hash: string, at: string): Promise<boolean>

  /** Deletes expired codes, tokens and requests and long-idle clients; returns how many rows went. */
  purgeExpired(cutoffs: OAuthPurgeCutoffs): Promise<number>
}
