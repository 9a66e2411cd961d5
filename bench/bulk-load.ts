/**
 * @module Prepares a daemon data directory holding N synthetic entries: the daemon bootstraps its owner
 * once, then the entries go in through the store driver (`insertEntry`, batched in transactions) because
 * 100k HTTP creates would take minutes and measure nothing the create benchmark does not.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {dataFiles} from '../src/shared/paths.js'
import {startDaemon} from '../server/daemon.js'
import {uuidv7} from '../server/lib/ids.js'
import {openSqliteStore} from '../server/store/sqlite.js'
import type {EntryRow} from '../server/store/store.js'
import {corpus} from './corpus.js'

export interface PreparedDir {
  dataDir: string
  ownerKey: string
  ownerId: string
  /** Ids of the loaded entries, in insertion order. */
  ids: string[]
}

/**
 * About the size of the real summary (≤ 100 tokens). The real one (src/shared/summary.ts) tokenises the
 * text several times, which would make loading 100k entries take minutes; HTTP creates still use it.
 */
export function cheapSummary(body: string): string {
  return body.length <= 300 ? body : `${body.slice(0, body.lastIndexOf(' ', 300))}…`
}

/** Runs the daemon once on the (empty) directory so it creates the owner principal and owner.key. */
async function bootstrap(dataDir: string): Promise<void> {
  const d = await startDaemon({dataDir, host: '127.0.0.1', port: 0, version: 'bench', logLevel: 'silent'})
  await d.stop()
}

/** Adds entries `from`..`to-1` of the corpus to the store in `dataDir` (the daemon must not be running). */
export async function loadEntries(dataDir: string, from: number, to: number, seed = 42): Promise<string[]> {
  const store = openSqliteStore({path: dataFiles(dataDir).db})
  try {
    const owner = store.db.prepare(`SELECT id, name FROM principals WHERE role = 'owner'`).get() as {id: string; name: string}
    const c = corpus(seed)
    const ids: string[] = []
    const base = Date.parse('2024-01-01T00:00:00Z')
    const batch = 5_000
    for (let start = from; start < to; start += batch) {
      const rows: EntryRow[] = []
      for (let i = start; i < Math.min(to, start + batch); i++) {
        const e = c.entry(i)
        const at = new Date(base + i * 1_000).toISOString()
        const id = uuidv7(base + i * 1_000)
        rows.push({
          id,
          title: e.title,
          body: e.body,
          summary: cheapSummary(e.body),
          summary_title: e.title,
          scope: 'global',
          project_id: null,
          tags: e.tags,
          url: null,
          status: i % 3 === 0 ? 'resolved' : 'open',
          resolution: null,
          thought_chain: [],
          forked_from: null,
          author: owner,
          created_at: at,
          updated_at: at,
          version: 1,
          comment_count: 0,
        })
        ids.push(id)
      }
      // insertEntry runs its statements synchronously; the outer transaction makes the batch one commit.
      store.db.transaction(() => {
        for (const row of rows) void store.insertEntry(row)
      })()
    }
    return ids
  } finally {
    await store.close()
  }
}

/** A fresh data directory with `count` entries, ready for `kb daemon run --data-dir`. */
export async function prepareDataDir(dataDir: string, count: number, seed = 42): Promise<PreparedDir> {
  await bootstrap(dataDir)
  const ids = await loadEntries(dataDir, 0, count, seed)
  const ownerKey = readFileSync(join(dataDir, 'owner.key'), 'utf8').trim()
  const store = openSqliteStore({path: dataFiles(dataDir).db})
  const ownerId = (store.db.prepare(`SELECT id FROM principals WHERE role = 'owner'`).get() as {id: string}).id
  await store.close()
  return {dataDir, ownerKey, ownerId, ids}
}
