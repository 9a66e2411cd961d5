/**
 * @module Upgrading keeps search working: a database written before the search tokenizer (SQLite schema 6: FTS5's
 * own `porter unicode61` tokenizer fed by triggers, a vocabulary of its stems; PostgreSQL schema 2) is
 * re-indexed when the new daemon opens it (SQLite migration 7, PostgreSQL migration 3), so that code parts,
 * CJK words and German spellings find entries written before the upgrade, and typo tolerance reads the new
 * vocabulary (docs/search.md, "Tokens").
 */
import Database from 'better-sqlite3'
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import pg from 'pg'
import {afterAll, describe, expect, it} from 'vitest'
import {POSTGRES_MIGRATIONS} from '../../../server/store/postgres-migrations.js'
import {SQLITE_MIGRATIONS} from '../../../server/store/sqlite-migrations.js'
import {startInProcessDaemon, tempDir, type TestDaemon} from '../../helpers/daemon.js'
import {useCluster} from '../../helpers/postgres.js'
import {requireSystem} from '../../helpers/system.js'

/** The search schema of migrations 1 and 4, as a schema-6 database held it. */
const SCHEMA_6_SEARCH = `
  CREATE VIRTUAL TABLE entries_fts USING fts5(
    title, tags, body,
    content='entries', content_rowid='seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  CREATE VIRTUAL TABLE entries_vocab USING fts5vocab(entries_fts, 'row');
  CREATE VIRTUAL TABLE entries_instances USING fts5vocab(entries_fts, 'instance');
  CREATE TRIGGER entries_ai AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts(rowid, title, tags, body) VALUES (new.seq, new.title, new.tags, new.body);
  END;
  CREATE TRIGGER entries_ad AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, title, tags, body) VALUES ('delete', old.seq, old.title, old.tags, old.body);
  END;
  CREATE TRIGGER entries_au AFTER UPDATE OF title, tags, body ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, title, tags, body) VALUES ('delete', old.seq, old.title, old.tags, old.body);
    INSERT INTO entries_fts(rowid, title, tags, body) VALUES (new.seq, new.title, new.tags, new.body);
  END;
  INSERT INTO entries_fts(entries_fts) VALUES ('rebuild');
  DELETE FROM search_vocab;
  INSERT INTO search_vocab (head, len, term, rev)
    SELECT substr(term, 1, 1), length(term), term, old_reverse(term) FROM entries_vocab WHERE length(term) >= 4 AND doc > 0;
`

const ENTRIES = [
  {title: 'TypeError: getUserName is not a function', body: 'The profile page crashed.'},
  {title: '배포 후 한글이 깨지는 문제', body: '컨테이너에 로케일이 없었다.'},
  {title: 'Fußgängerzone-Dienst liefert 502', body: 'Der Health-Check zeigte auf den falschen Pfad.'},
  {title: 'Pool exhausted', body: 'Set max_idle_conns to 10.'},
]

/** Writes ENTRIES through the daemon; their ids in order. */
async function writeEntries(d: TestDaemon): Promise<string[]> {
  const ids: string[] = []
  for (const e of ENTRIES) {
    const res = await d.request('POST', '/knowledge', {body: {...e, scope: 'private'}})
    expect(res.status, res.text).toBe(201)
    ids.push(res.body.id)
  }
  return ids
}

/** The searches an upgraded store must answer, each with the position in ENTRIES it finds. */
async function expectFound(d: TestDaemon, ids: string[]): Promise<void> {
  const search = async (q: string): Promise<string[]> => {
    const res = await d.request('GET', '/search', {query: {q: `${q} `}})
    expect(res.status, res.text).toBe(200)
    return (res.body.items as Array<{id: string}>).map((i) => i.id)
  }
  for (const [q, k] of [
    ['user', 0],
    ['getUserName', 0],
    ['한글', 1],
    ['로케일', 1],
    ['fussgaengerzone', 2],
    ['fussgangerzone', 2],
    ['idle', 3],
    // The vocabulary holds the new terms: a typo is corrected.
    ['profiel', 0],
  ] as const) {
    expect(await search(q), q).toEqual([ids[k]])
  }
}

