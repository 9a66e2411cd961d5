/**
 * @module The resources of the kb HTTP API v1 as they travel over the wire (docs/api.md): the types of the
 * contract's enums and of the response schemas. Types only: importing this module costs nothing at run time.
 */
import type {Static} from '@sinclair/typebox'
import type {
  ANCHOR_STATES,
  COMMENT_TYPES,
  DETAILS,
  FLAG_REASONS,
  FRESHNESS_STATES,
  PROJECT_ROLES,
  SCOPES,
  STATUSES,
  THOUGHT_KINDS,
} from './contract.js'
import type {
  AnchorSchema,
  ApiKeySchema,
  AuthorRefSchema,
  BranchSchema,
  CommentSchema,
  EntryFullSchema,
  SimilarItemSchema,
  EntryStandardSchema,
  EntrySummarySchema,
  FlagCountsSchema,
  FreshnessReasonSchema,
  FreshnessSchema,
  GrantSchema,
  HealthSchema,
  JoinResultSchema,
  ProjectSchema,
  ResolutionSchema,
  ThoughtStepSchema,
  WebLinkSchema,
} from './schemas.js'
import type {Finding, RedactionLine} from './safe-publish-schemas.js'

export type Scope = (typeof SCOPES)[number]
export type Status = (typeof STATUSES)[number]
export type Detail = (typeof DETAILS)[number]
export type CommentType = (typeof COMMENT_TYPES)[number]
export type ThoughtKind = (typeof THOUGHT_KINDS)[number]
export type ProjectRole = (typeof PROJECT_ROLES)[number]
export type AnchorState = (typeof ANCHOR_STATES)[number]
export type FreshnessState = (typeof FRESHNESS_STATES)[number]
export type FlagReason = (typeof FLAG_REASONS)[number]

export type AuthorRef = Static<typeof AuthorRefSchema>
export type ThoughtStep = Static<typeof ThoughtStepSchema>
export type Comment = Static<typeof CommentSchema>
export type Resolution = Static<typeof ResolutionSchema>
export type Branch = Static<typeof BranchSchema>
export type Anchor = Static<typeof AnchorSchema>
export type Freshness = Static<typeof FreshnessSchema>
export type FreshnessReason = Static<typeof FreshnessReasonSchema>
export type FlagCounts = Static<typeof FlagCountsSchema>
export type EntrySummary = Static<typeof EntrySummarySchema>
export type EntryStandard = Static<typeof EntryStandardSchema>
export type EntryFull = Static<typeof EntryFullSchema>

export type EntryView = EntrySummary | EntryStandard | EntryFull

export interface Page<T> {
  items: T[]
  next_cursor: string | null
}

interface SearchHitExtras {
  matched?: {fields: string[]; terms: string[]}
  snippet?: string
  /** With explain: the relevance score before the confidence factor, and that factor (docs/search.md, "Confidence"). */
  factors?: {relevance: number; confidence: number}
}

export interface SearchResult extends Page<EntryView & SearchHitExtras> {
  total: number
  tokens_used?: number
  truncated?: boolean
}

export type Project = Static<typeof ProjectSchema>
export type JoinResult = Static<typeof JoinResultSchema>
export type ApiKeyRecord = Static<typeof ApiKeySchema>
export type Grant = Static<typeof GrantSchema>
export type WebLink = Static<typeof WebLinkSchema>
export type Health = Static<typeof HealthSchema>

export type {Finding, PublishPreview, RedactionLine} from './safe-publish-schemas.js'

/** What a sensitive_content problem adds to its body (docs/api.md, "Safe publish"). */
export interface SensitiveReport {
  findings: Finding[]
  findings_total: number
  diff: RedactionLine[]
}
/** An entry that looks like the same knowledge as one being written (docs/api.md, "Similar entries on write"). */
export type SimilarItem = Static<typeof SimilarItemSchema>
/** A created entry with the similar entries the caller can see. */
export type EntryCreated = EntryFull & {similar: SimilarItem[]}
