/**
 * @module The export format (JSON Lines, docs/api.md "Export, import and backup"): its header, project and entry
 * lines as TypeBox schemas with their validators, and the limits an import body keeps to.
 */
import {Type, type Static} from '@sinclair/typebox'
import {
  ANCHOR_LINES_PATTERN,
  ANCHOR_STATES,
  ANCHORS_MAX,
  COMMENT_MAX,
  COMMIT_PATTERN,
  HISTORY_ACTIONS,
  HISTORY_VIAS,
  NOTE_MAX,
  PRINCIPAL_NAME_PATTERN,
} from '../../../src/shared/contract.js'
import {KbError} from '../../../src/shared/errors.js'
import {
  AnchorInSchema,
  CommentTypeSchema,
  CreateEntryBody,
  FlagReasonSchema,
  Note,
  NullableUuid,
  oneOf,
  ProjectName,
  ProjectRoleSchema,
  ProjectSettingsBody,
  Remote,
  ScopeSchema,
  StatusSchema,
  Url,
  Uuid,
} from '../../../src/shared/schemas.js'
import {createValidator} from '../../../src/shared/validator.js'
import {VERIFICATIONS_KEPT} from '../../store/trust.js'

export const EXPORT_KIND = 'kb-export'
export const EXPORT_VERSION = 1
/** The largest import body (docs/api.md); JSON requests keep their 1 MiB limit. */
export const IMPORT_BODY_LIMIT = 512 * 1024 * 1024
/** The longest line an import reads: an entry's body is at most 100,000 characters, so this leaves room for many comments. */
export const IMPORT_LINE_MAX = 16 * 1024 * 1024
/** History records an entry line may carry. */
const HISTORY_IMPORT_MAX = 100_000
const RFC3339 = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|z|[+-]\\d{2}:\\d{2})$'
const Time = Type.String({pattern: RFC3339, description: 'RFC 3339'})
const AuthorIn = Type.Object({id: Uuid, name: Type.String({pattern: PRINCIPAL_NAME_PATTERN})}, {additionalProperties: false})
const entryFields = CreateEntryBody.properties
const entryless = ProjectSettingsBody.properties
const NullableTime = Type.Union([Time, Type.Null()])
const AnchorLines = Type.Union([Type.String({pattern: ANCHOR_LINES_PATTERN}), Type.Null()])
/** An anchor as stored and exported (docs/api.md, "Anchors"): what a create sends, with what the checks found. */
const AnchorStored = Type.Object(
  {
    ...AnchorInSchema.properties,
    state: Type.Optional(oneOf(ANCHOR_STATES)),
    moved_to: Type.Optional(
      Type.Union([Type.Object({path: AnchorInSchema.properties.path, lines: AnchorLines}, {additionalProperties: false}), Type.Null()]),
    ),
    checked_at: Type.Optional(NullableTime),
    checked_commit: Type.Optional(Type.Union([Type.String({pattern: COMMIT_PATTERN}), Type.Null()])),
  },
  {additionalProperties: false},
)
const FlagIn = Type.Object(
  {by: AuthorIn, reason: FlagReasonSchema, note: Type.Optional(Note), duplicate_of: Type.Optional(NullableUuid), created_at: Time},
  {additionalProperties: false},
)

/** A history record as exported (docs/api.md, "History"); absent in files of a kb before curation. */
const HistoryIn = Type.Object(
  {
    id: Uuid,
    at: Time,
    action: oneOf(HISTORY_ACTIONS),
    actor_id: Uuid,
    actor_name: Type.String({maxLength: 200}),
    via: oneOf(HISTORY_VIAS),
    client: Type.Union([Type.String({maxLength: 200}), Type.Null()]),
    changes: Type.Record(Type.String({maxLength: 100}), Type.String({maxLength: 400}), {maxProperties: 50}),
    note: Type.Union([Type.String({maxLength: NOTE_MAX}), Type.Null()]),
  },
  {additionalProperties: false},
)

