/**
 * @module JSON Schemas of the API's requests and responses (TypeBox). The daemon validates requests
 * with them and builds `/openapi.json` from them, so the document cannot drift from the behaviour.
 */
import {Type, type Static, type TInteger, type TSchema} from '@sinclair/typebox'

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'

export const Uuid = Type.String({pattern: UUID_PATTERN, description: 'A UUID', examples: ['0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980']})
const L = Type.Literal
export const ScopeSchema = Type.Union([L('private'), L('project'), L('global')], {description: "Who may see the entry: its author, the project's members, or everyone"})
export const StatusSchema = Type.Union([L('open'), L('resolved')], {description: 'open, or resolved with a resolution'})
export const DetailSchema = Type.Union([L('summary'), L('standard'), L('full')], {description: 'How much of each entry to return (docs/api.md, "Detail levels")'})
export const CommentTypeSchema = Type.Union([L('note'), L('supplement'), L('correction'), L('question')], {description: 'The kind of comment'})
const ThoughtKindSchema = Type.Union([L('observation'), L('hypothesis'), L('action'), L('conclusion')], {description: 'Default observation'})

export const TITLE_MAX = 200
export const BODY_MAX = 100_000
export const TAGS_MAX = 20
export const TAG_PATTERN = '^[A-Za-z0-9._-]{1,40}$'
export const URL_MAX = 2048
export const THOUGHTS_MAX = 100
export const COMMENT_MAX = 20_000
export const QUERY_MAX = 500
/** The most findings a problem or preview lists, and the most a request may acknowledge (docs/api.md, "Safe publish"). */
export const FINDINGS_MAX = 1000
export const FINDING_ID_PATTERN = '^[0-9a-f]{16}$'

const Title = Type.String({minLength: 1, maxLength: 1000, description: `1–${TITLE_MAX} characters after trimming`})
const Body = Type.String({minLength: 1, maxLength: BODY_MAX, description: 'Markdown'})
const Tags = Type.Array(Type.String({pattern: TAG_PATTERN}), {maxItems: TAGS_MAX, description: 'Lower-cased and de-duplicated by the server'})
const Url = Type.Union([Type.String({maxLength: URL_MAX, description: 'An absolute http(s) URL'}), Type.Null()])
const ThoughtStepIn = Type.Object(
  {
    step: Type.Optional(Type.Integer({minimum: 1, description: 'Ignored on input: steps are numbered in array order'})),
    thought: Type.String({minLength: 1, maxLength: 10_000}),
    kind: Type.Optional(ThoughtKindSchema),
  },
  {additionalProperties: false},
)
const ThoughtChain = Type.Array(ThoughtStepIn, {maxItems: THOUGHTS_MAX})
const NullableUuid = Type.Union([Uuid, Type.Null()])
const FindingId = Type.String({pattern: FINDING_ID_PATTERN, description: 'A finding id, from a sensitive_content problem or the publish preview'})
/** The two ways past a sensitive_content refusal (docs/api.md, "Safe publish"). */
const sensitiveChoice = {
  redact: Type.Optional(Type.Boolean({description: 'Replace every finding not acknowledged with [REDACTED:<kind>] before the change is stored'})),
  acknowledge: Type.Optional(
    Type.Array(FindingId, {maxItems: FINDINGS_MAX, description: 'Findings to let through as they are; recorded on the entry as a comment by the caller'}),
  ),
}

export const CreateEntryBody = Type.Object(
  {
    title: Title,
    body: Body,
    scope: Type.Optional(ScopeSchema),
    project_id: Type.Optional(NullableUuid),
    tags: Type.Optional(Tags),
    url: Type.Optional(Url),
    thought_chain: Type.Optional(ThoughtChain),
    ...sensitiveChoice,
  },
  {additionalProperties: false},
)
export type CreateEntryBody = Static<typeof CreateEntryBody>

export const PatchEntryBody = Type.Object(
  {
    title: Type.Optional(Title),
    body: Type.Optional(Body),
    tags: Type.Optional(Tags),
    url: Type.Optional(Url),
    thought_chain: Type.Optional(ThoughtChain),
    status: Type.Optional(StatusSchema),
    ...sensitiveChoice,
  },
  {additionalProperties: false},
)
export type PatchEntryBody = Static<typeof PatchEntryBody>

