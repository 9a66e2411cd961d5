/**
 * @module The resources of the kb HTTP API v1 as they travel over the wire (docs/api.md).
 * Types only: importing this module costs nothing at run time.
 */

export type Scope = 'private' | 'project' | 'global'
export type Status = 'open' | 'resolved'
export type Detail = 'summary' | 'standard' | 'full'
export type CommentType = 'note' | 'supplement' | 'correction' | 'question'
export type ThoughtKind = 'observation' | 'hypothesis' | 'action' | 'conclusion'

export const SCOPES: readonly Scope[] = ['private', 'project', 'global']
export const STATUSES: readonly Status[] = ['open', 'resolved']
export const DETAILS: readonly Detail[] = ['summary', 'standard', 'full']
export const COMMENT_TYPES: readonly CommentType[] = ['note', 'supplement', 'correction', 'question']
export const THOUGHT_KINDS: readonly ThoughtKind[] = ['observation', 'hypothesis', 'action', 'conclusion']

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
  comments: Comment[]
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
  role: 'maintainer' | 'member'
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

export type {Finding, PublishPreview, RedactionLine} from './schemas.js'

/** What a sensitive_content problem adds to its body (docs/api.md, "Safe publish"). */
export interface SensitiveReport {
  findings: import('./schemas.js').Finding[]
  findings_total: number
  diff: import('./schemas.js').RedactionLine[]
}

export interface Health {
  status: 'ok'
  version: string
}
