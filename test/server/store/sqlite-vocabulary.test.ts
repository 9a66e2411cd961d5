/**
 * @module The SQLite driver's search vocabulary (search_vocab, where typo tolerance and completion look):
 * every write path adds its terms and prunes those no entry holds any more — live inserts, updates and
 * deletes, and imports that overwrite — and migration 4 rebuilds an older file's vocabulary without them.
 */
import Database from 'better-sqlite3'
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, describe, expect, it} from 'vitest'
import {openSqliteStore, type SqliteStore} from '../../../server/store/sqlite.js'
import {SQLITE_MIGRATIONS} from '../../../server/store/sqlite-migrations.js'
import type {EntryRow} from '../../../server/store/store.js'
import {tempDir} from '../../helpers/daemon.js'

const at = '2026-01-01T00:00:00.000Z'
const owner = {id: '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7981', name: 'owner'}
const importer = {...owner, owner: true}

function entry(id: string, title: string, body: string, tags: string[] = []): EntryRow {
  return {
    id,
    title,
    body,
    summary: body,
    summary_title: title,
    scope: 'global',
    project_id: null,
    tags,
    url: null,
    status: 'open',
    resolution: null,
    thought_chain: [],
    forked_from: null,
    author: owner,
    created_at: at,
    updated_at: at,
    version: 1,
    comment_count: 0,
    ...UNTRUSTED,
  }
}

/** The trust fields of an entry nobody has checked, verified or flagged. */
const UNTRUSTED = {
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
}