export const ResolveBody = Type.Object(
  {note: Type.Optional(Type.Union([Type.String({maxLength: 10_000}), Type.Null()])), url: Type.Optional(Url)},
  {additionalProperties: false},
)
export type ResolveBody = Static<typeof ResolveBody>

export const CommentBody = Type.Object(
  {body: Type.String({minLength: 1, maxLength: COMMENT_MAX}), type: Type.Optional(CommentTypeSchema)},
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
    remote: Type.String({minLength: 1, maxLength: 2048, description: 'A git remote URL in any form git accepts'}),
    name: Type.Optional(Type.String({minLength: 1, maxLength: 100, description: 'Default: the last part of the remote'})),
  },
  {additionalProperties: false},
)
export type JoinProjectBody = Static<typeof JoinProjectBody>

export const PRINCIPAL_NAME_PATTERN = '^[A-Za-z0-9._-]{1,64}$'
export const CreateApiKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({minLength: 1, maxLength: 100})),
    expires_in_days: Type.Optional(Type.Union([Type.Integer({minimum: 1, maximum: 3650}), Type.Null()])),
    project_id: Type.Optional(NullableUuid),
    principal: Type.Optional(Type.String({pattern: PRINCIPAL_NAME_PATTERN, description: 'Owner only: mint the key for this principal, creating it if needed'})),
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

const Limit = (dflt: number): TInteger => Type.Integer({minimum: 1, maximum: 100, default: dflt})
const filterFields = {
  scope: Type.Optional(ScopeSchema),
  project_id: Type.Optional(Uuid),
  status: Type.Optional(StatusSchema),
  tag: Type.Optional(Type.String({minLength: 1, maxLength: 40})),
  detail: Type.Optional(DetailSchema),
}

export const ListQuery = Type.Object({
  ...filterFields,
  author: Type.Optional(Type.String({minLength: 1, maxLength: 64, description: 'A principal id or name'})),
  limit: Type.Optional(Limit(20)),
  cursor: Type.Optional(Type.String({maxLength: 512})),
})
export type ListQuery = Static<typeof ListQuery>

export const SearchQuery = Type.Object({
  q: Type.String({minLength: 1, maxLength: QUERY_MAX, description: 'The text query'}),
  ...filterFields,
  author: Type.Optional(Type.String({minLength: 1, maxLength: 64})),
  limit: Type.Optional(Limit(10)),
  explain: Type.Optional(Type.Boolean({description: 'Add matched fields/terms and a snippet to each hit'})),
  max_tokens: Type.Optional(Type.Integer({minimum: 1, maximum: 1_000_000, description: 'Pack the best hits into this many tokens'})),
})
export type SearchQuery = Static<typeof SearchQuery>

export const ProjectsQuery = Type.Object({limit: Type.Optional(Limit(50)), cursor: Type.Optional(Type.String({maxLength: 512}))})
export type ProjectsQuery = Static<typeof ProjectsQuery>

// ---- responses (documentation; the handlers build them from typed records) ----

