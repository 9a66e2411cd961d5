/**
 * @module JSON Schemas of the API's requests and responses (TypeBox), built from the contract's values
 * (`contract.ts`). The daemon validates requests with them and builds `/openapi.json` from them, so the
 * document cannot drift from the behaviour; the client's input types and the MCP tools' input schemas are
 * derived from them too.
 */
import {Type, type Static, type TInteger, type TLiteral, type TUnion} from '@sinclair/typebox'
import {
  INVITATION_TOKEN_PATTERN,
  ANCHOR_CHECK_STATES,
  ANCHOR_HASH_PATTERN,
  ANCHOR_LINES_PATTERN,
  ANCHOR_PATH_MAX,
  ANCHOR_PATH_PATTERN,
  ANCHOR_STATES,
  ANCHOR_SYMBOL_MAX,
  ANCHOR_SYMBOL_PATTERN,
  ANCHORS_MAX,
  COMMIT_PATTERN,
  FLAG_REASONS,
  FRESHNESS_REASON_KINDS,
  FRESHNESS_STATES,
  INCLUDE_VALUES,
  ON_SIMILAR,
  VERIFY_AFTER_DAYS_MAX,
  API_KEY_DAYS_MAX,
  BODY_MAX,
  COMMENT_MAX,
  COMMENTS_IN_FULL,
  COMMENT_TYPES,
  CURSOR_MAX,
  DETAILS,
  FINDING_ID_PATTERN,
  FINDINGS_MAX,
  LIMIT_DEFAULT,
  LIMIT_MAX,
  MAX_TOKENS_MAX,
  NAME_MAX,
  NOTE_MAX,
  PRINCIPAL_NAME_MAX,
  PRINCIPAL_NAME_PATTERN,
  PROJECT_ROLES,
  QUERY_MAX,
  REMOTE_MAX,
  SCOPES,
  STATUSES,
  TAG_MAX,
  TAG_PATTERN,
  TAGS_MAX,
  THOUGHT_KIND_DEFAULT,
  THOUGHT_KINDS,
  THOUGHTS_MAX,
  TITLE_INPUT_MAX,
  TITLE_MAX,
  URL_MAX,
  UUID_PATTERN,
  UUID_V7_PATTERN,
} from './contract.js'

/** One of a contract enum's values (JSON Schema `anyOf` of `const`s). */
export function oneOf<T extends string>(values: readonly T[], description?: string): TUnion<TLiteral<T>[]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    description === undefined ? {} : {description},
  )
}

export const Uuid = Type.String({pattern: UUID_PATTERN, description: 'A UUID', examples: ['0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980']})
export const ScopeSchema = oneOf(SCOPES, "Who may see the entry: its author, the project's members, or everyone")
export const StatusSchema = oneOf(STATUSES, 'open, or resolved with a resolution')
export const DetailSchema = oneOf(DETAILS, 'How much of each entry to return (docs/api.md, "Detail levels")')
export const CommentTypeSchema = oneOf(COMMENT_TYPES, 'The kind of comment')
const ThoughtKindSchema = oneOf(THOUGHT_KINDS, `Default ${THOUGHT_KIND_DEFAULT}`)

const Title = Type.String({minLength: 1, maxLength: TITLE_INPUT_MAX, description: `1–${TITLE_MAX} characters after trimming`})
const Body = Type.String({minLength: 1, maxLength: BODY_MAX, description: 'Markdown'})
const Tags = Type.Array(Type.String({pattern: TAG_PATTERN}), {
  maxItems: TAGS_MAX,
  description: 'Lower-cased and de-duplicated by the server',
})
export const Url = Type.Union([Type.String({maxLength: URL_MAX, description: 'An absolute http(s) URL'}), Type.Null()])
const ThoughtStepIn = Type.Object(
  {
    step: Type.Optional(Type.Integer({minimum: 1, description: 'Ignored on input: steps are numbered in array order'})),
    thought: Type.String({minLength: 1, maxLength: NOTE_MAX}),
    kind: Type.Optional(ThoughtKindSchema),
  },
  {additionalProperties: false},
)
const ThoughtChain = Type.Array(ThoughtStepIn, {maxItems: THOUGHTS_MAX})
export const NullableUuid = Type.Union([Uuid, Type.Null()])
export const Note = Type.Union([Type.String({maxLength: NOTE_MAX}), Type.Null()])
export const Remote = Type.String({minLength: 1, maxLength: REMOTE_MAX, description: 'A git remote URL in any form git accepts'})
export const ProjectName = Type.String({minLength: 1, maxLength: NAME_MAX})
export const ProjectRoleSchema = oneOf(PROJECT_ROLES)
const FindingId = Type.String({
  pattern: FINDING_ID_PATTERN,
  description: 'A finding id, from a sensitive_content problem or the publish preview',
})
/** The two ways past a sensitive_content refusal (docs/api.md, "Safe publish"). */
const sensitiveChoice = {
  redact: Type.Optional(
    Type.Boolean({description: 'Replace every finding not acknowledged with [REDACTED:<kind>] before the change is stored'}),
  ),
  acknowledge: Type.Optional(
    Type.Array(FindingId, {
      maxItems: FINDINGS_MAX,
      description: 'Findings to let through as they are; recorded on the entry as a comment by the caller',
    }),
  ),
}