/** What the trust, recall, membership, supersede, server secrets and history migrations (SQLite 8–13, PostgreSQL 4–9) added, taken away again: the same SQL in both. */
/** The similar-pairs backfill (SQLite 18, PostgreSQL 15) and the review tally (17, 14): its triggers first, which name the columns dropped after. */
const undoTally = (postgres: boolean): string =>
  'DROP TABLE similar_backfill; ' +
  (postgres
    ? 'DROP FUNCTION review_tally_insert CASCADE; DROP FUNCTION review_tally_update CASCADE; DROP FUNCTION review_tally_delete CASCADE;'
    : 'DROP TRIGGER entries_tally_insert; DROP TRIGGER entries_tally_update; DROP TRIGGER entries_tally_delete;') +
  ' DROP TABLE review_tally; DROP INDEX entries_fresh_at; DROP INDEX entries_used_at;'

const UNDO_TRUST = `DROP TABLE short_ids; DROP INDEX entries_id_tail; ALTER TABLE entries DROP COLUMN id_tail; DROP TABLE web_sessions; DROP TABLE similar_pairs; DROP INDEX IF EXISTS entries_review; ALTER TABLE entries DROP COLUMN anchors_stale; DROP TABLE history; DROP INDEX entries_retrieved; ALTER TABLE entries DROP COLUMN retrieved; ALTER TABLE entries DROP COLUMN last_retrieved_at;
  DROP TABLE server_secrets; DROP INDEX entries_superseded_by; ALTER TABLE entries DROP COLUMN superseded_by; DROP TABLE invitations; DROP TABLE project_requests; DROP TABLE recalls; DROP TABLE flags; ALTER TABLE projects DROP COLUMN verify_after_days;
  ${['anchors', 'flags', 'flagged_at', 'verified_at', 'verified_by', 'verifications', 'corrections']
    .map((c) => `ALTER TABLE entries DROP COLUMN ${c};`)
    .join(' ')}`

describe('migration 7 re-indexes an existing database', () => {
  const dir = tempDir('kb-reindex-')
  afterAll(() => rmSync(dir, {recursive: true, force: true}))

  it('finds entries written before the upgrade by code parts, CJK words and German spellings', async () => {
    const first = await startInProcessDaemon({dataDir: dir})
    const ids = await writeEntries(first)
    await first.stop()

    // Turn the file into what kb wrote before the search tokenizer: the old index and vocabulary, schema 6.
    const raw = new Database(join(dir, 'kb.sqlite'))
    raw.function('old_reverse', (term) => Array.from(String(term)).reverse().join(''))
    raw.exec('DROP TABLE entries_instances; DROP TABLE entries_vocab; DROP TABLE entries_fts;')
    raw.exec(SCHEMA_6_SEARCH)
    raw.exec(undoTally(false) + UNDO_TRUST)
    raw.pragma('user_version = 6')
    const oldMatch = (q: string): number =>
      raw.prepare('SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?').pluck().get(q) as number
    // The old index cannot find these: the test would fail without the migration.
    expect([oldMatch('"user"'), oldMatch('"한글"'), oldMatch('"fussgaengerzone"')]).toEqual([0, 0, 0])
    const inVocabulary = (d: Database.Database, term: string): unknown =>
      d.prepare('SELECT count(*) FROM search_vocab WHERE term = ?').pluck().get(term)
    expect([inVocabulary(raw, 'getusernam'), inVocabulary(raw, 'getusername')]).toEqual([1, 0])
    raw.close()

    const upgraded = await startInProcessDaemon({dataDir: dir})
    const search = async (q: string): Promise<string[]> =>
      ((await upgraded.request('GET', '/search', {query: {q: `${q} `}})).body.items as Array<{id: string}>).map((i) => i.id)
    try {
      await expectFound(upgraded, ids)
      // And writes after the upgrade keep the new index: an update is found by its new words only.
      const res = await upgraded.request('PATCH', `/knowledge/${ids[3]}`, {body: {body: 'Raise maxOpenConns instead.'}})
      expect(res.status, res.text).toBe(200)
      expect(await search('idle')).toEqual([])
      expect(await search('open')).toEqual([ids[3]])
    } finally {
      await upgraded.stop()
    }
    const db = new Database(join(dir, 'kb.sqlite'), {readonly: true})
    expect(db.pragma('user_version', {simple: true})).toBe(SQLITE_MIGRATIONS.length)
    expect([inVocabulary(db, 'getusernam'), inVocabulary(db, 'getusername'), inVocabulary(db, 'fussgaengerzon')]).toEqual([0, 1, 1])
    db.close()
  })
})

