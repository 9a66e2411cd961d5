/**
 * @module /knowledge/:id curation routes (docs/api.md, "Supersede and merge"): supersede, merge, and dismissing a
 * similar pair of the review queue. The entry's author, the owner or a maintainer of its project may use them.
 */
import {SimilarDismissedSchema} from '../../src/shared/curation-schemas.js'
import type {EntryFull} from '../../src/shared/types.js'
import {operation} from '../http/operation.js'
import type {RouteDef} from '../http/route.js'
import type {CurationService} from '../services/curation.js'
import {errorResponses} from './common.js'

const ENTRY = 'Entry'
const tags = ['knowledge']

export function curationRoutes(curation: CurationService): RouteDef[] {
  const withEtag = (reply: {header: (k: string, v: string) => unknown}, e: EntryFull): EntryFull => {
    reply.header('ETag', `"${e.version}"`)
    return e
  }
  return [
    operation('supersedeEntry', {
      summary: 'Mark the entry replaced by another one: it leaves search and list (include=superseded brings it back)',
      tags,
      auth: true,
      description:
        'The author, the owner or a maintainer of its project; `by` must be an entry you can see, not this one, and not ' +
        'replaced (through its chain) by this one (422). `by: null` withdraws it. A note is added as a comment. Bumps `version`.',
      responses: {200: {description: 'The entry at full detail', schema: ENTRY}, ...errorResponses(400, 401, 403, 404, 413, 415, 422)},
      handler: async ({caller, params, body, reply}) => withEtag(reply, await curation.supersede(caller, params.id, body)),
    }),
    operation('mergeEntry', {
      summary: 'Merge the entry into another: its comments and tags carried over, then superseded by it',
      tags,
      auth: true,
      description:
        'The caller must be allowed to supersede both entries (author, owner or project maintainer). Each comment is copied ' +
        'onto `into` as a comment of the caller that names its origin; a comment on each entry records the merge.',
      responses: {
        200: {description: 'The entry merged into, at full detail', schema: ENTRY},
        ...errorResponses(400, 401, 403, 404, 413, 415, 422),
      },
      handler: async ({caller, params, body, reply}) => withEtag(reply, await curation.merge(caller, params.id, body)),
    }),
    operation('dismissSimilar', {
      summary: 'Say that the entry and `other`, found alike when one was written, are not the same: the pair leaves the review queue',
      tags,
      auth: true,
      description:
        'Both entries must be visible to you (404) and you must be allowed to supersede one of them (403). A pair never ' +
        'found is 404; dismissing one again answers the first dismissal. Neither entry changes.',
      responses: {
        200: {description: '{id, other, dismissed_at}', schema: SimilarDismissedSchema},
        ...errorResponses(400, 401, 403, 404, 413, 415, 422),
      },
      handler: async ({caller, params, body}) => curation.dismissSimilar(caller, params.id, body),
    }),
  ]
}
