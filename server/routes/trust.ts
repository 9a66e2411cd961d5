/**
 * @module /knowledge/:id trust routes (docs/api.md, "Anchors, freshness, verify and flags"): verify, flags and
 * anchor checks. Any principal that can see the entry may use them; none bumps `version`.
 */
import type {EntryFull} from '../../src/shared/types.js'
import {operation} from '../http/operation.js'
import type {RouteDef} from '../http/route.js'
import type {TrustService} from '../services/trust.js'
import {errorResponses} from './common.js'

const ENTRY = 'Entry'
const tags = ['knowledge']
const NOTE =
  'A note on an entry in project or global scope is scanned as a comment is (docs/api.md, "Safe publish"): a finding ' +
  'refuses the request with 422 sensitive_content (leave the secret out of the note).'

export function trustRoutes(trust: TrustService): RouteDef[] {
  const withEtag = (reply: {header: (k: string, v: string) => unknown}, e: EntryFull): EntryFull => {
    reply.header('ETag', `"${e.version}"`)
    return e
  }
  return [
    operation('verifyEntry', {
      summary: 'Say the entry still holds: sets verified_at/by, re-bases the anchors sent, withdraws your own flag',
      tags,
      auth: true,
      description: `Does not bump \`version\`; a note is added as a comment ("Verified: …"). ${NOTE}`,
      bodyOptional: true,
      responses: {200: {description: 'The entry at full detail', schema: ENTRY}, ...errorResponses(400, 401, 404, 413, 415, 422)},
      handler: async ({caller, params, body, reply}) => withEtag(reply, await trust.verify(caller, params.id, body ?? {})),
    }),
    operation('flagEntry', {
      summary: 'Flag the entry (one open flag per principal; a repeat replaces it)',
      tags,
      auth: true,
      description: `\`duplicate_of\` only with reason \`duplicate\`, naming an entry you can see. ${NOTE}`,
      responses: {
        201: {description: 'Flagged: the entry at full detail', schema: ENTRY},
        200: {description: 'Your open flag replaced: the entry at full detail', schema: ENTRY},
        ...errorResponses(400, 401, 404, 413, 415, 422),
      },
      handler: async ({caller, params, body, reply}) => {
        const {entry, created} = await trust.flag(caller, params.id, body)
        reply.code(created ? 201 : 200)
        return withEtag(reply, entry)
      },
    }),
    operation('withdrawFlag', {
      summary: 'Withdraw your open flag (idempotent: none open answers the entry as it is)',
      tags,
      auth: true,
      responses: {200: {description: 'The entry at full detail', schema: ENTRY}, ...errorResponses(400, 401, 404)},
      handler: async ({caller, params, reply}) => withEtag(reply, await trust.withdrawFlag(caller, params.id)),
    }),
    operation('checkAnchors', {
      summary: 'Report what a checkout found of the entry\u2019s anchors (changed, moved, deleted, current)',
      tags,
      auth: true,
      description: 'Results are matched to anchors by path, lines and symbol; unmatched ones are ignored. Does not bump `version`.',
      responses: {200: {description: 'The entry at full detail', schema: ENTRY}, ...errorResponses(400, 401, 404, 413, 415, 422)},
      handler: async ({caller, params, body, reply}) => withEtag(reply, await trust.checkAnchors(caller, params.id, body)),
    }),
  ]
}