requireSystem('postgres').describe('PostgreSQL migration 3 re-indexes an existing database', () => {
  const cluster = useCluster()
  const sql = async (url: string, text: string): Promise<Array<Record<string, unknown>>> => {
    const client = new pg.Client(url)
    await client.connect()
    try {
      return (await client.query(text)).rows
    } finally {
      await client.end()
    }
  }

  it('indexes entries an older kb wrote with the new terms, counters exact', async () => {
    const storeUrl = await cluster().createDatabase()
    // One data directory for both daemons: it holds the owner's key, which the database knows.
    const dataDir = tempDir('kb-reindex-pg-')
    const first = await startInProcessDaemon({storeUrl, dataDir})
    const ids = await writeEntries(first)
    await first.stop()
    // Back to schema 2, the entries indexed with no terms at all (the counters agreeing): nothing is found.
    await sql(
      storeUrl,
      `${undoTally(true)} ${UNDO_TRUST} ALTER TABLE idempotency_keys DROP COLUMN holder_pid; ALTER TABLE idempotency_keys DROP COLUMN holder_started;
      DROP INDEX entries_summary_stale; ALTER TABLE entries DROP COLUMN summary_version;
      DROP INDEX entries_search_stale; ALTER TABLE entries DROP COLUMN search_version; UPDATE kb_schema SET version = 2;
      UPDATE entries SET search = ''::tsvector, title_len = 0, tags_len = 0, body_len = 0;
      DELETE FROM search_terms; UPDATE search_stats SET title = 0, tags = 0, body = 0;`,
    )
    const stale = await startInProcessDaemon({storeUrl, dataDir})
    try {
      await expectFound(stale, ids)
    } finally {
      await stale.stop()
      rmSync(dataDir, {recursive: true, force: true})
    }
    expect(await sql(storeUrl, 'SELECT version FROM kb_schema')).toEqual([{version: POSTGRES_MIGRATIONS.length}])
    expect(await sql(storeUrl, 'SELECT count(*)::int AS n FROM entries WHERE search_version < 1')).toEqual([{n: 0}])
    const counted = await sql(
      storeUrl,
      `SELECT term, count(*)::int AS df FROM entries, unnest(tsvector_to_array(search)) AS term GROUP BY term ORDER BY term COLLATE "C"`,
    )
    expect(counted.length).toBeGreaterThan(20)
    expect(await sql(storeUrl, 'SELECT term, sum(df)::int AS df FROM search_terms GROUP BY term ORDER BY term COLLATE "C"')).toEqual(
      counted,
    )
    expect(
      await sql(storeUrl, 'SELECT sum(docs)::int AS docs, sum(title)::int AS title, sum(body)::int AS body FROM search_stats'),
    ).toEqual(await sql(storeUrl, 'SELECT count(*)::int AS docs, sum(title_len)::int AS title, sum(body_len)::int AS body FROM entries'))
  })
})

requireSystem('postgres').describe('PostgreSQL summaries computed again at open', () => {
  const cluster = useCluster()

  it('leave room for superseded_by, as the write that superseded the entry did', async () => {
    const storeUrl = await cluster().createDatabase()
    const dataDir = tempDir('kb-resummarize-pg-')
    const first = await startInProcessDaemon({storeUrl, dataDir})
    // A first paragraph far over the budget: where it is cut depends on the room the item leaves.
    const body = Array.from({length: 120}, (_, i) => `word${i} of the long first paragraph`).join(' ')
    const old = (await first.request('POST', '/knowledge', {body: {title: 'Heron queue stalls', body}})).body
    const by = (await first.request('POST', '/knowledge', {body: {title: 'Heron queue stalls fixed', body: 'Upgrade heron.'}})).body
    await first.request('POST', `/knowledge/${old.id}/supersede`, {body: {by: by.id}})
    const summary = async (d: TestDaemon): Promise<unknown> =>
      (await d.request('GET', `/knowledge/${old.id}`, {query: {detail: 'summary'}})).body
    const written = await summary(first)
    await first.stop()
    const client = new pg.Client(storeUrl)
    await client.connect()
    // As an older kb's rows: the summaries are computed again when the store opens.
    await client.query(`UPDATE entries SET summary_version = 0, summary = 'x', summary_title = 'x'`)
    await client.end()
    const again = await startInProcessDaemon({storeUrl, dataDir})
    try {
      expect(await summary(again)).toEqual(written)
      expect(written).toMatchObject({superseded_by: by.id})
    } finally {
      await again.stop()
      rmSync(dataDir, {recursive: true, force: true})
    }
  })
})