// ---- anchors, freshness, verify and flags (docs/api.md, "Anchors, freshness, verify and flags") ----

const AnchorPath = Type.String({
  minLength: 1,
  maxLength: ANCHOR_PATH_MAX,
  pattern: ANCHOR_PATH_PATTERN,
  description: 'Relative to the repository root, `/`-separated, no `..`',
})
const AnchorLines = Type.Union([Type.String({pattern: ANCHOR_LINES_PATTERN, description: '`a-b`, 1-based, inclusive'}), Type.Null()])
const AnchorSymbol = Type.Union([Type.String({minLength: 1, maxLength: ANCHOR_SYMBOL_MAX, pattern: ANCHOR_SYMBOL_PATTERN}), Type.Null()])
const Commit = Type.String({pattern: COMMIT_PATTERN, description: 'A git commit id (hex, 7–64 digits)'})
const AnchorHash = Type.String({pattern: ANCHOR_HASH_PATTERN, description: 'SHA-256 (hex) of the anchored text, line endings normalised'})
export const AnchorInSchema = Type.Object(
  {
    path: AnchorPath,
    lines: Type.Optional(AnchorLines),
    symbol: Type.Optional(AnchorSymbol),
    commit: Type.Optional(Type.Union([Commit, Type.Null()])),
    hash: Type.Optional(Type.Union([AnchorHash, Type.Null()])),
  },
  {additionalProperties: false},
)
export type AnchorIn = Static<typeof AnchorInSchema>
const AnchorsIn = Type.Array(AnchorInSchema, {
  maxItems: ANCHORS_MAX,
  description: 'The code the entry is about; on PATCH the whole set (an empty array removes every anchor)',
})

export const CreateEntryBody = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        pattern: UUID_V7_PATTERN,
        description:
          'The id the entry is to have, chosen by the client (a UUIDv7 made offline, so the id is known before the entry is sent); 409 id_taken if an entry has it. Default: one the server makes',
      }),
    ),
    title: Title,
    body: Body,
    scope: Type.Optional(ScopeSchema),
    project_id: Type.Optional(NullableUuid),
    tags: Type.Optional(Tags),
    url: Type.Optional(Url),
    thought_chain: Type.Optional(ThoughtChain),
    anchors: Type.Optional(AnchorsIn),
    ...sensitiveChoice,
  },
  {additionalProperties: false},
)
export type CreateEntryBody = Static<typeof CreateEntryBody>

/** `POST /knowledge?on_similar=` (docs/api.md, "Similar entries on write"). */
export const CreateEntryQuery = Type.Object({
  on_similar: Type.Optional(oneOf(ON_SIMILAR, 'report (default): create and list similar entries; refuse: 409 possible_duplicate instead')),
})
export type CreateEntryQuery = Static<typeof CreateEntryQuery>

/** An entry that looks like the same knowledge as the one being written. */
export const SimilarItemSchema = Type.Object({
  id: Uuid,
  title: Type.String(),
  similarity: Type.Number({minimum: 0, maximum: 1, description: 'docs/search.md, "Similar entries"'}),
})

