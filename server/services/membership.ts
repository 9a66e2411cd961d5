/**
 * @module Project membership (docs/api.md, "Membership"): who may enter an existing project — a member already, the
 * owner, anyone on a daemon run with `--open-projects`, the holder of an invitation — and, for everyone else, a join
 * request a maintainer approves or denies; members listed, invited, removed, leaving, their roles changed.
 */
import {INVITATION_DAYS} from '../../src/shared/contract.js'
import {KbError} from '../../src/shared/errors.js'
import type {Invitation, InvitationBody, JoinPending, JoinRequest, Member} from '../../src/shared/membership-schemas.js'
import type {ProjectRole} from '../../src/shared/types.js'
import {nowIso, randomBase62, sha256Hex, uuidv7} from '../lib/ids.js'
import type {JoinRequestRow, MemberRow, RemoveOutcome} from '../store/membership-store.js'
import type {ProjectRow, Store} from '../store/store.js'
import {type Caller, isOwner} from './context.js'
import {lowerUuid} from './validate.js'
import {projectNotFound} from './not-found.js'

const DAY_MS = 86_400_000
const TOKEN_PREFIX = 'kbinv_'

export interface MembershipOptions {
  /** `kb daemon run --open-projects`: anyone who knows a remote joins its project, as before membership. */
  openProjects?: boolean
}

export class MembershipService {
  constructor(
    private readonly store: Store,
    private readonly options: MembershipOptions = {},
  ) {}

  /**
   * Lets the caller into an existing project they are not a member of, or records their request: the owner (with
   * an API key) and everyone on an open daemon enter; an invitation (a link's token, or one by name) is used; else
   * a pending request, one per principal and project. Returns null when the caller entered.
   */
  async enter(caller: Caller, project: ProjectRow, invitation: string | undefined): Promise<JoinPending | null> {
    const at = nowIso()
    if (isOwner(caller) || this.options.openProjects) {
      await this.store.addMember(project.id, caller.principal.id, 'member', at)
      return null
    }
    const me = caller.principal.id
    if (invitation !== undefined) {
      if (await this.store.members.accept({projectId: project.id, principalId: me, tokenHash: sha256Hex(invitation), at})) return null
      throw new KbError('forbidden', `the invitation is not valid for project ${project.name}: unknown, already used or expired`)
    }
    if (await this.store.members.accept({projectId: project.id, principalId: me, tokenHash: null, at})) return null
    const row = await this.store.members.request({
      id: uuidv7(),
      project_id: project.id,
      principal_id: me,
      status: 'pending',
      created_at: at,
      decided_at: null,
      decided_by: null,
    })
    return {
      request: {id: row.id, project_id: row.project_id, status: 'pending', created_at: row.created_at},
      project: {id: project.id, name: project.name},
    }
  }

  async members(caller: Caller, id: string): Promise<{items: Member[]; next_cursor: null}> {
    const project = await this.managed(caller, id)
    return {items: (await this.store.members.list(project.id)).map(toMember), next_cursor: null}
  }

  async requests(caller: Caller, id: string): Promise<{items: JoinRequest[]; next_cursor: null}> {
    const project = await this.managed(caller, id)
    return {items: (await this.store.members.pending(project.id)).map(toRequest), next_cursor: null}
  }

  async decide(caller: Caller, id: string, requestId: string, decision: 'approved' | 'denied'): Promise<JoinRequest> {
    const project = await this.managed(caller, id)
    const rid = lowerUuid(requestId)
    const decided = await this.store.members.decide(project.id, rid, decision, caller.principal.id, nowIso())
    if (decided) return toRequest(decided)
    const row = await this.store.members.getRequest(project.id, rid)
    if (!row) throw new KbError('not_found', `project ${project.name} has no join request ${rid}`)
    throw new KbError('conflict', `join request ${rid} of ${row.principal_name} was already ${row.status}`)
  }