const Time = Type.String({format: 'date-time'})
const AuthorRef = Type.Object({id: Uuid, name: Type.String()})
export const EntrySchema = Type.Object(
  {
    id: Uuid,
    title: Type.String(),
    body: Type.String({description: 'The summary form at detail=summary, else the whole body'}),
    status: StatusSchema,
    score: Type.Optional(Type.Number({description: 'Search only: higher is better'})),
    tags: Type.Optional(Type.Array(Type.String())),
    scope: Type.Optional(ScopeSchema),
    url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    project_id: Type.Optional(NullableUuid),
    author: Type.Optional(AuthorRef),
    forked_from: Type.Optional(NullableUuid),
    created_at: Type.Optional(Time),
    updated_at: Type.Optional(Time),
    version: Type.Optional(Type.Integer()),
    comment_count: Type.Optional(Type.Integer()),
    comments: Type.Optional(Type.Array(Type.Ref('Comment'))),
    thought_chain: Type.Optional(Type.Array(Type.Object({step: Type.Integer(), thought: Type.String(), kind: Type.String()}))),
    branches: Type.Optional(Type.Array(Type.Object({id: Uuid, title: Type.String(), scope: ScopeSchema, author: AuthorRef, created_at: Time}))),
    resolution: Type.Optional(
      Type.Union([
        Type.Object({note: Type.Union([Type.String(), Type.Null()]), url: Type.Union([Type.String(), Type.Null()]), resolved_by: AuthorRef, resolved_at: Time}),
        Type.Null(),
      ]),
    ),
  },
  {$id: 'Entry', description: 'Fields present depend on the detail level: summary ⊂ standard ⊂ full'},
)
export const CommentSchema = Type.Object({id: Uuid, body: Type.String(), type: CommentTypeSchema, author: AuthorRef, created_at: Time}, {$id: 'Comment'})
export const ProjectSchema = Type.Object(
  {id: Uuid, name: Type.String(), remote: Type.String(), created_at: Time, role: Type.Union([Type.Literal('maintainer'), Type.Literal('member')])},
  {$id: 'Project'},
)
export const ApiKeySchema = Type.Object(
  {
    id: Uuid, name: Type.String(), prefix: Type.String(), created_at: Time,
    expires_at: Type.Union([Time, Type.Null()]), last_used_at: Type.Union([Time, Type.Null()]),
    project_id: NullableUuid, principal: AuthorRef,
    key: Type.Optional(Type.String({description: 'The secret, returned once at creation'})),
  },
  {$id: 'ApiKey'},
)

// ---- safe publish (docs/api.md, "Safe publish") ----

export const FindingSchema = Type.Object(
  {
    id: Type.String({description: 'Stable while the entry is unchanged: a hash of field, kind, position and the text found'}),
    field: Type.String({description: 'title, body, url, tags/<i>, thought_chain/<i>/thought, resolution/note or comments/<comment id>/body'}),
    kind: Type.String({description: 'The rule that found it, e.g. aws-access-token, github-pat, private-key, email (docs/security.md)'}),
    label: Type.String({description: 'The kind in words'}),
    category: Type.Union([L('secret'), L('personal')]),
    start: Type.Integer({description: 'Offset in the field (UTF-16 code units, as JavaScript counts)'}),
    end: Type.Integer({description: 'Offset just past it'}),
    line: Type.Integer({description: 'Line in the field, from 1'}),
    column: Type.Integer({description: 'Column in that line, from 1'}),
    excerpt: Type.String({description: 'The finding in its context with every finding masked: never the secret itself'}),
  },
  {$id: 'Finding'},
)
export type Finding = Static<typeof FindingSchema>

export const RedactionLineSchema = Type.Object(
  {
    field: Type.String(),
    line: Type.Integer(),
    before: Type.String({description: 'The line as it is, every finding masked'}),
    after: Type.Union([Type.String(), Type.Null()], {description: 'The line as redaction would leave it; null when the field goes (a tag, a URL no longer valid)'}),
  },
  {$id: 'RedactionLine'},
)
export type RedactionLine = Static<typeof RedactionLineSchema>

const sensitiveReport = {
  findings: Type.Array(Type.Ref('Finding'), {description: `Up to ${FINDINGS_MAX}, in field and text order`}),
  findings_total: Type.Integer({description: 'How many there are in all'}),
  diff: Type.Array(Type.Ref('RedactionLine'), {description: 'What redact: true would change, line by line'}),
}

export const PublishPreviewSchema = Type.Object(
  {
    scope: ScopeSchema,
    ...sensitiveReport,
    redacted: Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]), {
      description: 'The redacted value of every field redaction changes, by field (null: the field is removed, e.g. a tag)',
    }),
  },
  {$id: 'PublishPreview', description: 'What publishing to `scope` would expose, and what redaction would make of it; nothing is changed'},
)
export type PublishPreview = Omit<Static<typeof PublishPreviewSchema>, 'findings' | 'diff'> & {findings: Finding[]; diff: RedactionLine[]}

export const ProblemSchema = Type.Object(
  {
    type: Type.String(), title: Type.String(), status: Type.Integer(), code: Type.String(), detail: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Array(Type.Object({path: Type.String(), message: Type.String()}))),
    findings: Type.Optional(sensitiveReport.findings),
    findings_total: Type.Optional(sensitiveReport.findings_total),
    diff: Type.Optional(sensitiveReport.diff),
  },
  {$id: 'Problem', description: 'RFC 9457; a sensitive_content problem adds findings, findings_total and diff'},
)
