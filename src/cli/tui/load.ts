/**
 * @module What `kb browse` reads from the API: a page of results (a search, or the latest entries when
 * the query is empty), an entry in full, the caller's projects — and errors as one line for people.
 */
import {KbError} from '../../shared/errors.js'
import {hintFor} from '../../shared/hints.js'
import type {ApiClient} from '../../shared/client.js'
import type {EntryFull, EntryStandard, Project} from '../../shared/types.js'
import type {LoadRequest, ResultsPage} from './state.js'

/** An error as one line for people: the message and what to do, never a stack trace. */
export function describeError(e: unknown): string {
  if (e instanceof KbError) {
    const fix = hintFor(e.code, 'tui')
    // Unreachable errors already name their fix (`kb daemon start`, --base-url).
    return fix && !e.message.includes(fix) ? `${e.message} — ${fix}` : e.message
  }
  return e instanceof Error ? e.message : String(e)
}

export async function loadResults(client: ApiClient, r: LoadRequest): Promise<ResultsPage> {
  const filters = {
    ...(r.filters.scope ? {scope: r.filters.scope} : {}),
    ...(r.filters.status ? {status: r.filters.status} : {}),
    ...(r.projectId ? {project_id: r.projectId} : {}),
    detail: 'standard' as const,
    limit: r.limit,
  }
  if (r.query === '') {
    const p = await client.listEntries({...filters, ...(r.cursor ? {cursor: r.cursor} : {})})
    return {items: p.items as EntryStandard[], total: p.items.length, more: p.next_cursor !== null, cursor: p.next_cursor}
  }
  const res = await client.search({...filters, q: r.query})
  return {items: res.items as EntryStandard[], total: res.total, more: false, cursor: null}
}

export async function loadEntry(client: ApiClient, id: string): Promise<EntryFull> {
  return (await client.getEntry(id, 'full')).entry as EntryFull
}

export function loadProjects(client: ApiClient): Promise<Project[]> {
  return client.listProjects()
}
