/**
 * @module The schemas of `GET /ids/{ref}` (docs/api.md, "Short ids"): a short form read as the one entry it names.
 */
import {Type, type Static} from '@sinclair/typebox'
import {ID_REF_MAX, SHORT_ID_MIN} from './contract.js'
import {Uuid} from './schemas.js'

/** What names an entry where a short id is accepted (docs/api.md, "Short ids"); its reading is short-id.ts `readIdRef`. */
export const IdRefSchema = Type.String({
  minLength: 1,
  maxLength: ID_REF_MAX,
  description: 'A whole entry id, or the start or the end of one (hex digits; hyphens ignored)',
  examples: ['2d4c5b6a7980', '0193a7e2'],
})

export const IdRefParams = Type.Object({ref: IdRefSchema})
export type IdRefParams = Static<typeof IdRefParams>

const ShortId = Type.String({
  minLength: SHORT_ID_MIN,
  description: "The id's short form: the end of its hex digits, as long as this server's entries need to end apart",
})

/** One of the `candidates` of a 409 `ambiguous_id` problem. */
export interface IdCandidate {
  id: string
  short_id: string
  title: string
}

export const IdResolvedSchema = Type.Object({id: Uuid, short_id: ShortId})
export type IdResolved = Static<typeof IdResolvedSchema>
