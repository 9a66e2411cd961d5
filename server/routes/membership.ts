/**
 * @module /projects/:id membership routes (docs/api.md, "Membership"): members, join requests and their decision,
 * invitations, removing a member, leaving, a member's role.
 */
import {Type} from '@sinclair/typebox'
import {operation} from '../http/operation.js'
import type {RouteDef} from '../http/route.js'
import type {MembershipService} from '../services/membership.js'
import {errorResponses} from './common.js'

const page = (ref: string): ReturnType<typeof Type.Object> =>
  Type.Object({items: Type.Array(Type.Ref(ref)), next_cursor: Type.Null({description: 'Always null: the whole list in one answer'})})

export function membershipRoutes(membership: MembershipService): RouteDef[] {
  const tags = ['projects']
  const decide = (decision: 'approved' | 'denied', verb: 'approve' | 'deny'): RouteDef =>
    operation(`${verb}JoinRequest`, {
      summary: `${verb === 'approve' ? 'Approve a join request: its principal becomes a member' : 'Deny a join request'} (maintainers or the owner)`,
      tags,
      auth: true,
      bodyOptional: true,
      responses: {
        200: {description: 'The request, decided', schema: 'JoinRequest'},
        ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422),
      },
      handler: async ({caller, params}) => membership.decide(caller, params.id, params.request_id, decision),
    })
  return [
    operation('listMembers', {
      summary: "A project's members and their roles (maintainers or the owner)",
      tags,
      auth: true,
      responses: {200: {description: '{items, next_cursor}', schema: page('Member')}, ...errorResponses(400, 401, 403, 404)},
      handler: async ({caller, params}) => membership.members(caller, params.id),
    }),
    operation('listJoinRequests', {
      summary: "A project's pending join requests, oldest first (maintainers or the owner)",
      tags,
      auth: true,
      responses: {200: {description: '{items, next_cursor}', schema: page('JoinRequest')}, ...errorResponses(400, 401, 403, 404)},
      handler: async ({caller, params}) => membership.requests(caller, params.id),
    }),
    decide('approved', 'approve'),
    decide('denied', 'deny'),
    operation('invite', {
      summary: 'Invite a principal by name, or make a one-time invitation link (maintainers or the owner)',
      description: `An invitation lasts 7 days and is used once, when its principal (or the link's holder) joins; a link's token is shown only in this answer.`,
      tags,
      auth: true,
      responses: {201: {description: 'The invitation', schema: 'Invitation'}, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422)},
      handler: async ({caller, params, body, reply}) => {
        const invitation = await membership.invite(caller, params.id, body)
        reply.code(201)
        return invitation
      },
    }),
    operation('removeMember', {
      summary: 'Remove a member (maintainers or the owner; anyone may remove themselves); the only maintainer stays while others remain',
      tags,
      auth: true,
      responses: {204: {description: 'Removed'}, ...errorResponses(400, 401, 403, 404, 409)},
      handler: async ({caller, params, reply}) => {
        await membership.remove(caller, params.id, params.principal_id)
        reply.code(204)
        return null
      },
    }),
    operation('setMemberRole', {
      summary: "Change a member's role (maintainers or the owner); the only maintainer stays one",
      tags,
      auth: true,
      responses: {200: {description: 'The member', schema: 'Member'}, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422)},
      handler: async ({caller, params, body}) => membership.setRole(caller, params.id, params.principal_id, body.role),
    }),
    operation('leaveProject', {
      summary: 'Leave a project; its only maintainer cannot while other members remain',
      tags,
      auth: true,
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
