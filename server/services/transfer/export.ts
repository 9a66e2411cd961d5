/**
 * @module An export: the header line, then projects, then entries with their comments, thought chains,
 * resolutions and fork lineage, read from the store in keyset pages (docs/api.md "Export and import").
 */
import {KbError} from '../../../src/shared/errors.js'
import type {Scope} from '../../../src/shared/types.js'
import {nowIso} from '../../lib/ids.js'
import type {Store, Viewer} from '../../store/store.js'
import type {ExportFilter} from '../../store/transfer-store.js'
import {type Caller, isOwner} from '../context.js'
import {lowerUuid} from '../validate.js'
import {EXPORT_KIND, EXPORT_VERSION, type HeaderLine} from './format.js'

/** Projects or entries read from the store at a time. */
const PAGE = 200

/** The lines of an export of what the caller may see (everything, for the owner), each ending in a newline. */
export async function* exportLines(store: Store, version: string, caller: Caller, q: {scope?: Scope; project_id?: string}): AsyncGenerator<string> {
  const owner = isOwner(caller)
  const viewer: Viewer | null = owner ? null : {principalId: caller.principal.id}
  const filter: ExportFilter = {}
  if (q.scope) filter.scope = q.scope
  if (q.project_id) {
    filter.projectId = lowerUuid(q.project_id)
    const known = owner ? await store.getProject(filter.projectId) : await store.getMemberRole(filter.projectId, caller.principal.id)
    if (!known) throw new KbError('not_found', `project ${filter.projectId} does not exist or you are not a member`)
  }
  const header: HeaderLine = {
    kind: EXPORT_KIND, version: EXPORT_VERSION, exported_at: nowIso(), exported_by: {id: caller.principal.id, name: caller.principal.name},
    server_version: version, complete: owner && !filter.scope && !filter.projectId, entries: await store.transfer.countExportEntries(viewer, filter),
    ...(filter.scope ? {scope: filter.scope} : {}), ...(filter.projectId ? {project_id: filter.projectId} : {}),
  }
  yield `${JSON.stringify(header)}\n`
  for (let after: string | undefined; ;) {
    const projects = await store.transfer.exportProjects(viewer, filter, {limit: PAGE, ...(after ? {after} : {})})
    if (projects.length > 0) yield projects.map((p) => `${JSON.stringify({kind: 'project', ...p})}\n`).join('')
    if (projects.length < PAGE) break
    after = projects.at(-1)!.id
  }
  for (let after: number | undefined; ;) {
    const page = await store.transfer.exportEntries(viewer, filter, {limit: PAGE, ...(after ? {after} : {})})
    if (page.entries.length > 0) yield page.entries.map((e) => `${JSON.stringify({kind: 'entry', ...e})}\n`).join('')
    if (page.next === undefined) break
    after = page.next
  }
}
