/**
 * @module An import in the SQLite driver (server/store/sqlite-import.ts, write-gate.ts): applied in slices
 * on a connection of its own, it lets the event loop run between them; reads meanwhile see the store as it
 * was, a write made meanwhile waits until the import is over (then lands), and all or nothing holds — a
 * dry run or a rejected record leaves no trace. A store in memory has one connection and applies at once.
 */
import {randomUUID} from 'node:crypto'
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, describe, expect, it} from 'vitest'
import {openSqliteStore, type SqliteStore} from '../../../server/store/sqlite.js'
import type {EntryRow} from '../../../server/store/store.js'
import type {ImportOptions, ImportRecord} from '../../../server/store/transfer-store.js'
import {tempDir} from '../../helpers/daemon.js'

const dir = tempDir('kb-import-')
afterAll(() => {
  rmSync(dir, {recursive: true, force: true})
})

const OWNER = {id: '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7000', name: 'owner'}
const at = '2026-01-02T03:04:05.000Z'
const options = (dryRun = false): ImportOptions => ({onConflict: 'skip', dryRun, at, importer: {...OWNER, owner: true}})

function entry(title: string, extra: Partial<EntryRow> = {}): EntryRow {
  return {
    id: randomUUID(),
    title,
    body: `${title}: the worker pool leaked sockets under load until it was restarted`,
    summary: title,
    summary_title: title,
    scope: 'private',
    project_id: null,
    tags: ['pool'],
    url: null,
    status: 'open',
    resolution: null,
    thought_chain: [],
    forked_from: null,
    author: OWNER,
    created_at: at,
    updated_at: at,
    version: 1,
    comment_count: 0,
    anchors: [],
    flags: {stale: 0, incorrect: 0, duplicate: 0, obsolete: 0},
    flagged_at: null,
    verified_at: null,
    verified_by: null,
    verifications: [],
    corrections: 0,
    superseded_by: null,
    retrieved: 0,
    last_retrieved_at: null,
    ...extra,
  }
}

function record(line: number, e: EntryRow): ImportRecord {
  const {comment_count: _count, flags: _flags, flagged_at: _at, ...rest} = e
  return {line, kind: 'entry', entry: {...rest, comments: [], open_flags: []}}
}

/** What happened while an import ran: `during` is called once, between two of its slices. */
async function importWhile(store: SqliteStore, records: ImportRecord[], dryRun: boolean, during: () => void) {
  let turns = 0
  const ticker = setInterval(() => turns++, 0)
  let called = false
  function* feed(): Generator<ImportRecord> {
    for (const [i, r] of records.entries()) {
      // Scheduled now, run at the first slice break after this record.
      if (i === 10 && !called) setImmediate(() => ((called = true), during()))
      yield r
    }
  }
  const outcome = await store.transfer.applyImport(feed(), options(dryRun))
  clearInterval(ticker)
  return {outcome, turns, called}
}

describe('SQLite import in slices', () => {
  const open: SqliteStore[] = []
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close()
  })
  const fresh = async (path = join(dir, `${randomUUID()}.sqlite`)): Promise<SqliteStore> => {
    const s = openSqliteStore({path})
    open.push(s)
    await s.insertPrincipal({...OWNER, role: 'owner', created_at: at})
    return s
  }
  const many = (n: number): EntryRow[] => Array.from({length: n}, (_, i) => entry(`imported ${i}`))

  it('serves the event loop, reads the old state and holds writes back until it commits', async () => {
    const store = await fresh()
    const before = entry('before')
    await store.insertEntry(before)
    const rows = many(2000)
    let read: {first: EntryRow | null; before: EntryRow | null; written: boolean} | null = null
    let write: Promise<boolean> | null = null
    let written = false
    const during = entry('written meanwhile')
    const run = await importWhile(
      store,
      rows.map((e, i) => record(i + 2, e)),
      false,
      () => {
        // The write lands only once the import committed: by then the import's last entry is there.
        write = store.insertEntry(during).then(async () => ((written = true), (await store.getEntry(rows[1999]!.id)) !== null))
        void Promise.all([store.getEntry(rows[0]!.id), store.getEntry(before.id)]).then(
          ([first, old]) => (read = {first, before: old, written}),
        )
      },
    )
    expect(run.called).toBe(true)
    expect(run.turns).toBeGreaterThan(0)
    expect(run.outcome).toMatchObject({created: 2000, rejected: []})
    expect(read).toEqual({first: null, before: expect.objectContaining({id: before.id}), written: false})
    expect(await write).toBe(true)
    expect(await store.getEntry(during.id)).toMatchObject({title: during.title})
    expect(await store.getEntry(rows[1999]!.id)).toMatchObject({title: 'imported 1999'})
    // Counts and remembered rows follow the import's commit on the other connection.
    const found = await store.searchEntries({principalId: OWNER.id}, {}, {query: 'imported', limit: 5, explain: false})
    expect(found.total).toBe(2000)
  })

  it('a dry run and a rejected record leave nothing; principals it made are gone', async () => {
    const store = await fresh()
    const stranger = {id: randomUUID(), name: 'stranger'}
    expect(await store.getPrincipal(stranger.id)).toBeNull()
    const rows = many(500).map((e, i) => (i === 0 ? {...e, author: stranger} : e))
    const dry = await importWhile(
      store,
      rows.map((e, i) => record(i + 2, e)),
      true,
      () => undefined,
    )
    expect(dry.outcome).toMatchObject({created: 500, principals_created: 1, rejected: []})
    expect(await store.getEntry(rows[0]!.id)).toBeNull()
    expect(await store.getPrincipal(stranger.id)).toBeNull()
    const orphan = entry('orphan', {scope: 'project', project_id: randomUUID()})
    const rejected = await store.transfer.applyImport([...rows.map((e, i) => record(i + 2, e)), record(502, orphan)], options())
    expect(rejected.rejected).toEqual([{line: 502, reason: expect.stringContaining('neither on this server')}])
    expect(await store.getEntry(rows[499]!.id)).toBeNull()
    // Once applied for real, the principal it created is seen at once (the remembered "none" is forgotten).
    const applied = await store.transfer.applyImport(
      rows.map((e, i) => record(i + 2, e)),
      options(),
    )
    expect(applied).toMatchObject({created: 500, principals_created: 1})
    expect(await store.getPrincipal(stranger.id)).toMatchObject({name: 'stranger'})
  })

  it('a store in memory applies at once, still all or nothing', async () => {
    const store = openSqliteStore({path: ':memory:'})
    open.push(store)
    await store.insertPrincipal({...OWNER, role: 'owner', created_at: at})
    const rows = many(50)
    expect(
      await store.transfer.applyImport(
        rows.map((e, i) => record(i + 2, e)),
        options(true),
      ),
    ).toMatchObject({created: 50})
    expect(await store.getEntry(rows[0]!.id)).toBeNull()
    expect(
      await store.transfer.applyImport(
        rows.map((e, i) => record(i + 2, e)),
        options(),
      ),
    ).toMatchObject({created: 50})
    expect(await store.getEntry(rows[49]!.id)).toMatchObject({title: 'imported 49'})
  })
})