export const SupersedeBody = Type.Object(
  {
    by: Type.Union([Uuid, Type.Null()], {description: 'The entry that replaces this one; null withdraws a supersede'}),
    note: Type.Optional(Type.String({minLength: 1, maxLength: COMMENT_MAX, description: 'Why; added as a comment'})),
  },
  {additionalProperties: false},
)
export type SupersedeBody = Static<typeof SupersedeBody>

export const MergeBody = Type.Object(
  {
    into: Uuid,
    note: Type.Optional(Type.String({minLength: 1, maxLength: COMMENT_MAX, description: 'Why; added as a comment'})),
  },
  {additionalProperties: false},
)
export type MergeBody = Static<typeof MergeBody>

export const PatchEntryBody = Type.Object(
  {
    title: Type.Optional(Title),
    body: Type.Optional(Body),
    tags: Type.Optional(Tags),
    url: Type.Optional(Url),
    thought_chain: Type.Optional(ThoughtChain),
    status: Type.Optional(StatusSchema),
    anchors: Type.Optional(AnchorsIn),
    ...sensitiveChoice,
  },
  {additionalProperties: false},
)
export type PatchEntryBody = Static<typeof PatchEntryBody>

export const VerifyBody = Type.Object(
  {
    note: Type.Optional(Note),
    anchors: Type.Optional(
      Type.Array(AnchorInSchema, {
        maxItems: ANCHORS_MAX,
        description: 'Anchors re-based from the checkout (matched by path, lines and symbol)',
      }),
    ),
  },
  {additionalProperties: false},
)
export type VerifyBody = Static<typeof VerifyBody>

export const FlagReasonSchema = oneOf(FLAG_REASONS, 'Why the entry should not be trusted as it is')
export const FlagBody = Type.Object(
  {reason: FlagReasonSchema, note: Type.Optional(Note), duplicate_of: Type.Optional(NullableUuid)},
  {additionalProperties: false},
)
export type FlagBody = Static<typeof FlagBody>

const AnchorResult = Type.Object(
  {
    path: AnchorPath,
    lines: Type.Optional(AnchorLines),
    symbol: Type.Optional(AnchorSymbol),
    state: oneOf(ANCHOR_CHECK_STATES),
    moved_to: Type.Optional(
      Type.Union([Type.Object({path: AnchorPath, lines: Type.Optional(AnchorLines)}, {additionalProperties: false}), Type.Null()]),
    ),
    hash: Type.Optional(Type.Union([AnchorHash, Type.Null()])),
  },
  {additionalProperties: false},
)
export const AnchorCheckBody = Type.Object(
  {commit: Commit, results: Type.Array(AnchorResult, {minItems: 1, maxItems: ANCHORS_MAX})},
  {additionalProperties: false},
)
export type AnchorCheckBody = Static<typeof AnchorCheckBody>

export const ProjectSettingsBody = Type.Object(
  {
    verify_after_days: Type.Optional(
      Type.Integer({minimum: 0, maximum: VERIFY_AFTER_DAYS_MAX, description: 'Entries not verified for longer are stale; 0 = never'}),
    ),
  },
  {additionalProperties: false},
)
export type ProjectSettingsBody = Static<typeof ProjectSettingsBody>

export const ResolveBody = Type.Object(
  {note: Type.Optional(Note), url: Type.Optional(Url), ...sensitiveChoice},
  {additionalProperties: false},
)
export type ResolveBody = Static<typeof ResolveBody>

export const CommentBody = Type.Object(
  {body: Type.String({minLength: 1, maxLength: COMMENT_MAX}), type: Type.Optional(CommentTypeSchema), ...sensitiveChoice},
  {additionalProperties: false},
)
export type CommentBody = Static<typeof CommentBody>

export const PublishBody = Type.Object({scope: Type.Optional(ScopeSchema), ...sensitiveChoice}, {additionalProperties: false})
export type PublishBody = Static<typeof PublishBody>

export const ForkBody = Type.Object(
  {title: Type.Optional(Title), scope: Type.Optional(ScopeSchema), project_id: Type.Optional(NullableUuid), ...sensitiveChoice},
  {additionalProperties: false},
)
export type ForkBody = Static<typeof ForkBody>

