/**
 * @module What the `kb project` membership commands share (docs/cli.md, "Project members"): the project they act on,
 * principals and join requests named by name or id, and their tables (≤ 80 columns).
 */
import type {ApiClient} from '../../shared/client.js'
import {KbError} from '../../shared/errors.js'
import type {JoinRequest, Member} from '../../shared/membership-schemas.js'
import {dim, renderTable, time, type OutputMode} from '../output/format.js'
import {isUuid} from './project.js'

/** The project id a membership command acts on, or a not_found that says how to name one. */
export function requireProject(id: string | null): string {
  if (id === null)
    throw new KbError('not_found', 'no project here: run this in a checkout of the project (after `kb project join`), or pass --project')
  return id
}

/** The principal id of a member named by name or id. */
export async function memberIdOf(client: ApiClient, projectId: string, who: string): Promise<Member> {
  const members = await client.listMembers(projectId)
  const found = members.find((m) => m.principal.name === who || m.principal.id === who.toLowerCase())
  if (!found) throw new KbError('not_found', `${who} is not a member of this project (see \`kb project members\`)`)
  return found
}

/** The id of a pending join request, named by its id or by its principal's name or id. */
export async function requestIdOf(client: ApiClient, projectId: string, ref: string): Promise<string> {
  const pending = await client.listJoinRequests(projectId)
  const lower = ref.toLowerCase()
  const found = pending.find((r) => r.id === lower || r.principal.id === lower || r.principal.name === ref)
  if (found) return found.id
  // An id that is no longer pending is the server's to explain (decided already: 409; unknown: 404).
  if (isUuid(ref)) return lower
  throw new KbError('not_found', `no pending join request of ${ref} (see \`kb project requests\`)`)
}

export function memberRows(items: Member[], mode: OutputMode): string {
  return renderTable(
    [{header: 'NAME', flex: true}, {header: 'ROLE'}, {header: 'JOINED', drop: 1}, {header: 'ID', color: dim}],
    items.map((m) => [m.principal.name, m.role, time(m.joined_at, mode), m.principal.id]),
    mode,
  )
}

export function requestRows(items: JoinRequest[], mode: OutputMode): string {
  return renderTable(
    [{header: 'REQUEST', color: dim}, {header: 'NAME', flex: true}, {header: 'ASKED'}],
    items.map((r) => [r.id, r.principal.name, time(r.created_at, mode)]),
    mode,
  )
}
