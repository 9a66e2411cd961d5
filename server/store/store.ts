/**
 * @module The Store interface every driver implements (SQLite, PostgreSQL), and its records:
 * principals, API keys, projects, entries, search and comments here; the OAuth and transfer groups it
 * composes have files of their own (oauth-store.ts, transfer-store.ts). Asynchronous on purpose: a
 * networked driver cannot be synchronous. Visibility is part of the queries (a `Viewer`), so a driver
 * filters in its own query language and never returns what the caller may not see.
 */
import type {
  Anchor,
  AuthorRef,
  Branch,
  Comment,
  CommentType,
  FlagCounts,
  FlagReason,
  FreshnessState,
  ProjectRole,
  Resolution,
  Scope,
  Status,
  ThoughtStep,
} from '../../src/shared/types.js'
import type {IdStore} from './short-ids.js'
import type {HistoryRow, HistoryStore} from './history-store.js'
import type {IdempotencyStore} from './idempotency.js'
import type {MembershipStore} from './membership-store.js'
import type {OAuthStore} from './oauth-store.js'
import type {WebSessionStore} from './web-session-store.js'
import type {RecallStore} from './recall-store.js'
import type {TransferStore} from './transfer-store.js'

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
  /** Entries not verified (nor edited) for longer are stale as `unverified`; 0 = never (docs/api.md, "Projects"). */
  verify_after_days: number
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
  /** The code the entry is about, with what the last check found (docs/api.md, "Anchors"). */
  anchors: Anchor[]
  /** Open flags by reason, kept beside the entry so ranking and freshness read one row. */
  flags: FlagCounts
  /** When the newest open flag of a stale-making reason (stale, incorrect, obsolete) was raised; null when none is open. */
  flagged_at: string | null
  verified_at: string | null
  verified_by: AuthorRef | null
  /** The latest verification of each distinct principal (newest first, at most VERIFICATIONS_KEPT): confidence weighs them. */
  verifications: Array<{principal_id: string; at: string}>
  /** `correction` comments since the last verification or edit: a soft signal in confidence (docs/search.md). */
  corrections: number
  /** The entry that replaced this one (docs/api.md, "Supersede"); null while it stands. */
  superseded_by: string | null
  /** Times returned at standard or full, added in batches (docs/api.md, "Usage"); not content: `version` stays. */
  retrieved: number
  last_retrieved_at: string | null
}

/** The fields an update may change. */
export type EntryChanges = Partial<
  Pick<
    EntryRow,
    | 'title'
    | 'body'
    | 'summary'
    | 'summary_title'
    | 'scope'
    | 'project_id'
    | 'tags'
    | 'url'
    | 'status'
    | 'resolution'
    | 'thought_chain'
    | 'anchors'
    | 'superseded_by'
  >
>

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
  /** Only fresh or only stale entries at `now` (docs/search.md, "Freshness and confidence"), decided in the driver's SQL. */
  freshness?: {state: FreshnessState; now: string}
  /** Superseded entries too (`include=superseded`); without it they are left out (docs/api.md, "Supersede"). */
  includeSuperseded?: boolean
}

export interface ListPage {
  limit: number
  /** Keyset position: entries strictly after this one in (updated_at desc, id desc) order. */
  after?: {updated_at: string; id: string}
}

export interface SearchOptions {
  /** The query as the caller wrote it; the search engine (server/search/) reads it with the index's tokenizer. */
  query: string
  limit: number
  explain: boolean
  /**
   * The confidence of each candidate (docs/search.md, "Freshness and confidence"), multiplied into its relevance
   * before the best `limit` are cut; in the order given.
   */
  weigh?: (entries: EntryRow[]) => Promise<number[]>
  /**
   * For a lookup by an entry's own words (the similar-entries check, docs/search.md "Similar entries"): no typo
   * correction (a word the store lacks is no misspelling there) and only `limit` candidates re-ranked.
   */
  lookup?: boolean
}

export interface SearchHit {
  entry: EntryRow
  score: number
  /** With `weigh`: the relevance before the confidence factor, and that factor. */
  factors?: {relevance: number; confidence: number}
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
  /** Comments added in the same transaction (the records of an acknowledgement); they count in comment_count. */
  comments?: CommentRow[]
  /** An edit of the content by its author: every open flag closes and `corrections` restarts (docs/api.md, "Flags"). */
  closeFlags?: boolean
  /** The history records of this change (docs/api.md, "History"), written in the same transaction. */
  history?: HistoryRow[]
}

export type UpdateOutcome = {ok: true; entry: EntryRow} | {ok: false; reason: 'missing' | 'stale'; entry?: EntryRow}

/** Thrown inside a driver's transaction to undo the steps of `updateEntries` before a failed one. */
export class StepFailed extends Error {
  constructor(readonly outcome: Extract<UpdatesOutcome, {ok: false}>) {
    super(`update of ${outcome.id} failed: ${outcome.reason}`)
  }
}

/** One update of `Store.updateEntries`. */
export interface UpdateStep {
  id: string
  changes: EntryChanges
  options: UpdateOptions
}

/** All the steps applied (the entries after them, in order), or none: the first that failed, by id. */
export type UpdatesOutcome = {ok: true; entries: EntryRow[]} | {ok: false; reason: 'missing' | 'stale'; id: string}

export interface Store {
  /** Which driver this is (`sqlite`, `postgres`), as `GET /health` reports it. */
  readonly driver: string
  close(): Promise<void>
  /** Whether the store answers a trivial read now, within a couple of seconds. */
  answers(): Promise<boolean>

