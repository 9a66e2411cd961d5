/**
 * @module /projects routes: join or create by git remote, the caller's projects, one project and its settings.
 */
import {Type} from '@sinclair/typebox'
import {LIMIT_DEFAULT} from '../../src/shared/contract.js'
import {JoinResultSchema} from '../../src/shared/schemas.js'
import {operation} from '../http/operation.js'
import type {RouteDef} from '../http/route.js'
import type {ProjectService} from '../services/projects.js'
import type {MembershipService} from '../services/membership.js'
import {JoinPendingSchema} from '../../src/shared/membership-schemas.js'
import {errorResponses} from './common.js'
import {membershipRoutes} from './membership.js'

export function projectRoutes(projects: ProjectService, membership: MembershipService): RouteDef[] {
  const tags = ['projects']
  return [
    operation('joinProject', {
      summary: 'Join the project of a git remote, creating it if new; an existing one may need approval (202)',
      description:
        "A new remote: created, the caller its maintainer (201). An existing project: a member, the owner, the holder of an invitation (by name, or `invitation`: a link's token) and anyone on a daemon run with `--open-projects` enter it (200); anyone else gets a pending join request (202) a maintainer approves or denies.",
      tags,
      auth: true,
      responses: {
        201: {description: 'Created and joined', schema: JoinResultSchema},
        200: {description: 'Joined an existing project', schema: JoinResultSchema},
        202: {description: 'A join request is pending: a maintainer must approve it', schema: JoinPendingSchema},
        ...errorResponses(400, 401, 403, 413, 415, 422),
      },
      handler: async ({caller, body, reply}) => {
        const result = await projects.join(caller, body)
        reply.code('request' in result ? 202 : result.created ? 201 : 200)
        return result
      },
    }),
    operation('listProjects', {
      summary: "The caller's projects",
      tags,
      auth: true,
      responses: {
        200: {
          description: '{items, next_cursor}',
          schema: Type.Object({items: Type.Array(Type.Ref('Project')), next_cursor: Type.Union([Type.String(), Type.Null()])}),
        },
        ...errorResponses(400, 401),
      },
      handler: async ({caller, query}) => projects.list(caller, query.limit ?? LIMIT_DEFAULT.projects, query.cursor),
    }),
    operation('getProject', {
      summary: 'One project with its settings (its members and the owner)',
      tags,
      auth: true,
      responses: {200: {description: 'The project', schema: 'Project'}, ...errorResponses(400, 401, 404)},
      handler: async ({caller, params}) => projects.get(caller, params.id),
    }),
    operation('updateProject', {
      summary: "Change a project's settings (its maintainers or the owner)",
      tags,
      auth: true,
      description: '`verify_after_days`: entries not verified (nor edited) for longer are stale as `unverified`; 0 = never.',
      responses: {200: {description: 'The project', schema: 'Project'}, ...errorResponses(400, 401, 403, 404, 413, 415, 422)},
      handler: async ({caller, params, body}) => projects.patch(caller, params.id, body),
    }),
    ...membershipRoutes(membership),
  ]
}
