/**
 * @module The wire schemas of project membership (docs/api.md, "Membership"): a join that waits for a maintainer,
 * members, join requests and invitations.
 */
import {Type, type Static} from '@sinclair/typebox'
import {JOIN_REQUEST_STATUSES, PRINCIPAL_NAME_PATTERN, PROJECT_ROLES, UUID_PATTERN} from './contract.js'
import {oneOf, ProjectRoleSchema} from './schemas.js'

const Uuid = Type.String({pattern: UUID_PATTERN})
const Time = Type.String({format: 'date-time'})
const PrincipalRef = Type.Object({id: Uuid, name: Type.String()})

export const JoinRequestSchema = Type.Object(
  {
    id: Uuid,
    project_id: Uuid,
    principal: PrincipalRef,
    status: oneOf(JOIN_REQUEST_STATUSES),
    created_at: Time,
    decided_at: Type.Union([Time, Type.Null()]),
  },
  {$id: 'JoinRequest'},
)
export type JoinRequest = Static<typeof JoinRequestSchema>

/** POST /projects/join of an existing project the caller may not enter yet: a request is recorded, nothing more. */
export const JoinPendingSchema = Type.Object({
  request: Type.Object({id: Uuid, project_id: Uuid, status: Type.Literal('pending'), created_at: Time}),
  project: Type.Object({id: Uuid, name: Type.String()}),
})
export type JoinPending = Static<typeof JoinPendingSchema>

export const MemberSchema = Type.Object({principal: PrincipalRef, role: oneOf(PROJECT_ROLES), joined_at: Time}, {$id: 'Member'})
export type Member = Static<typeof MemberSchema>

export const InvitationBody = Type.Union(
  [
    Type.Object(
      {principal: Type.String({pattern: PRINCIPAL_NAME_PATTERN, description: 'Invite this principal (a name)'})},
      {additionalProperties: false},
    ),
    Type.Object(
      {link: Type.Literal(true, {description: 'Make a one-time link instead: a token anyone holding it may use once'})},
      {additionalProperties: false},
    ),
  ],
  {description: 'Either a principal to invite, or link: true'},
)
export type InvitationBody = Static<typeof InvitationBody>

export const InvitationSchema = Type.Object(
  {
    id: Uuid,
    project_id: Uuid,
    principal: Type.Union([PrincipalRef, Type.Null()], {description: 'null for a link'}),
    created_at: Time,
    expires_at: Time,
    token: Type.Optional(Type.String({description: "A link's token, shown only here: `kb project join --invitation <token>`"})),
  },
  {$id: 'Invitation'},
)
export type Invitation = Static<typeof InvitationSchema>

export const MemberParams = Type.Object({id: Uuid, principal_id: Uuid})
export type MemberParams = Static<typeof MemberParams>
export const RequestParams = Type.Object({id: Uuid, request_id: Uuid})
export type RequestParams = Static<typeof RequestParams>
/** `POST` of a decision or of leaving: nothing to send, and nothing else is accepted. */
export const EmptyBody = Type.Object({}, {additionalProperties: false})
export const RoleBody = Type.Object({role: ProjectRoleSchema}, {additionalProperties: false})
export type RoleBody = Static<typeof RoleBody>
