/**
 * @module /projects/:id membership routes (docs/api.md, "Membership"): members, join requests and their decision,
 * invitations, removing a member, leaving, a member's role.
 */
import {Type} from '@sinclair/typebox'
import {EmptyBody, InvitationBody, MemberParams, RequestParams, RoleBody} from '../../src/shared/membership-schemas.js'
import {IdParams} from '../../src/shared/schemas.js'
import type {ProjectRole} from '../../src/shared/types.js'
import {route, type RouteDef} from '../http/route.js'
import type {MembershipService} from '../services/membership.js'
import {errorResponses} from './common.js'

const page = (ref: string): ReturnType<typeof Type.Object> =>
  Type.Object({items: Type.Array(Type.Ref(ref)), next_cursor: Type.Null({description: 'Always null: the whole list in one answer'})})

export function membershipRoutes(membership: MembershipService): RouteDef[] {
  const tags = ['projects']
  const decide = (decision: 'approved' | 'denied', verb: 'approve' | 'deny'): RouteDef =>
    route<RequestParams>({
      method: 'POST',
      path: `/projects/:id/requests/:request_id/${verb}`,
      operationId: `${verb}JoinRequest`,
      summary: `${verb === 'approve' ? 'Approve a join request: its principal becomes a member' : 'Deny a join request'} (maintainers or the owner)`,
      tags,
      auth: true,
      params: RequestParams,
      body: EmptyBody,
      bodyOptional: true,
      responses: {
        200: {description: 'The request, decided', schema: 'JoinRequest'},
        ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422),
      },
      handler: async ({caller, params}) => membership.decide(caller, params.id, params.request_id, decision),
    })
  return [
    route<IdParams>({
      method: 'GET',
      path: '/projects/:id/members',
      operationId: 'listMembers',
      summary: "A project's members and their roles (maintainers or the owner)",
      tags,
      auth: true,
      params: IdParams,
      responses: {200: {description: '{items, next_cursor}', schema: page('Member')}, ...errorResponses(400, 401, 403, 404)},
      handler: async ({caller, params}) => membership.members(caller, params.id),
    }),
    route<IdParams>({
      method: 'GET',
      path: '/projects/:id/requests',
      operationId: 'listJoinRequests',
      summary: "A project's pending join requests, oldest first (maintainers or the owner)",
      tags,
      auth: true,
      params: IdParams,
      responses: {200: {description: '{items, next_cursor}', schema: page('JoinRequest')}, ...errorResponses(400, 401, 403, 404)},
      handler: async ({caller, params}) => membership.requests(caller, params.id),
    }),
    decide('approved', 'approve'),
    decide('denied', 'deny'),
    route<IdParams, unknown, InvitationBody>({
      method: 'POST',
      path: '/projects/:id/invitations',
      operationId: 'invite',
      summary: 'Invite a principal by name, or make a one-time invitation link (maintainers or the owner)',
      description: `An invitation lasts 7 days and is used once, when its principal (or the link's holder) joins; a link's token is shown only in this answer.`,
      tags,
      auth: true,
      params: IdParams,
      body: InvitationBody,
      responses: {201: {description: 'The invitation', schema: 'Invitation'}, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422)},
      handler: async ({caller, params, body, reply}) => {
        const invitation = await membership.invite(caller, params.id, body)
        reply.code(201)
        return invitation
      },
    }),
    route<MemberParams>({
      method: 'DELETE',
      path: '/projects/:id/members/:principal_id',
      operationId: 'removeMember',
      summary: 'Remove a member (maintainers or the owner; anyone may remove themselves); the only maintainer stays while others remain',
      tags,
      auth: true,
      params: MemberParams,
      responses: {204: {description: 'Removed'}, ...errorResponses(400, 401, 403, 404, 409)},
      handler: async ({caller, params, reply}) => {
        await membership.remove(caller, params.id, params.principal_id)
        reply.code(204)
        return null
      },
    }),
    route<MemberParams, unknown, {role: ProjectRole}>({
      method: 'PATCH',
      path: '/projects/:id/members/:principal_id',
      operationId: 'setMemberRole',
      summary: "Change a member's role (maintainers or the owner); the only maintainer stays one",
      tags,
      auth: true,
      params: MemberParams,
      body: RoleBody,
      responses: {200: {description: 'The member', schema: 'Member'}, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422)},
      handler: async ({caller, params, body}) => membership.setRole(caller, params.id, params.principal_id, body.role),
    }),
    route<IdParams>({
      method: 'POST',
      path: '/projects/:id/leave',
      operationId: 'leaveProject',
      summary: 'Leave a project; its only maintainer cannot while other members remain',
      tags,
      auth: true,
      params: IdParams,
      body: EmptyBody,
      bodyOptional: true,
      responses: {204: {description: 'Left'}, ...errorResponses(400, 401, 404, 409, 413, 415, 422)},
      handler: async ({caller, params, reply}) => {
        await membership.leave(caller, params.id)
        reply.code(204)
        return null
      },
    }),
  ]
}
