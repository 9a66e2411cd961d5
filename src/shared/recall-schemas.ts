/**
 * @module The wire schemas of recall (docs/api.md, "Recall"): what a prompt hook asks for, the context it gets
 * back, and the record of every recall a person can audit (`GET /recalls`).
 */
import {Type, type Static} from '@sinclair/typebox'
import {
  CURSOR_MAX,
  FRESHNESS_STATES,
  LIMIT_MAX,
  LIMIT_DEFAULT,
  RECALL_CLIENT_MAX,
  RECALL_PROMPT_MAX,
  RECALL_SESSION_MAX,
  RECALL_SOURCES,
  RECALL_TOKENS_DEFAULT,
  RECALL_TOKENS_MAX,
  RECALL_TOKENS_MIN,
  UUID_PATTERN,
} from './contract.js'
import {oneOf} from './schemas.js'

const Uuid = Type.String({pattern: UUID_PATTERN})
const Client = Type.String({minLength: 1, maxLength: RECALL_CLIENT_MAX, description: 'The tool asking, e.g. claude-code'})
const Session = Type.String({minLength: 1, maxLength: RECALL_SESSION_MAX, description: "The tool's session id"})

export const RecallBody = Type.Object(
  {
    prompt: Type.String({minLength: 1, maxLength: RECALL_PROMPT_MAX, description: 'What the person asked the agent'}),
    project_id: Type.Optional(Type.Union([Uuid, Type.Null()])),
    max_tokens: Type.Optional(
      Type.Integer({
        minimum: RECALL_TOKENS_MIN,
        maximum: RECALL_TOKENS_MAX,
        default: RECALL_TOKENS_DEFAULT,
        description: 'The whole context, in o200k_base tokens',
      }),
    ),
    client: Type.Optional(Client),
    session: Type.Optional(Session),
  },
  {additionalProperties: false},
)
export type RecallBody = Static<typeof RecallBody>

const RecalledSchema = Type.Object({
  id: Uuid,
  title: Type.String(),
  detail: Type.String({description: 'The detail level it was given at'}),
  score: Type.Union([Type.Number(), Type.Null()]),
  freshness: Type.Union([oneOf(FRESHNESS_STATES), Type.Null()]),
  why: Type.Array(Type.String(), {description: 'The query words it matched'}),
})
export type Recalled = Static<typeof RecalledSchema>

export const RecallResultSchema = Type.Object({
  id: Uuid,
  at: Type.String({format: 'date-time'}),
  context: Type.String({description: 'Ready to give to the agent; empty when nothing relevant was found'}),
  tokens_used: Type.Integer(),
  items: Type.Array(RecalledSchema),
})
export type RecallResult = Static<typeof RecallResultSchema>

/** An entry as a recall record lists it, with what happened to it since. */
const RecordedSchema = Type.Object({
  ...RecalledSchema.properties,
  verified_since: Type.Boolean({description: 'Somebody verified the entry after this recall'}),
  flagged_since: Type.Boolean({description: 'An open flag was raised on the entry after this recall'}),
})

export const RecallRecordSchema = Type.Object(
  {
    id: Uuid,
    at: Type.String({format: 'date-time'}),
    source: oneOf(RECALL_SOURCES),
    client: Type.Union([Type.String(), Type.Null()]),
    session: Type.Union([Type.String(), Type.Null()]),
    query: Type.String({description: 'What was searched for, secrets masked'}),
    items: Type.Array(RecordedSchema),
  },
  {$id: 'Recall'},
)
export type RecallRecord = Static<typeof RecallRecordSchema>

export const RecallsQuery = Type.Object({
  session: Type.Optional(Session),
  limit: Type.Optional(Type.Integer({minimum: 1, maximum: LIMIT_MAX, default: LIMIT_DEFAULT.entries})),
  cursor: Type.Optional(Type.String({maxLength: CURSOR_MAX})),
})
export type RecallsQuery = Static<typeof RecallsQuery>
