/**
 * @module An export: the header line, then projects, then entries with their comments, thought chains,
 * resolutions and fork lineage, read from the store in keyset pages (docs/api.md "Export, import and backup").
 */
import type {Scope} from '../../../src/shared/types.js'
import {nowIso} from '../../lib/ids.js'
import {TimeSlice} from '../../lib/time-slice.js'
import type {Store, Viewer} from '../../store/store.js'
import type {ExportFilter} from '../../store/transfer-store.js'
import {type Caller, isOwner} from '../context.js'
import {lowerUuid} from '../validate.js'
import {EXPORT_KIND, EXPORT_VERSION, type HeaderLine} from './format.js'
import {projectNotFound} from '../not-found.js'

/** Projects or entries read from the store at a time. */
const PAGE = 200
/** The text (bodies, thought chains) of one page of an export, at most, past its first entry. */
const PAGE_CHARS = 256 * 1024

/** The lines of an export of what the caller may see (everything, for the owner), each ending in a newline. */
export async function* exportLines(
  store: Store,
  version: string,
  caller: Caller,
  q: {scope?: Scope; project_id?: string},
): AsyncGenerator<string> {
  const owner = isOwner(caller)
  const viewer: Viewer | null = owner ? null : {principalId: caller.principal.id}
  const filter: ExportFilter = {}
  if (q.scope) filter.scope = q.scope
  if (q.project_id) {
    filter.projectId = lowerUuid(q.project_id)
    const known = owner ? await store.getProject(filter.projectId) : await store.getMemberRole(filter.projectId, caller.principal.id)
    if (!known) throw projectNotFound(filter.projectId)
  }
  const header: HeaderLine = {
    kind: EXPORT_KIND,
    version: EXPORT_VERSION,
    exported_at: nowIso(),
    exported_by: {id: caller.principal.id, name: caller.principal.name},
    server_version: version,
    complete: owner && !filter.scope && !filter.projectId,
    entries: await store.transfer.countExportEntries(viewer, filter),
    ...(filter.scope ? {scope: filter.scope} : {}),
    ...(filter.projectId ? {project_id: filter.projectId} : {}),
  }
  yield `${JSON.stringify(header)}\n`
  // The stream reads ahead (16 chunks) through promises that are already resolved, which lets no I/O in:
  // the pages take turns with other requests here.
  const slice = new TimeSlice()
  for (let after: string | undefined; ;) {
    await slice.pause()
    const projects = await store.transfer.exportProjects(viewer, filter, {limit: PAGE, ...(after ? {after} : {})})
    if (projects.length > 0) yield projects.map((p) => `${JSON.stringify({kind: 'project', ...p})}\n`).join('')
    if (projects.length < PAGE) break
    after = projects.at(-1)!.id
  }
  // Pages of at most about 256 K characters, each read and written out in one turn of the event loop: up to
  // 200 small entries, or a few of 100,000 characters (200 of those were 20 MB and stalled the daemon; pages
  // of a megabyte still held /health 140 ms in `npm run bench:hostile`, these 11 ms).
  for (let after: number | undefined; ;) {
    await slice.pause()
    const page = await store.transfer.exportEntries(viewer, filter, {limit: PAGE, maxChars: PAGE_CHARS, ...(after ? {after} : {})})
    if (page.entries.length > 0) yield page.entries.map((e) => `${JSON.stringify({kind: 'entry', ...e})}\n`).join('')
    if (page.next === undefined) break
    after = page.next
  }
}
