/**
 * @module GET /ids/{ref} (docs/api.md, "Short ids"): the one entry a whole id, the start of one or the end of one names.
 */
import {IdResolvedSchema} from '../../src/shared/id-schemas.js'
import {operation} from '../http/operation.js'
import type {RouteDef} from '../http/route.js'
import type {IdService} from '../services/ids.js'
import {errorResponses} from './common.js'

export function idRoutes(ids: IdService): RouteDef[] {
  return [
    operation('resolveId', {
      tags: ['knowledge'],
      auth: true,
      summary: 'The entry a short id names: a whole id, or at least 4 hex digits of its start or of its end',
      description:
        'Only entries the caller may see are candidates. Several: 409 `ambiguous_id`, whose `candidates` lists them ' +
        '(`id`, `short_id`, `title`); none: 404; under 4 digits or not hexadecimal: 400.',
      responses: {200: {description: '{id, short_id}', schema: IdResolvedSchema}, ...errorResponses(400, 401, 404, 409)},
      handler: async ({caller, params}) => ids.resolve(caller, params.ref),
    }),
  ]
}