export const JoinProjectBody = Type.Object(
  {
    remote: Remote,
    name: Type.Optional(Type.String({...ProjectName, description: 'Default: the last part of the remote'})),
    invitation: Type.Optional(
      Type.String({
        pattern: INVITATION_TOKEN_PATTERN,
        description: "An invitation link's token: joins an existing project without a request",
      }),
    ),
  },
  {additionalProperties: false},
)
export type JoinProjectBody = Static<typeof JoinProjectBody>

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({minLength: 1, maxLength: NAME_MAX})),
    expires_in_days: Type.Optional(Type.Union([Type.Integer({minimum: 1, maximum: API_KEY_DAYS_MAX}), Type.Null()])),
    project_id: Type.Optional(NullableUuid),
    principal: Type.Optional(
      Type.String({pattern: PRINCIPAL_NAME_PATTERN, description: 'Owner only: mint the key for this principal, creating it if needed'}),
    ),
  },
  {additionalProperties: false},
)
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>

export const RevokeApiKeyBody = Type.Object({id: Type.Optional(Uuid)}, {additionalProperties: false})
export type RevokeApiKeyBody = Static<typeof RevokeApiKeyBody>

export const IdParams = Type.Object({id: Uuid})
export type IdParams = Static<typeof IdParams>

export const GetEntryQuery = Type.Object({detail: Type.Optional(DetailSchema)})
export type GetEntryQuery = Static<typeof GetEntryQuery>

export const PublishPreviewQuery = Type.Object({scope: Type.Optional(ScopeSchema)})
export type PublishPreviewQuery = Static<typeof PublishPreviewQuery>

const Limit = (dflt: number): TInteger => Type.Integer({minimum: 1, maximum: LIMIT_MAX, default: dflt})
const filterFields = {
  scope: Type.Optional(ScopeSchema),
  project_id: Type.Optional(Uuid),
  status: Type.Optional(StatusSchema),
  tag: Type.Optional(Type.String({minLength: 1, maxLength: TAG_MAX})),
  freshness: Type.Optional(oneOf(FRESHNESS_STATES, 'Only fresh or only stale entries')),
  include: Type.Optional(oneOf(INCLUDE_VALUES, 'superseded: superseded entries too (left out by default)')),
  detail: Type.Optional(DetailSchema),
}

export const ListQuery = Type.Object({
  ...filterFields,
  author: Type.Optional(Type.String({minLength: 1, maxLength: PRINCIPAL_NAME_MAX, description: 'A principal id or name'})),
  limit: Type.Optional(Limit(LIMIT_DEFAULT.entries)),
  cursor: Type.Optional(Type.String({maxLength: CURSOR_MAX})),
})
export type ListQuery = Static<typeof ListQuery>

export const SearchQuery = Type.Object({
  q: Type.String({minLength: 1, maxLength: QUERY_MAX, description: 'The text query'}),
  ...filterFields,
  author: Type.Optional(Type.String({minLength: 1, maxLength: PRINCIPAL_NAME_MAX})),
  limit: Type.Optional(Limit(LIMIT_DEFAULT.search)),
  explain: Type.Optional(Type.Boolean({description: 'Add matched fields/terms and a snippet to each hit'})),
  max_tokens: Type.Optional(Type.Integer({minimum: 1, maximum: MAX_TOKENS_MAX, description: 'Pack the best hits into this many tokens'})),
})
export type SearchQuery = Static<typeof SearchQuery>

export const ProjectsQuery = Type.Object({
  limit: Type.Optional(Limit(LIMIT_DEFAULT.projects)),
  cursor: Type.Optional(Type.String({maxLength: CURSOR_MAX})),
})
export type ProjectsQuery = Static<typeof ProjectsQuery>

export const CommentsQuery = Type.Object({
  limit: Type.Optional(Limit(LIMIT_DEFAULT.comments)),
  cursor: Type.Optional(Type.String({maxLength: CURSOR_MAX})),
})
export type CommentsQuery = Static<typeof CommentsQuery>

// ---- responses: the OpenAPI document's, and the wire types of types.ts (the handlers build them from typed records) ----

const Time = Type.String({format: 'date-time'})
const NullableString = Type.Union([Type.String(), Type.Null()])
export const AuthorRefSchema = Type.Object({id: Uuid, name: Type.String()})
export const CommentSchema = Type.Object(
  {id: Uuid, body: Type.String(), type: CommentTypeSchema, author: AuthorRefSchema, created_at: Time},
  {$id: 'Comment'},
)
export const ThoughtStepSchema = Type.Object({step: Type.Integer(), thought: Type.String(), kind: oneOf(THOUGHT_KINDS)})
export const BranchSchema = Type.Object({id: Uuid, title: Type.String(), scope: ScopeSchema, author: AuthorRefSchema, created_at: Time})
export const ResolutionSchema = Type.Object({note: NullableString, url: NullableString, resolved_by: AuthorRefSchema, resolved_at: Time})

