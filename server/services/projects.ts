/**
 * @module Projects: join-or-create by git remote (canonicalised as in docs/api.md, "Canonical remotes"), the caller's list,
 * one project and its settings (`verify_after_days`: docs/api.md, "Projects").
 */
import {KbError} from '../../src/shared/errors.js'
import {canonicalRemote, remoteName} from '../../src/shared/remote.js'
import {VERIFY_AFTER_DAYS_DEFAULT} from '../../src/shared/contract.js'
import type {JoinProjectBody, ProjectSettingsBody} from '../../src/shared/schemas.js'
import type {JoinResult, Page, Project, ProjectRole} from '../../src/shared/types.js'
import {nowIso, uuidv7} from '../lib/ids.js'
import type {ProjectRow, Store} from '../store/store.js'
import type {JoinPending} from '../../src/shared/membership-schemas.js'
import {type Caller, isOwner} from './context.js'
import type {MembershipService} from './membership.js'
import {lowerUuid} from './validate.js'
import {projectNotFound} from './not-found.js'

export class ProjectService {
  constructor(
    private readonly store: Store,
    private readonly membership: MembershipService,
  ) {}

  /**
   * A new remote makes a project with the caller as maintainer (201); an existing project is entered as
   * docs/api.md, "Membership" says (200), or a join request is recorded (202, JoinPending).
   */
  async join(caller: Caller, input: JoinProjectBody): Promise<JoinResult | JoinPending> {
    const remote = canonicalRemote(input.remote)
    if (!remote) {
      throw new KbError('validation_failed', `remote "${input.remote}" is not a git remote URL (e.g. git@github.com:acme/api.git)`, {
        errors: [{path: 'remote', message: 'not a git remote URL with a host and a path'}],
      })
    }
    const name = input.name?.trim() || remoteName(remote)
    const at = nowIso()
    const {project, created} = await this.store.createProject({
      id: uuidv7(),
      name,
      remote,
      created_by: caller.principal.id,
      created_at: at,
      verify_after_days: VERIFY_AFTER_DAYS_DEFAULT,
    })
    let role = created ? 'maintainer' : await this.store.getMemberRole(project.id, caller.principal.id)
    if (role === null) {
      const pending = await this.membership.enter(caller, project, input.invitation)
      if (pending) return pending
      role = (await this.store.getMemberRole(project.id, caller.principal.id)) ?? 'member'
    }
    return {project: toProject(project, role), created}
  }

  /** A project its members and the owner may read (the owner, not a member, reads it as a maintainer); else 404. */
  async get(caller: Caller, id: string): Promise<Project> {
    const {project, role} = await this.reachable(caller, id)
    return toProject(project, role)
  }

  /** Changes a project's settings: its maintainers or the owner (403 for a member, 404 for anyone else). */
  async patch(caller: Caller, id: string, input: ProjectSettingsBody): Promise<Project> {
    const {project, role, member} = await this.reachable(caller, id)
    if (member !== 'maintainer' && !isOwner(caller))
      throw new KbError('forbidden', `only a maintainer of project ${project.name} or the owner may change its settings`)
    const changed = await this.store.updateProject(project.id, {
      ...(input.verify_after_days === undefined ? {} : {verify_after_days: input.verify_after_days}),
    })
    if (!changed) throw projectNotFound(project.id)
    return toProject(changed, role)
  }

  private async reachable(caller: Caller, id: string): Promise<{project: ProjectRow; role: ProjectRole; member: ProjectRole | null}> {
    const projectId = lowerUuid(id)
    const [project, member] = await Promise.all([
      this.store.getProject(projectId),
      this.store.getMemberRole(projectId, caller.principal.id),
    ])
    if (!project || (member === null && !isOwner(caller))) throw projectNotFound(projectId)
    return {project, role: member ?? 'maintainer', member}
  }

  async list(caller: Caller, limit: number, cursor?: string): Promise<Page<Project>> {
    const rows = await this.store.listProjects(caller.principal.id, {limit: limit + 1, ...(cursor ? {after: cursor} : {})})
    const page = rows.slice(0, limit)
    return {items: page.map((r) => toProject(r, r.role)), next_cursor: rows.length > limit ? page.at(-1)!.id : null}
  }
}

function toProject(p: ProjectRow, role: ProjectRole): Project {
  return {id: p.id, name: p.name, remote: p.remote, created_at: p.created_at, role, verify_after_days: p.verify_after_days}
}