describe('search vocabulary', () => {
  const dir = tempDir('kb-vocab-')
  let store: SqliteStore
  let n = 0
  afterEach(async () => {
    await store.close()
  })
  afterAll(() => {
    rmSync(dir, {recursive: true, force: true})
  })
  const open = async (): Promise<SqliteStore> => {
    store = openSqliteStore({path: join(dir, `kb-${n++}.sqlite`)})
    await store.insertPrincipal({...owner, role: 'owner', created_at: at})
    return store
  }
  const vocab = (): string[] => store.db.prepare('SELECT term FROM search_vocab ORDER BY term').pluck().all() as string[]

  it('holds the stems of every entry, each with its reverse, and no others', async () => {
    await open()
    await store.insertEntry(entry('e1', 'Quokka sightings', 'Zephyrs blowing', ['wildlife']))
    expect(vocab()).toEqual(['blow', 'quokka', 'sight', 'wildlif', 'zephyr'])
    expect(store.db.prepare("SELECT rev FROM search_vocab WHERE term = 'quokka'").pluck().get()).toBe('akkouq')
  })

  it('prunes the terms an update or a delete leaves no entry holding, and keeps shared ones', async () => {
    await open()
    await store.insertEntry(entry('e1', 'Quokka sightings', 'Zephyrs blowing'))
    await store.insertEntry(entry('e2', 'Quokka census', 'Counting marsupials'))
    await store.updateEntry('e1', {body: 'Calm weather'}, {at})
    expect(vocab()).toEqual(['calm', 'censu', 'count', 'marsupi', 'quokka', 'sight', 'weather'])
    // A change that leaves the text alone prunes nothing.
    await store.updateEntry('e1', {status: 'resolved'}, {at})
    expect(vocab()).toContain('sight')
    await store.deleteEntry('e1')
    expect(vocab()).toEqual(['censu', 'count', 'marsupi', 'quokka'])
    await store.updateEntry('e2', {title: 'Census', tags: ['marsupials']}, {at})
    expect(vocab()).toEqual(['censu', 'count', 'marsupi'])
    await store.deleteEntry('e2')
    expect(vocab()).toEqual([])
  })

  it("keeps the full-text index's totals and term counts exact through updates, deletes and overwrites", async () => {
    // The index is contentless (migration 7): a delete must name the old terms, or FTS5's totals — the
    // collection size and field lengths BM25F normalises by — keep counting the old text.
    const index = (s: SqliteStore): unknown => ({
      totals: s.db.prepare('SELECT block FROM entries_fts_data WHERE id = 1').pluck().get(),
      terms: s.db.prepare('SELECT term, doc, cnt FROM entries_vocab ORDER BY term').all(),
    })
    await open()
    await store.insertEntry(entry('e1', 'getUserName fails', 'Zephyrs blowing 文字化け', ['wild-life']))
    await store.insertEntry(entry('e2', 'Quokka census', 'Fußgängerzone counting'))
    await store.insertEntry(entry('e3', 'Gone soon', 'v20.19.0 at src/app.ts'))
    await store.updateEntry('e1', {body: 'Calm weather', tags: ['calm']}, {at})
    await store.deleteEntry('e3')
    const record = {
      line: 2,
      kind: 'entry' as const,
      entry: {...entry('e2', 'Platypus census', 'max_idle_conns'), comments: [], open_flags: []},
    }
    await store.transfer.applyImport([record], {onConflict: 'overwrite', dryRun: false, importer, at})
    const written = index(store)
    await store.close()
    await open()
    await store.insertEntry(entry('e1', 'getUserName fails', 'Calm weather', ['calm']))
    await store.insertEntry(entry('e2', 'Platypus census', 'max_idle_conns'))
    expect(written).toEqual(index(store))
  })

  it('an import that overwrites an entry prunes what the old text alone held; a rolled-back one leaves no trace', async () => {
    await open()
    await store.insertEntry(entry('e1', 'Quokka sightings', 'Zephyrs blowing'))
    const {summary, summary_title} = entry('e1', 'Platypus sightings', 'Calm weather')
    const record = {
      line: 2,
      kind: 'entry' as const,
      entry: {...entry('e1', 'Platypus sightings', 'Calm weather'), comments: [], open_flags: [], summary, summary_title},
    }
    const dry = await store.transfer.applyImport([record], {onConflict: 'overwrite', dryRun: true, importer, at})
    expect(dry.updated).toBe(1)
    expect(vocab()).toEqual(['blow', 'quokka', 'sight', 'zephyr'])
    const applied = await store.transfer.applyImport([record], {onConflict: 'overwrite', dryRun: false, importer, at})
    expect(applied.updated).toBe(1)
    expect(vocab()).toEqual(['calm', 'platypu', 'sight', 'weather'])
  })

  it("migration 4 rebuilds an older file's vocabulary with reversed terms and without dead ones", async () => {
    const path = join(dir, 'schema3.sqlite')
    const raw = new Database(path)
    for (let v = 0; v < 3; v++) raw.exec(SQLITE_MIGRATIONS[v]!)
    raw.pragma('user_version = 3')
    raw.prepare(`INSERT INTO principals (id, name, role, created_at) VALUES (?, ?, 'owner', ?)`).run(owner.id, owner.name, at)
    const insert = raw.prepare(`INSERT INTO entries (id, title, body, summary, summary_title, scope, tags, status, thought_chain, author_id,
        created_at, updated_at, version)
      VALUES (?, ?, ?, '', '', 'global', '[]', 'open', '[]', ?, ?, ?, 1)`)
    insert.run('e1', 'Zephyr', 'gone soon', owner.id, at, at)
    insert.run('e2', 'Quokka', 'stays here', owner.id, at, at)
    // Schema 3 kept the terms of deleted text in search_vocab.
    raw.exec(
      `INSERT OR IGNORE INTO search_vocab (head, len, term) SELECT substr(term, 1, 1), length(term), term FROM entries_vocab WHERE length(term) >= 4`,
    )
    raw.prepare(`DELETE FROM entries WHERE id = 'e1'`).run()
    expect(raw.prepare('SELECT term FROM search_vocab ORDER BY term').pluck().all()).toEqual([
      'gone',
      'here',
      'quokka',
      'soon',
      'stai',
      'zephyr',
    ])
    raw.close()
    store = openSqliteStore({path})
    expect(store.schemaVersion).toBe(SQLITE_MIGRATIONS.length)
    expect(store.db.prepare('SELECT term, rev FROM search_vocab ORDER BY term').all()).toEqual([
      {term: 'here', rev: 'ereh'},
      {term: 'quokka', rev: 'akkouq'},
      {term: 'stai', rev: 'iats'},
    ])
  })
})