export const AnchorSchema = Type.Object({
  path: Type.String(),
  lines: NullableString,
  symbol: NullableString,
  commit: NullableString,
  hash: NullableString,
  state: oneOf(ANCHOR_STATES),
  moved_to: Type.Union([Type.Object({path: Type.String(), lines: NullableString}), Type.Null()], {
    description: 'Where the last check found the text; `path`/`lines` already follow it',
  }),
  checked_at: Type.Union([Time, Type.Null()]),
  checked_commit: Type.Union([Type.String(), Type.Null()], {description: 'The commit the last check was made at'}),
})
export const FreshnessReasonSchema = Type.Object({
  kind: oneOf(FRESHNESS_REASON_KINDS),
  detail: Type.String({description: 'In words: which anchor, which flag, since when'}),
  since: Type.Union([Time, Type.Null()]),
})
export const FreshnessSchema = Type.Object({
  state: oneOf(FRESHNESS_STATES),
  reasons: Type.Array(FreshnessReasonSchema),
  verified_at: Type.Union([Time, Type.Null()]),
  verified_by: Type.Union([AuthorRefSchema, Type.Null()]),
})
export const FlagCountsSchema = Type.Object({
  stale: Type.Integer(),
  incorrect: Type.Integer(),
  duplicate: Type.Integer(),
  obsolete: Type.Integer(),
})

