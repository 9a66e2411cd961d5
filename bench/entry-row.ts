/**
 * @module An `EntryRow` for writing straight through a store driver, as the benchmarks and the store and
 * search tests do: the fields that vary are given, the rest are those of a new open global entry.
 */
import type {EntryRow} from '../server/store/store.js'
import {UNTRUSTED} from '../server/store/trust.js'

export function entryRow(e: Pick<EntryRow, 'id' | 'title' | 'body' | 'author'> & Partial<EntryRow>): EntryRow {
  const at = e.created_at ?? new Date().toISOString()
  return {
    summary: '',
    summary_title: e.title,
    scope: 'global',
    project_id: null,
    tags: [],
    url: null,
    status: 'open',
    resolution: null,
    thought_chain: [],
    forked_from: null,
    created_at: at,
    updated_at: at,
    version: 1,
    comment_count: 0,
    ...UNTRUSTED,
    ...e,
  }
}
