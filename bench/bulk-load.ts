/**
 * @module Prepares a store holding N synthetic entries for a daemon: the daemon bootstraps its owner once, then
 * the entries go in through the driver's own entry writer, thousands per transaction, because 100k HTTP
 * creates would take minutes and measure nothing the create benchmark does not. SQLite in a data directory,
 * or a PostgreSQL database (`storeUrl`), written exactly as a live create writes it (index and counters).
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {dataFiles} from '../src/shared/paths.js'
import {startDaemon} from '../server/daemon.js'
import {uuidv7} from '../server/lib/ids.js'
import {IndexDelta, PostgresEntryWriter} from '../server/store/postgres-entries.js'
import {openPostgresStore} from '../server/store/postgres.js'
import {SqliteEntryWriter} from '../server/store/sqlite-entries.js'
import {StatementCache} from '../server/store/sqlite-rows.js'
import {openSqliteStore} from '../server/store/sqlite.js'
import type {EntryRow} from '../server/store/store.js'
import {corpus} from './corpus.js'
import {entryRow} from './entry-row.js'

export interface PreparedDir {
  dataDir: string
  /** The PostgreSQL database, when the store is one. */
  storeUrl?: string
  ownerKey: string
  ownerId: string
  /** Ids of the loaded entries, in insertion order. */
  ids: string[]
}

const BATCH = 2_000
/** PostgreSQL batches written at once, on as many connections. */
const PG_PARALLEL = 3

/**
 * About the size of the real summary (≤ 100 tokens). The real one (src/shared/summary.ts) tokenises the
 * text several times, which would make loading 100k entries take minutes; HTTP creates still use it.
 */
export function cheapSummary(body: string): string {
  return body.length <= 300 ? body : `${body.slice(0, body.lastIndexOf(' ', 300))}…`
}

/** Runs the daemon once on the (empty) directory or database so it creates the owner principal and owner.key. */
async function bootstrap(dataDir: string, storeUrl?: string): Promise<void> {
  const d = await startDaemon({dataDir, host: '127.0.0.1', port: 0, version: 'bench', logLevel: 'silent', ...(storeUrl ? {storeUrl} : {})})
  await d.stop()
}

/** Entries `from`..`to-1` of the corpus as rows by `owner`, in batches. */
function* batches(from: number, to: number, owner: {id: string; name: string}, seed: number): Generator<EntryRow[]> {
  const c = corpus(seed)
  const base = Date.parse('2024-01-01T00:00:00Z')
  for (let start = from; start < to; start += BATCH) {
    const rows: EntryRow[] = []
    for (let i = start; i < Math.min(to, start + BATCH); i++) {
      const e = c.entry(i)
      const at = new Date(base + i * 1_000).toISOString()
      rows.push(
        entryRow({
          id: uuidv7(base + i * 1_000),
          title: e.title,
          body: e.body,
          summary: cheapSummary(e.body),
          tags: e.tags,
          status: i % 3 === 0 ? 'resolved' : 'open',
          author: owner,
          created_at: at,
        }),
      )
    }
    yield rows
  }
}

/**
 * Runs a batch's transaction again when PostgreSQL chose it as a deadlock's victim (40P01): batches written at once
 * lock rows they share (the vocabulary, the short ids) in their own orders, and the victim is rolled back whole.
 */
async function withDeadlockRetry(write: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write()
    } catch (error) {
      const code = (error as {cause?: {code?: string}}).cause?.code ?? (error as {code?: string}).code
      if (code !== '40P01' || attempt >= 5) throw error
    }
  }
}

/** Adds entries `from`..`to-1` of the corpus to the store (the daemon must not be running on a SQLite one). */
export async function loadEntries(
  dataDir: string,
  from: number,
  to: number,
  storeUrl?: string,
  seed = 42,
  onBatch?: (loaded: number) => void,
): Promise<string[]> {
  const ids: string[] = []
  if (storeUrl) {
    const store = await openPostgresStore({url: storeUrl, poolSize: PG_PARALLEL, statementTimeoutMs: 600_000})
    try {
      const [owner] = await store.db.query<{id: string; name: string}>(`SELECT id, name FROM principals WHERE role = 'owner'`)
      const writer = new PostgresEntryWriter()
      const pending = new Set<Promise<void>>()
      for (const rows of batches(from, to, owner!, seed)) {
        ids.push(...rows.map((r) => r.id))
        const write = (): Promise<void> =>
          store.db.tx(async (q) => {
            const delta = new IndexDelta()
            for (const row of rows) await writer.insert(q, row, delta)
            await delta.flush(q)
          })
        const done: Promise<void> = withDeadlockRetry(write).then(() => {
          pending.delete(done)
          onBatch?.(rows.length)
        })
        pending.add(done)
        if (pending.size >= PG_PARALLEL) await Promise.race(pending)
      }
      await Promise.all(pending)
    } finally {
      await store.close()
    }
    return ids
  }
  const store = openSqliteStore({path: dataFiles(dataDir).db})
  try {
    const owner = store.db.prepare(`SELECT id, name FROM principals WHERE role = 'owner'`).get() as {id: string; name: string}
    // The driver's writer, synchronously inside one transaction per batch (the store's insertEntry would await its write gate).
    const writer = new SqliteEntryWriter(new StatementCache(store.db))
    // Each distinct term goes to search_vocab once (INSERT OR IGNORE of a term it holds changes nothing): at a
    // million entries the hundred inserts per entry a live create makes were half the load's time.
    writer.knownTerms = new Set()
    for (const rows of batches(from, to, owner, seed)) {
      ids.push(...rows.map((r) => r.id))
      store.db.transaction(() => {
        for (const row of rows) writer.insert(row)
      })()
      onBatch?.(rows.length)
    }
  } finally {
    await store.close()
  }
  return ids
}

/** A fresh data directory (and database, with `storeUrl`) with `count` entries, ready for `kb daemon run`. */
export async function prepareDataDir(
  dataDir: string,
  count: number,
  storeUrl?: string,
  seed = 42,
  onBatch?: (loaded: number) => void,
): Promise<PreparedDir> {
  await bootstrap(dataDir, storeUrl)
  const ids = await loadEntries(dataDir, 0, count, storeUrl, seed, onBatch)
  const ownerKey = readFileSync(join(dataDir, 'owner.key'), 'utf8').trim()
  let ownerId: string
  if (storeUrl) {
    const store = await openPostgresStore({url: storeUrl})
    ownerId = (await store.db.query<{id: string}>(`SELECT id FROM principals WHERE role = 'owner'`))[0]!.id
    await store.close()
  } else {
    const store = openSqliteStore({path: dataFiles(dataDir).db})
    ownerId = (store.db.prepare(`SELECT id FROM principals WHERE role = 'owner'`).get() as {id: string}).id
    await store.close()
  }
  return {dataDir, ...(storeUrl ? {storeUrl} : {}), ownerKey, ownerId, ids}
}