  countPrincipals(): Promise<number>
  insertPrincipal(principal: PrincipalRecord): Promise<void>
  /**
   * Creates the owner principal with its first key if the store has no principal yet, atomically: of several
   * daemons starting on one empty database, exactly one creates it. False (nothing written) when a principal exists.
   */
  bootstrapOwner(owner: PrincipalRecord, key: ApiKeyRow): Promise<boolean>
  /** A secret of this store by name (32 random bytes, hex), made on first use; the same for every daemon on it. */
  serverSecret(name: string): Promise<string>
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
  /** Changes a project's settings; null if there is no such project. */
  updateProject(id: string, settings: ProjectSettings): Promise<ProjectRow | null>
  /** Adds a membership if there is none; never downgrades a maintainer. */
  addMember(projectId: string, principalId: string, role: ProjectRole, at: string): Promise<void>
  getMemberRole(projectId: string, principalId: string): Promise<ProjectRole | null>
  listProjects(principalId: string, page: {limit: number; after?: string}): Promise<Array<ProjectRow & {role: ProjectRole}>>

  /** Inserts the entry, with `comments` (an acknowledgement record: docs/api.md, "Safe publish") in the same transaction. */
  insertEntry(entry: EntryRow, comments?: CommentRow[], history?: HistoryRow[]): Promise<void>
  getEntry(id: string): Promise<EntryRow | null>
  /**
   * Applies the changes, sets `updated_at` and bumps `version`, atomically. With `expectedVersion`, the
   * update happens only if the stored version still equals it (optimistic concurrency).
   */
  updateEntry(id: string, changes: EntryChanges, options: UpdateOptions): Promise<UpdateOutcome>
  /**
   * Several `updateEntry` steps in one transaction, in order (a merge: docs/api.md, "Merge"): a step whose entry is
   * gone or whose `expectedVersion` no longer holds undoes the steps before it, and nothing is written.
   */
  updateEntries(steps: UpdateStep[]): Promise<UpdatesOutcome>
  deleteEntry(id: string): Promise<boolean>
  listEntries(viewer: Viewer, filter: EntryFilter, page: ListPage): Promise<EntryRow[]>
  searchEntries(viewer: Viewer, filter: EntryFilter, options: SearchOptions): Promise<SearchOutcome>
  listBranches(parentId: string, viewer: Viewer): Promise<Branch[]>

  /**
   * A trust action on an entry (verify, flag, withdraw, anchor check), in one transaction: `decide` sees the row as
   * it is inside it and says what changes. Neither `version` nor `updated_at` moves (not a content edit). Null if
   * the entry is gone; `replaced` tells whether the principal of `flag` or `withdraw` had an open flag before.
   */
  updateTrust(id: string, decide: (e: EntryRow) => TrustChange): Promise<{entry: EntryRow; replaced: boolean} | null>
  /** The open flags of an entry, oldest first (export). */
  listFlags(entryId: string): Promise<FlagRow[]>

  /** Adds the comment and bumps the entry's version and `updated_at` in one transaction; null if the entry is gone. */
  addComment(comment: CommentRow, history?: HistoryRow[]): Promise<{comment: Comment; entry: EntryRow} | null>
  /** An entry's comments in the order written (created_at, then writing order): `limit` after `after`, or with `newest` the last `limit`. */
  listComments(entryId: string, page: CommentPage): Promise<Comment[]>

  /** The OAuth 2.1 authorization server's records (server/oauth), grouped so a driver implements them apart. */
  readonly oauth: OAuthStore

  /** Export, import and online backup (server/services/transfer/), grouped so a driver implements them apart. */
  readonly transfer: TransferStore

  /** Idempotency-Key records (server/store/idempotency.ts), an interface of their own. */
  readonly idempotency: IdempotencyStore

  /** The record of recalls (docs/api.md, "Recall"), an interface of its own. */
  readonly recalls: RecallStore
  /** The web view's sessions and sign-in links (docs/web.md), an interface of its own. */
  readonly web: WebSessionStore

  /** Project members, join requests and invitations (docs/api.md, "Membership"), an interface of its own. */
  readonly members: MembershipStore
  /** Entries' history, usage counts and the review queue (docs/api.md, "History, usage and the review queue"). */
  readonly history: HistoryStore
  /** Short ids (docs/api.md, "Short ids"): their length, and the entries a typed one names. */
  readonly ids: IdStore
}

export interface ProjectSettings {
  verify_after_days?: number
}

/** An open flag (docs/api.md, "Flags"): one per principal per entry. */
export interface FlagRow {
  entry_id: string
  principal_id: string
  reason: FlagReason
  note: string | null
  duplicate_of: string | null
  created_at: string
}

/** What a trust action changes (Store.updateTrust). */
export interface TrustChange {
  anchors?: Anchor[]
  /** A verification: verified_at/by set, recorded in `verifications`, `corrections` back to 0. */
  verified?: {by: AuthorRef; at: string}
  /** Opens the principal's flag, or replaces the one open. */
  flag?: FlagRow
  /** Withdraws this principal's open flag, if any. */
  withdraw?: string
  /** The history records of this action, written in the same transaction. */
  history?: HistoryRow[]
}

/** A position among an entry's comments: the last one already seen. */
interface CommentPosition {
  created_at: string
  id: string
}

export interface CommentPage {
  limit: number
  after?: CommentPosition
  newest?: boolean
}