  async invite(caller: Caller, id: string, body: InvitationBody): Promise<Invitation> {
    const project = await this.managed(caller, id)
    const now = Date.now()
    const base = {
      id: uuidv7(now),
      project_id: project.id,
      created_by: caller.principal.id,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + INVITATION_DAYS * DAY_MS).toISOString(),
      used_at: null,
      used_by: null,
    }
    const out = {id: base.id, project_id: project.id, created_at: base.created_at, expires_at: base.expires_at}
    if ('link' in body) {
      const token = TOKEN_PREFIX + randomBase62(43)
      await this.store.members.insertInvitation({...base, principal_id: null, token_hash: sha256Hex(token)})
      return {...out, principal: null, token}
    }
    const invitee = await this.store.getPrincipalByName(body.principal)
    if (!invitee) {
      throw new KbError('not_found', `no principal is named ${body.principal}`, {
        errors: [{path: 'principal', message: 'unknown principal'}],
      })
    }
    if ((await this.store.getMemberRole(project.id, invitee.id)) !== null)
      throw new KbError('conflict', `${invitee.name} is already a member of project ${project.name}`)
    await this.store.members.insertInvitation({...base, principal_id: invitee.id, token_hash: null})
    return {...out, principal: {id: invitee.id, name: invitee.name}}
  }

  /** Removes a member (maintainers and the owner; anyone may remove themselves, as leaving). */
  async remove(caller: Caller, id: string, principalId: string): Promise<void> {
    const pid = lowerUuid(principalId)
    const project = pid === caller.principal.id ? await this.reachable(caller, id) : await this.managed(caller, id)
    refuse(await this.store.members.remove(project.id, pid), project, pid === caller.principal.id)
  }

  async leave(caller: Caller, id: string): Promise<void> {
    const project = await this.reachable(caller, id)
    refuse(await this.store.members.remove(project.id, caller.principal.id), project, true)
  }

  async setRole(caller: Caller, id: string, principalId: string, role: ProjectRole): Promise<Member> {
    const project = await this.managed(caller, id)
    const pid = lowerUuid(principalId)
    const outcome = await this.store.members.setRole(project.id, pid, role)
    if (outcome === 'not_member') throw new KbError('not_found', `${pid} is not a member of project ${project.name}`)
    if (outcome === 'last_maintainer')
      throw new KbError('conflict', `the only maintainer of project ${project.name} stays one: make another member maintainer first`)
    return toMember(outcome)
  }

  /** A project the caller belongs to (the owner reaches every one); else 404, as for a project that does not exist. */
  private async reachable(caller: Caller, id: string): Promise<ProjectRow> {
    const projectId = lowerUuid(id)
    const [project, role] = await Promise.all([this.store.getProject(projectId), this.store.getMemberRole(projectId, caller.principal.id)])
    if (!project || (role === null && !isOwner(caller))) throw projectNotFound(projectId)
    return project
  }

  /** A project the caller maintains, or any for the owner: 403 for a member, 404 for anyone else. */
  private async managed(caller: Caller, id: string): Promise<ProjectRow> {
    const project = await this.reachable(caller, id)
    if (isOwner(caller)) return project
    if ((await this.store.getMemberRole(project.id, caller.principal.id)) !== 'maintainer')
      throw new KbError('forbidden', `only a maintainer of project ${project.name} or the owner may manage its members`)
    return project
  }
}

function refuse(outcome: RemoveOutcome, project: ProjectRow, self: boolean): void {
  if (outcome === 'not_member')
    throw new KbError('not_found', `${self ? 'you are' : 'that principal is'} not a member of project ${project.name}`)
  if (outcome === 'last_maintainer') {
    throw new KbError(
      'conflict',
      `${self ? 'you are' : 'that is'} the only maintainer of project ${project.name} and other members remain: make another member maintainer first`,
    )
  }
}

function toMember(m: MemberRow): Member {
  return {principal: {id: m.principal_id, name: m.principal_name}, role: m.role, joined_at: m.created_at}
}

function toRequest(r: JoinRequestRow): JoinRequest {
  return {
    id: r.id,
    project_id: r.project_id,
    principal: {id: r.principal_id, name: r.principal_name},
    status: r.status,
    created_at: r.created_at,
    decided_at: r.decided_at,
  }
}