/** The fields of an entry at each detail level (docs/api.md, "Detail levels"): summary ⊂ standard ⊂ full. */
const summaryFields = {
  id: Uuid,
  title: Type.String(),
  body: Type.String({description: 'The summary form at detail=summary, else the whole body'}),
  status: StatusSchema,
  score: Type.Optional(Type.Number({description: 'Search only: higher is better'})),
  freshness: oneOf(FRESHNESS_STATES, 'The freshness state word (the whole object at standard and full)'),
  superseded_by: Type.Optional(Uuid),
}
const standardFields = {
  tags: Type.Array(Type.String()),
  scope: ScopeSchema,
  url: NullableString,
  project_id: NullableUuid,
  author: AuthorRefSchema,
  forked_from: NullableUuid,
  created_at: Time,
  updated_at: Time,
  version: Type.Integer(),
  comment_count: Type.Integer(),
  freshness: FreshnessSchema,
  anchors: Type.Array(AnchorSchema),
  flags: FlagCountsSchema,
  confidence: Type.Number({minimum: 0, maximum: 1, description: 'docs/search.md, "Confidence"'}),
  superseded_by: Type.Union([Uuid, Type.Null()], {description: 'The entry that replaced this one (docs/api.md, "Supersede")'}),
  usage: Type.Object(
    {
      retrieved: Type.Integer({minimum: 0, description: 'Times returned at standard or full (GET, search, MCP), counted in batches'}),
      last_retrieved_at: Type.Union([Time, Type.Null()]),
    },
    {description: 'docs/api.md, "Usage"'},
  ),
}
const fullFields = {
  comments: Type.Array(Type.Unsafe<Static<typeof CommentSchema>>(Type.Ref('Comment')), {
    description: `The newest comments (at most ${COMMENTS_IN_FULL}), oldest first`,
  }),
  comments_truncated: Type.Boolean({
    description: 'Older comments exist than those in `comments`: page them all with GET /knowledge/{id}/comments',
  }),
  thought_chain: Type.Array(ThoughtStepSchema),
  branches: Type.Array(BranchSchema),
  resolution: Type.Union([ResolutionSchema, Type.Null()]),
}
export const EntrySummarySchema = Type.Object(summaryFields)
export const EntryStandardSchema = Type.Object({...summaryFields, ...standardFields})
export const EntryFullSchema = Type.Object({...summaryFields, ...standardFields, ...fullFields})
/** Any level, as the document describes it: what a level leaves out is optional. */
export const EntrySchema = Type.Object(
  {
    ...summaryFields,
    ...Type.Partial(Type.Object(standardFields)).properties,
    ...Type.Partial(Type.Object(fullFields)).properties,
    freshness: Type.Union([summaryFields.freshness, FreshnessSchema], {description: 'The state word at summary, the object above it'}),
    web_url: Type.Optional(
      Type.String({
        description:
          "GET /knowledge/{id} at standard and full only: the entry's page on the daemon's web view, unless it runs with --no-web (docs/web.md)",
      }),
    ),
  },
  {$id: 'Entry', description: 'Fields present depend on the detail level: summary ⊂ standard ⊂ full'},
)
export const ProjectSchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    remote: Type.String(),
    created_at: Time,
    role: ProjectRoleSchema,
    verify_after_days: Type.Integer({description: 'Entries not verified for longer are stale (`unverified`); 0 = never'}),
  },
  {$id: 'Project'},
)
export const JoinResultSchema = Type.Object({
  project: Type.Unsafe<Static<typeof ProjectSchema>>(Type.Ref('Project')),
  created: Type.Boolean(),
})
export const ApiKeySchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    prefix: Type.String(),
    created_at: Time,
    expires_at: Type.Union([Time, Type.Null()]),
    last_used_at: Type.Union([Time, Type.Null()]),
    project_id: NullableUuid,
    principal: AuthorRefSchema,
    key: Type.Optional(Type.String({description: 'The secret, returned once at creation'})),
  },
  {$id: 'ApiKey'},
)
export const GrantSchema = Type.Object(
  {
    id: Uuid,
    client_id: Type.String(),
    client_name: Type.Union([Type.String(), Type.Null()], {description: 'As the application registered it (not verified)'}),
    api_key_id: Type.String({description: 'The API key that approved: revoking it ends the grant'}),
    project_id: NullableUuid,
    created_at: Time,
    last_used_at: Type.Union([Time, Type.Null()]),
    expires_at: Type.String({format: 'date-time', description: 'The absolute end of the grant, refreshes included'}),
  },
  {$id: 'Grant'},
)
export const GrantIdParams = Type.Object({id: Uuid})
/** `POST /web/links` (docs/web.md, "Sessions"): a one-time sign-in link to the web view, for `kb open`. */
export const WebLinkBody = Type.Object(
  {
    next: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        pattern: '^/(?![/\\\\])',
        description: 'The page to open once signed in, a path such as /e/{id}',
      }),
    ),
  },
  {additionalProperties: false},
)
export type WebLinkBody = Static<typeof WebLinkBody>
export const WebLinkSchema = Type.Object(
  {
    url: Type.String({description: 'Opens the web view signed in as the key that asked, once, within a minute'}),
    expires_at: Time,
  },
  {$id: 'WebLink'},
)
export type GrantIdParams = Static<typeof GrantIdParams>
/** The store the daemon runs on (`sqlite`, `postgres`) and whether it answered just now; a store that does not answer makes /health a 503 problem carrying the same field. */
const HealthStoreSchema = Type.Object({
  kind: Type.String(),
  answers: Type.Boolean(),
  // Optional for the CLI, which also reads /health of daemons older than it.
  writable: Type.Optional(
    Type.Boolean({description: 'False while the disk is full: a write met it in the last minute, or (SQLite) under 1 MiB is free'}),
  ),
})
export const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('disk_full')], {
    description: '`disk_full`: reads are served, writes are refused (503) until there is room',
  }),
  version: Type.String(),
  // Optional for the CLI, which also reads /health of daemons older than it.
  store: Type.Optional(HealthStoreSchema),
  // A daemon bound to loopback says who it is to a caller on the same machine (kb daemon status/logs).
  pid: Type.Optional(Type.Integer({description: 'Local daemon, loopback caller only: its process id'})),
  started_at: Type.Optional(Type.String({description: 'Local daemon, loopback caller only: when it started'})),
  data_dir: Type.Optional(Type.String({description: 'Local daemon, loopback caller only: its data directory'})),
  log: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'Local daemon, loopback caller only: the file its log goes to; null when it logs to its stderr (`kb daemon run`)',
    }),
  ),
  proof: Type.Optional(
    Type.String({
      description: 'Only when asked with a Kb-Challenge header: the daemon proves it owns its data directory (docs/security.md)',
    }),
  ),
})
