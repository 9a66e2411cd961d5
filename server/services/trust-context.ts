/**
 * @module The context freshness.ts decides in: the clock and each entry's project's `verify_after_days` (entries
 * outside a project, or in one gone, use the default), read once per request for the entries at hand.
 */
import type {EntryRow, Store} from '../store/store.js'
import type {TrustContext} from './freshness.js'

export type ContextOf = (e: EntryRow) => TrustContext

/** A context for each of `entries` (and any other entry of the same projects), at one clock reading. */
export async function trustContexts(store: Store, entries: EntryRow[], now = Date.now()): Promise<ContextOf> {
  const ids = [...new Set(entries.flatMap((e) => (e.project_id ? [e.project_id] : [])))]
  const days = new Map<string, number>()
  await Promise.all(
    ids.map(async (id) => {
      const p = await store.getProject(id)
      if (p) days.set(id, p.verify_after_days)
    }),
  )
  return (e) => {
    const d = e.project_id ? days.get(e.project_id) : undefined
    return d === undefined ? {now} : {now, verifyAfterDays: d}
  }
}
