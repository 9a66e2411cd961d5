/**
 * @module The resources of the kb HTTP API v1 as they travel over the wire (docs/api.md).
 * Types only: importing this module costs nothing at run time.
 */
import type {COMMENT_TYPES, DETAILS, PROJECT_ROLES, SCOPES, STATUSES, THOUGHT_KINDS} from './contract.js'

export type Scope = (typeof SCOPES)[number]
export type Status = (typeof STATUSES)[number]
export type Detail = (typeof DETAILS)[number]
export type CommentType = (typeof COMMENT_TYPES)[number]
export type ThoughtKind = (typeof THOUGHT_KINDS)[number]
export type ProjectRole = (typeof PROJECT_ROLES)[number]

export interface AuthorRef {
  id: string
  name: string
}

export interface ThoughtStep {
  step: number
  thought: string
  kind: ThoughtKind
}

export interface Comment {
  id: string
  body: string
  type: CommentType
  author: AuthorRef
  created_at: string
}

export interface Resolution {
  note: string | null
  url: string | null
  resolved_by: AuthorRef
  resolved_at: string
}

export interface Branch {
  id: string
  title: string
  scope: Scope
  author: AuthorRef
  created_at: string
}

export interface EntrySummary {
  id: string
  title: string
  body: string
  status: Status
  score?: number
}

export interface EntryStandard extends EntrySummary {
  tags: string[]
  scope: Scope
  url: string | null
  project_id: string | null
  author: AuthorRef
  forked_from: string | null
  created_at: string
  updated_at: string
  version: number
  comment_count: number
}

export interface EntryFull extends EntryStandard {
  /** The newest comments, at most `COMMENTS_IN_FULL`, oldest first. */
  comments: Comment[]
  /** Whether older comments exist than those in `comments` (`GET /knowledge/:id/comments` pages them all). */
  comments_truncated: boolean
  thought_chain: ThoughtStep[]
  branches: Branch[]
  resolution: Resolution | null
}

export type EntryView = EntrySummary | EntryStandard | EntryFull

export interface Page<T> {
  items: T[]
  next_cursor: string | null
}

export interface SearchHitExtras {
  matched?: {fields: string[]; terms: string[]}
  snippet?: string
}

export interface SearchResult extends Page<EntryView & SearchHitExtras> {
  total: number
  tokens_used?: number
  truncated?: boolean
}

export interface Project {
  id: string
  name: string
  remote: string
  created_at: string
  role: ProjectRole
}

export interface JoinResult {
  project: Project
  created: boolean
}

export interface ApiKeyRecord {
  id: string
  name: string
  prefix: string
  created_at: string
  expires_at: string | null
  last_used_at: string | null
  project_id: string | null
  principal: AuthorRef
  key?: string
}

export interface Health {
  status: 'ok'
  version: string
}
