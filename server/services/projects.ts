/**
 * @module Projects: join-or-create by git remote (canonicalised as in docs/api.md, "Canonical remotes") and the caller's list.
 */
import {KbError} from '../../src/shared/errors.js'
import {canonicalRemote, remoteName} from '../../src/shared/remote.js'
import type {JoinProjectBody} from '../../src/shared/schemas.js'
import type {JoinResult, Page, Project, ProjectRole} from '../../src/shared/types.js'
import {nowIso, uuidv7} from '../lib/ids.js'
import type {ProjectRow, Store} from '../store/store.js'
import type {Caller} from './context.js'

export class ProjectService {
  constructor(private readonly store: Store) {}

  async join(caller: Caller, input: JoinProjectBody): Promise<JoinResult> {
    const remote = canonicalRemote(input.remote)
    if (!remote) {
      throw new KbError('validation_failed', `remote "${input.remote}" is not a git remote URL (e.g. git@github.com:acme/api.git)`, {
        errors: [{path: 'remote', message: 'not a git remote URL with a host and a path'}],
      })
    }
    const name = input.name?.trim() || remoteName(remote)
    const at = nowIso()
    const {project, created} = await this.store.createProject({id: uuidv7(), name, remote, created_by: caller.principal.id, created_at: at})
    if (!created) await this.store.addMember(project.id, caller.principal.id, 'member', at)
    const role = (await this.store.getMemberRole(project.id, caller.principal.id)) ?? 'member'
    return {project: toProject(project, role), created}
  }

  async list(caller: Caller, limit: number, cursor?: string): Promise<Page<Project>> {
    const rows = await this.store.listProjects(caller.principal.id, {limit: limit + 1, ...(cursor ? {after: cursor} : {})})
    const page = rows.slice(0, limit)
    return {items: page.map((r) => toProject(r, r.role)), next_cursor: rows.length > limit ? page.at(-1)!.id : null}
  }
}

function toProject(p: ProjectRow, role: ProjectRole): Project {
  return {id: p.id, name: p.name, remote: p.remote, created_at: p.created_at, role}
}
