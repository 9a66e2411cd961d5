/**
 * @module Entries with ids a test chooses (ids whose starts or ends collide), written by the owner's import: the
 * server mints random ids, and a collision of seven random digits would take millions of entries.
 */
import {expect} from 'vitest'
import type {TestDaemon} from './daemon.js'

export interface CraftedEntry {
  id: string
  title: string
  scope: 'private' | 'global'
}

/** Imports the entries as the owner's, with the given ids, titles and scopes. */
export async function craftEntries(d: TestDaemon, entries: CraftedEntry[]): Promise<void> {
  const me = await d.request('GET', '/api-keys')
  const owner = me.body.items[0].principal as {id: string; name: string}
  const at = new Date().toISOString()
  const head = {
    kind: 'kb-export',
    version: 1,
    exported_at: at,
    exported_by: owner,
    server_version: 'test',
    complete: false,
    entries: entries.length,
  }
  const records = entries.map((e) => ({
    kind: 'entry',
    id: e.id,
    title: e.title,
    body: `The ${e.title} entry.`,
    scope: e.scope,
    project_id: null,
    tags: [],
    url: null,
    status: 'open',
    resolution: null,
    thought_chain: [],
    forked_from: null,
    author: owner,
    created_at: at,
    updated_at: at,
    version: 1,
    anchors: [],
    verified_at: null,
    verified_by: null,
    verifications: [],
    corrections: 0,
    superseded_by: null,
    retrieved: 0,
    last_retrieved_at: null,
    comments: [],
    open_flags: [],
    history: [],
  }))
  const text = [head, ...records].map((r) => JSON.stringify(r)).join('\n') + '\n'
  const res = await d.request('POST', '/import', {raw: text, contentType: 'application/x-ndjson'})
  expect(res.status, res.text).toBe(200)
}
