/**
 * @module The entries `kb check` looks at: every anchored entry of the project for a full check; for
 * `--changed-in`, those the anchor index (index-cache.ts) places on a touched file, as it last saw them —
 * with `reread` to fetch afresh the few whose check has news before anything is reported.
 */
import type {ApiClient} from '../../shared/client.js'
import {LIMIT_MAX} from '../../shared/contract.js'
import {KbError} from '../../shared/errors.js'
import type {EntryStandard, Page} from '../../shared/types.js'
import {entriesOn, indexPath, readIndex, writeIndex, type AnchorIndex} from './index-cache.js'

/** How many reads are in flight at once. */
const PARALLEL = 8

/** What `kb check` needs of an entry. */
export interface CheckEntry {
  id: string
  title: string
  freshness: string | null
  anchors: EntryStandard['anchors']
}

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

const isAnchored = (e: EntryStandard, projectId: string): boolean => e.project_id === projectId && (e.anchors?.length ?? 0) > 0
const stateOf = (e: EntryStandard): string | null => (typeof e.freshness === 'string' ? e.freshness : (e.freshness?.state ?? null))

/** Records `e` as the server answered it (or drops it when it has no anchors here any more); marks the index changed. */
export function remember(index: AnchorIndex, e: EntryStandard): void {
  if (!isAnchored(e, index.project_id)) {
    if (index.entries[e.id]) dirty.add(index)
    delete index.entries[e.id]
    return
  }
  // Only what a check reads: the index is parsed by every hook run, so it stays small.
  const anchors = e.anchors.map((a) => ({...a, moved_to: null, checked_at: null}))
  const next = {title: e.title, freshness: stateOf(e), anchors}
  if (JSON.stringify(index.entries[e.id]) !== JSON.stringify(next)) dirty.add(index)
  index.entries[e.id] = next
}

/** Indexes changed during this run: only those are written back. */
const dirty = new WeakSet<AnchorIndex>()

const newest = (items: EntryStandard[], high: string | null): string | null =>
  items.reduce<string | null>((m, e) => (m === null || e.updated_at > m ? e.updated_at : m), high)

export interface Gathered {
  entries: CheckEntry[]
  /** The ids whose copy is as the server has it now (read during this run). */
  fresh: Set<string>
  index: AnchorIndex
  /** Reads entries afresh (each with only its anchors on the touched paths); ones gone are dropped from the index. */
  reread: (ids: string[]) => Promise<CheckEntry[]>
  save: () => void
}

/** Only the anchors on `touched` (all when null); null when none is left. */
function narrowed(
  id: string,
  e: {title: string; freshness: string | null; anchors: CheckEntry['anchors']},
  touched: Set<string> | null,
): CheckEntry | null {
  const anchors = touched ? e.anchors.filter((a) => touched.has(a.path)) : e.anchors
  return anchors.length > 0 ? {id, title: e.title, freshness: e.freshness, anchors} : null
}

/**
 * The entries to check, each with only its anchors on `touched` paths when given (null: every anchor of
 * every anchored entry of the project, read from the server).
 */
export async function gather(
  client: ApiClient,
  o: {baseUrl: string; projectId: string; gitDir: string; touched: Set<string> | null},
): Promise<Gathered> {
  const file = indexPath(o.gitDir, o.baseUrl, o.projectId)
  const known = o.touched === null ? null : readIndex(file, o.baseUrl, o.projectId)
  const index: AnchorIndex = known ?? {v: 2, base_url: o.baseUrl, project_id: o.projectId, high: null, entries: {}}
  const fresh = new Set<string>()
  // No index yet (or a full check): the whole project; else what was updated since the index last looked.
  const items = await listProject(client, o.projectId, known ? known.high : null)
  if (!known) {
    index.entries = {}
    dirty.add(index)
  }
  for (const e of items) {
    remember(index, e)
    fresh.add(e.id)
  }
  const high = newest(items, index.high)
  if (high !== index.high) dirty.add(index)
  index.high = high
  const ids = o.touched === null ? Object.keys(index.entries) : entriesOn(index, o.touched)
  const entries = ids.map((id) => narrowed(id, index.entries[id]!, o.touched)).filter((e): e is CheckEntry => e !== null)
  const reread = async (want: string[]): Promise<CheckEntry[]> => {
    const out: CheckEntry[] = []
    let next = 0
    const worker = async (): Promise<void> => {
      while (next < want.length) {
        const id = want[next++]!
        try {
          const e = (await client.getEntry(id, 'standard')).entry as EntryStandard
          remember(index, e)
          fresh.add(id)
          const n = index.entries[id] ? narrowed(id, index.entries[id], o.touched) : null
          if (n) out.push(n)
        } catch (err) {
          if (!(err instanceof KbError && err.code === 'not_found')) throw err
          delete index.entries[id]
          dirty.add(index)
        }
      }
    }
    await Promise.all(Array.from({length: Math.min(PARALLEL, want.length)}, worker))
    return out
  }
  const save = (): void => {
    if (dirty.has(index)) writeIndex(file, index)
  }
  return {entries, fresh, index, reread, save}
}
