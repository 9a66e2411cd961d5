/**
 * @module The wire schemas of curation (docs/api.md, "History, usage and the review queue"): an entry's history,
 * and the review queue a curator walks.
 */
import {Type, type Static} from '@sinclair/typebox'
import {CURSOR_MAX, HISTORY_ACTIONS, HISTORY_VIAS, LIMIT_MAX, REVIEW_KINDS, UUID_PATTERN} from './contract.js'
import {EntryStandardSchema, oneOf} from './schemas.js'

const Uuid = Type.String({pattern: UUID_PATTERN})
const Cursor = Type.String({minLength: 1, maxLength: CURSOR_MAX, description: 'next_cursor of the previous page'})

const HistoryActorSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  via: oneOf(HISTORY_VIAS, 'Through what the change came'),
  client: Type.Union([Type.String(), Type.Null()], {description: "The API key's name or the OAuth client's name"}),
})

const HistoryItemSchema = Type.Object({
  at: Type.String({format: 'date-time'}),
  action: oneOf(HISTORY_ACTIONS),
  actor: HistoryActorSchema,
  changes: Type.Record(Type.String(), Type.String(), {
    description: 'The fields changed, each with a short description (body as "+N/−M lines"); never the text removed by a redaction',
  }),
  note: Type.Union([Type.String(), Type.Null()]),
})
export type HistoryItem = Static<typeof HistoryItemSchema>

export const HistoryPageSchema = Type.Object({items: Type.Array(HistoryItemSchema), next_cursor: Type.Union([Type.String(), Type.Null()])})
export type HistoryPage = Static<typeof HistoryPageSchema>

export const HistoryQuery = Type.Object(
  {
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Type.Integer({minimum: 1, maximum: LIMIT_MAX, default: 50})),
  },
  {additionalProperties: false},
)
export type HistoryQuery = Static<typeof HistoryQuery>

const ReviewKindSchema = oneOf(REVIEW_KINDS, 'Why an entry is in the review queue')
export const ReviewQuery = Type.Object(
  {
    project_id: Type.Optional(Uuid),
    kind: Type.Optional(ReviewKindSchema),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Type.Integer({minimum: 1, maximum: LIMIT_MAX, default: 20})),
  },
  {additionalProperties: false},
)
export type ReviewQuery = Static<typeof ReviewQuery>

const ReviewCounts = Type.Object(
  Object.fromEntries(REVIEW_KINDS.map((k) => [k, Type.Integer({minimum: 0})])) as Record<
    (typeof REVIEW_KINDS)[number],
    ReturnType<typeof Type.Integer>
  >,
)

const ReviewReasonSchema = Type.Object({
  kind: ReviewKindSchema,
  detail: Type.String(),
  /** For a similar pair: the other entry. */
  other: Type.Optional(Type.Object({id: Uuid, title: Type.String()})),
})
export type ReviewReason = Static<typeof ReviewReasonSchema>

export const ReviewPageSchema = Type.Object({
  counts: ReviewCounts,
  items: Type.Array(Type.Object({entry: EntryStandardSchema, reasons: Type.Array(ReviewReasonSchema)})),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
})
export type ReviewPage = Static<typeof ReviewPageSchema>
export type ReviewCounts = ReviewPage['counts']

/** `POST /knowledge/:id/similar/dismiss`: the two entries of a similar pair are not the same (docs/api.md, "Review queue"). */
export const DismissSimilarBody = Type.Object(
  {other: Type.String({pattern: UUID_PATTERN, description: 'The other entry of the pair (either order)'})},
  {additionalProperties: false},
)
export type DismissSimilarBody = Static<typeof DismissSimilarBody>

export const SimilarDismissedSchema = Type.Object({
  id: Uuid,
  other: Uuid,
  dismissed_at: Type.String({format: 'date-time', description: 'When a person first said they are not the same'}),
})
export type SimilarDismissed = Static<typeof SimilarDismissedSchema>