export const HeaderLine = Type.Object(
  {
    kind: Type.Literal(EXPORT_KIND),
    version: Type.Integer(),
    exported_at: Type.Optional(Time),
    exported_by: Type.Optional(AuthorIn),
    server_version: Type.Optional(Type.String({maxLength: 100})),
    complete: Type.Optional(Type.Boolean()),
    /** How many entry lines follow: what `kb export` shows its progress against. */
    entries: Type.Optional(Type.Integer({minimum: 0})),
    scope: Type.Optional(ScopeSchema),
    project_id: Type.Optional(Uuid),
  },
  {additionalProperties: false},
)

export const ProjectLine = Type.Object(
  {
    kind: Type.Literal('project'),
    id: Uuid,
    name: ProjectName,
    remote: Remote,
    created_at: Type.Optional(Time),
    created_by: Type.Optional(AuthorIn),
    verify_after_days: entryless.verify_after_days,
    members: Type.Optional(
      Type.Array(
        Type.Object(
          {id: Uuid, name: Type.String({pattern: PRINCIPAL_NAME_PATTERN}), role: ProjectRoleSchema},
          {additionalProperties: false},
        ),
      ),
    ),
  },
  {additionalProperties: false},
)
export type ProjectLine = Static<typeof ProjectLine>

const CommentIn = Type.Object(
  {
    id: Uuid,
    body: Type.String({minLength: 1, maxLength: COMMENT_MAX}),
    type: Type.Optional(CommentTypeSchema),
    author: Type.Optional(AuthorIn),
    created_at: Type.Optional(Time),
  },
  {additionalProperties: false},
)

export const EntryLine = Type.Object(
  {
    kind: Type.Literal('entry'),
    id: Uuid,
    title: entryFields.title,
    body: entryFields.body,
    scope: entryFields.scope,
    project_id: entryFields.project_id,
    tags: entryFields.tags,
    url: entryFields.url,
    status: Type.Optional(StatusSchema),
    resolution: Type.Optional(
      Type.Union([
        Type.Object({note: Note, url: Url, resolved_by: AuthorIn, resolved_at: Time}, {additionalProperties: false}),
        Type.Null(),
      ]),
    ),
    thought_chain: entryFields.thought_chain,
    forked_from: Type.Optional(NullableUuid),
    author: Type.Optional(AuthorIn),
    created_at: Type.Optional(Time),
    updated_at: Type.Optional(Time),
    version: Type.Optional(Type.Integer({minimum: 1})),
    comments: Type.Optional(Type.Array(CommentIn)),
    // Trust (docs/api.md, "Anchors, freshness, verify and flags"); absent in files of a kb before it.
    anchors: Type.Optional(Type.Array(AnchorStored, {maxItems: ANCHORS_MAX})),
    verified_at: Type.Optional(NullableTime),
    verified_by: Type.Optional(Type.Union([AuthorIn, Type.Null()])),
    verifications: Type.Optional(
      Type.Array(Type.Object({principal_id: Uuid, at: Time}, {additionalProperties: false}), {maxItems: VERIFICATIONS_KEPT}),
    ),
    corrections: Type.Optional(Type.Integer({minimum: 0})),
    open_flags: Type.Optional(Type.Array(FlagIn)),
    // Supersede (docs/api.md, "Supersede"); absent in files of a kb before it.
    superseded_by: Type.Optional(NullableUuid),
    // Curation (docs/api.md, "History, usage and the review queue"); absent in files of a kb before it.
    retrieved: Type.Optional(Type.Integer({minimum: 0})),
    last_retrieved_at: Type.Optional(NullableTime),
    history: Type.Optional(Type.Array(HistoryIn, {maxItems: HISTORY_IMPORT_MAX})),
  },
  {additionalProperties: false},
)
export type EntryLine = Static<typeof EntryLine>
export type HeaderLine = Static<typeof HeaderLine>

// Lines are checked like request bodies: strict types, no coercion, unknown fields refused.
const ajv = createValidator('json')
export const checkHeader = ajv.compile(HeaderLine)
export const checkProject = ajv.compile(ProjectLine)
export const checkEntry = ajv.compile(EntryLine)

export function tooLarge(): KbError {
  return new KbError(
    'payload_too_large',
    `an import body holds at most ${IMPORT_BODY_LIMIT / 1024 / 1024} MiB; split the export (e.g. kb export --project)`,
    {
      // The rest of the body is not read: the connection cannot carry another request after it.
      headers: {Connection: 'close'},
    },
  )
}
