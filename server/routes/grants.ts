/**
 * @module /oauth/grants routes: the caller's OAuth grants (which applications may act as them), and revoking one.
 */
import {Type} from '@sinclair/typebox'
import {operation} from '../http/operation.js'
import type {RouteDef} from '../http/route.js'
import {KbError} from '../../src/shared/errors.js'
import type {GrantService} from '../oauth/grants.js'
import type {WebSessions} from '../web/sessions.js'
import {errorResponses} from './common.js'

/** The caller's OAuth grants and web-view sessions (docs/web.md, "Sessions"): both are listed and revoked here. */
export function grantRoutes(grants: GrantService, sessions: WebSessions): RouteDef[] {
  const tags = ['oauth']
  return [
    operation('listGrants', {
      summary: "The caller's standing OAuth grants, then web-view sessions (client_id kb-web), newest first",
      tags,
      auth: true,
      responses: {
        200: {description: '{items, next_cursor}', schema: Type.Object({items: Type.Array(Type.Ref('Grant')), next_cursor: Type.Null()})},
        ...errorResponses(401),
      },
      handler: async ({caller}) => ({items: [...(await grants.list(caller)), ...(await sessions.listAsGrants(caller))], next_cursor: null}),
    }),
    operation('revokeGrant', {
      summary: "Revoke one of the caller's grants with all its tokens, or end one of its web-view sessions",
      tags,
      auth: true,
      responses: {204: {description: 'Revoked'}, ...errorResponses(400, 401, 404)},
      handler: async ({caller, params, reply}) => {
        try {
          await grants.revoke(caller, params.id)
        } catch (e) {
          if (!(e instanceof KbError && e.code === 'not_found') || !(await sessions.revoke(caller, params.id))) throw e
        }
        reply.code(204)
        return null
      },
    }),
  ]
}
