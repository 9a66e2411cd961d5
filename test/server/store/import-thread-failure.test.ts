/**
 * A thread of an import that fails (stopped here as a crash would stop it) fails that import with the `unavailable`
 * problem and writes nothing; the store takes writes and imports again at once. The line worker
 * (server/services/transfer/off-thread-lines.ts) on either driver's service path, here SQLite's; the thread a SQLite
 * import is applied on (server/store/sqlite-import.ts), whose transaction dies with it.
 */
import {randomUUID} from 'node:crypto'
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {Readable} from 'node:stream'
import {afterAll, afterEach, describe, expect, it} from 'vitest'
import {KbError} from '../../../src/shared/errors.js'
import type {Caller} from '../../../server/services/context.js'
import {importBody} from '../../../server/services/transfer/import.js'
import {stopLineWorker} from '../../../server/services/transfer/off-thread-lines.js'
import {stopImportThreads} from '../../../server/store/sqlite-import.js'
import {openSqliteStore, type SqliteStore} from '../../../server/store/sqlite.js'
import type {ImportRecord} from '../../../server/store/transfer-store.js'
import {entryRow} from '../../../bench/entry-row.js'
import {tempDir} from '../../helpers/daemon.js'

const dir = tempDir('kb-import-thread-')
afterAll(() => {
  rmSync(dir, {recursive: true, force: true})
})

const at = '2026-01-02T03:04:05.000Z'
const OWNER = {id: '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7000', name: 'owner', role: 'owner' as const, created_at: at}
const caller: Caller = {principal: OWNER, credential: {kind: 'api_key', id: 'test-key', projectId: null, name: 'test'}}
const REQUEST = {onConflict: 'skip' as const, dryRun: false, sensitive: {redact: false, acknowledge: []}}

/** An export of `count` private entries. */
function exportOf(count: number): Buffer {
  const lines = [JSON.stringify({kind: 'kb-export', version: 1})]
  for (let i = 0; i < count; i++)
    lines.push(JSON.stringify({kind: 'entry', id: randomUUID(), title: `entry ${i}`, body: `the body of entry ${i}`, scope: 'private'}))
  return Buffer.from(`${lines.join('\n')}\n`)
}

/** Line `line` of an import: private entry `i`, as the apply thread receives it. */
function record(line: number, i: number): ImportRecord {
  const row = entryRow({
    id: randomUUID(),
    title: `applied ${i}`,
    body: `the body of applied entry ${i}`,
    summary: `applied ${i}`,
    scope: 'private',
    author: {id: OWNER.id, name: OWNER.name},
    created_at: at,
  })
  const {comment_count: _count, flags: _flags, flagged_at: _flagged, ...entry} = row
  return {line, kind: 'entry', entry: {...entry, comments: [], open_flags: []}}
}

const stored = async (s: SqliteStore): Promise<number> => (await s.transfer.exportEntries(null, {}, {limit: 10_000})).entries.length

/** Calls `stop` until it stopped something, while `work` runs; what `work` ended with. */
async function stoppedDuring<T>(work: Promise<T>, stop: () => Promise<boolean>): Promise<unknown> {
  const ended = work.then(
    () => 'finished',
    (e: unknown) => e,
  )
  let done = false
  void ended.then(() => (done = true))
  while (!done && !(await stop())) await new Promise((resolve) => setTimeout(resolve, 2))
  return ended
}

describe('an import thread that fails', () => {
  const open: SqliteStore[] = []
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close()
  })
  const fresh = async (): Promise<SqliteStore> => {
    const s = openSqliteStore({path: join(dir, `${randomUUID()}.sqlite`)})
    open.push(s)
    await s.insertPrincipal(OWNER)
    return s
  }

  it('the line worker: the import is the unavailable problem, nothing is written, the next import works', {timeout: 120_000}, async () => {
    const store = await fresh()
    await stopLineWorker()
    const failed = await stoppedDuring(importBody(store, caller, Readable.from([exportOf(6000)]), REQUEST), stopLineWorker)
    expect(failed).toBeInstanceOf(KbError)
    expect((failed as KbError).code).toBe('unavailable')
    expect((failed as KbError).message).toMatch(/nothing was written/)
    expect(await stored(store)).toBe(0)
    const again = await importBody(store, caller, Readable.from([exportOf(400)]), REQUEST)
    expect(again).toMatchObject({created: 400, rejected: []})
    expect(await stored(store)).toBe(400)
  })

  it(
    'the SQLite apply thread: the import is the unavailable problem, its transaction gone, the store writable',
    {timeout: 120_000},
    async () => {
      const store = await fresh()
      const records = Array.from({length: 6000}, (_, i) => record(i + 2, i))
      const options = {onConflict: 'skip' as const, dryRun: false, at, importer: {id: OWNER.id, name: OWNER.name, owner: true}}
      const failed = await stoppedDuring(store.transfer.applyImport(records, options), async () => (await stopImportThreads()) > 0)
      expect(failed).toBeInstanceOf(KbError)
      expect((failed as KbError).code).toBe('unavailable')
      expect(await stored(store)).toBe(0)
      // SQLite's write lock went with the thread's connection: a write and another import go through.
      const outcome = await store.transfer.applyImport(records.slice(0, 50), options)
      expect(outcome).toMatchObject({created: 50, rejected: []})
      expect(await stored(store)).toBe(50)
    },
  )
})
