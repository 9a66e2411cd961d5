/**
 * @module The entries `kb check` looks at: every anchored entry of the project for a full check; for
 * `--changed-in`, only those the anchor index (index-cache.ts) places on a touched file, read afresh.
 */
import type {ApiClient} from '../../shared/client.js'
import {LIMIT_MAX} from '../../shared/contract.js'
import {KbError} from '../../shared/errors.js'
import type {EntryStandard, Page} from '../../shared/types.js'
import {entriesOn, indexPath, readIndex, writeIndex, type AnchorIndex} from './index-cache.js'

/** How many reads are in flight at once. */
const PARALLEL = 8

/** The project's entries, newest-updated first: all of them, or (`below`) down to the first page reaching an older one. */
async function listProject(client: ApiClient, projectId: string, below: string | null): Promise<EntryStandard[]> {
  const out: EntryStandard[] = []
  // A refresh usually finds nothing new: a small first page answers it.
  let limit = below === null ? LIMIT_MAX : 10
  let cursor: string | null = null
  do {
    const page = (await client.listEntries({
      project_id: projectId,
      detail: 'standard',
      limit,
      ...(cursor ? {cursor} : {}),
    })) as Page<EntryStandard>
    out.push(...page.items)
    if (below !== null && page.items.some((e) => e.updated_at < below)) break
    cursor = page.next_cursor
    limit = LIMIT_MAX
  } while (cursor)
  return out
}

const pathsOf = (e: EntryStandard): string[] => [...new Set((e.anchors ?? []).map((a) => a.path))]
const isAnchored = (e: EntryStandard, projectId: string): boolean => e.project_id === projectId && (e.anchors?.length ?? 0) > 0

/** Records `e` in the index (or drops it when it has no anchors here any more). */
export function remember(index: AnchorIndex, e: EntryStandard): void {
  if (isAnchored(e, index.project_id)) index.entries[e.id] = pathsOf(e)
  else delete index.entries[e.id]
}

const newest = (items: EntryStandard[], high: string | null): string | null =>
  items.reduce<string | null>((m, e) => (m === null || e.updated_at > m ? e.updated_at : m), high)

export interface Gathered {
  entries: EntryStandard[]
  index: AnchorIndex
  /** Where the index is kept; `save` writes it there. */
  save: () => void
}

/**
 * The entries to check, each with only its anchors on `touched` paths when given (null: every anchor of
 * every anchored entry of the project).
 */
export async function gather(
  client: ApiClient,
  o: {baseUrl: string; projectId: string; gitDir: string; touched: Set<string> | null},
): Promise<Gathered> {
  const file = indexPath(o.gitDir, o.baseUrl, o.projectId)
  let index = o.touched === null ? null : readIndex(file, o.baseUrl, o.projectId)
  const fresh = new Map<string, EntryStandard>()
  if (index === null) {
    const items = await listProject(client, o.projectId, null)
    index = {v: 1, base_url: o.baseUrl, project_id: o.projectId, high: newest(items, null), entries: {}}
    for (const e of items) {
      if (!isAnchored(e, o.projectId)) continue
      remember(index, e)
      fresh.set(e.id, e)
    }
  } else {
    const items = await listProject(client, o.projectId, index.high)
    for (const e of items) {
      remember(index, e)
      if (isAnchored(e, o.projectId)) fresh.set(e.id, e)
    }
    index.high = newest(items, index.high)
    // What the index places on a touched file but the refresh did not bring: read afresh (a check or a
    // verification changes anchors without moving an entry up the list).
    const want = entriesOn(index, o.touched!).filter((id) => !fresh.has(id))
    let next = 0
    const worker = async (): Promise<void> => {
      while (next < want.length) {
        const id = want[next++]!
        try {
          const e = (await client.getEntry(id, 'standard')).entry as EntryStandard
          remember(index!, e)
          if (isAnchored(e, o.projectId)) fresh.set(id, e)
        } catch (err) {
          if (!(err instanceof KbError && err.code === 'not_found')) throw err
          delete index!.entries[id]
        }
      }
    }
    await Promise.all(Array.from({length: Math.min(PARALLEL, want.length)}, worker))
  }
  const entries: EntryStandard[] = []
  for (const e of fresh.values()) {
    const anchors = o.touched ? e.anchors.filter((a) => o.touched!.has(a.path)) : e.anchors
    if (anchors.length > 0) entries.push({...e, anchors})
  }
  const kept = index
  return {entries, index: kept, save: () => writeIndex(file, kept)}
}
