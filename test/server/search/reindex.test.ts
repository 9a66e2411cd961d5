/**
 * @module Upgrading keeps search working: a database written before the search tokenizer (schema 6: FTS5's
 * own `porter unicode61` tokenizer fed by triggers, a vocabulary of its stems) is re-indexed by migration 7
 * when the new daemon opens it, so that code parts, CJK words and German spellings find entries written before
 * the upgrade, and typo tolerance reads the new vocabulary (docs/search.md, "Tokens").
 */
import Database from 'better-sqlite3'
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {SQLITE_MIGRATIONS} from '../../../server/store/sqlite-migrations.js'
import {startInProcessDaemon, tempDir} from '../../helpers/daemon.js'

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

describe('migration 7 re-indexes an existing database', () => {
  const dir = tempDir('kb-reindex-')
  afterAll(() => rmSync(dir, {recursive: true, force: true}))

  it('finds entries written before the upgrade by code parts, CJK words and German spellings', async () => {
    const entries = [
      {title: 'TypeError: getUserName is not a function', body: 'The profile page crashed.'},
      {title: '배포 후 한글이 깨지는 문제', body: '컨테이너에 로케일이 없었다.'},
      {title: 'Fußgängerzone-Dienst liefert 502', body: 'Der Health-Check zeigte auf den falschen Pfad.'},
      {title: 'Pool exhausted', body: 'Set max_idle_conns to 10.'},
    ]
    const ids: string[] = []
    const first = await startInProcessDaemon({dataDir: dir})
    for (const e of entries) {
      const res = await first.request('POST', '/knowledge', {body: {...e, scope: 'private'}})
      expect(res.status, res.text).toBe(201)
      ids.push(res.body.id)
    }
    await first.stop()

    // Turn the file into what kb wrote before the search tokenizer: the old index and vocabulary, schema 6.
    const raw = new Database(join(dir, 'kb.sqlite'))
    raw.function('old_reverse', (term) => Array.from(String(term)).reverse().join(''))
    raw.exec('DROP TABLE entries_instances; DROP TABLE entries_vocab; DROP TABLE entries_fts;')
    raw.exec(SCHEMA_6_SEARCH)
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
    try {
      const search = async (q: string): Promise<string[]> => {
        const res = await upgraded.request('GET', '/search', {query: {q: `${q} `}})
        expect(res.status, res.text).toBe(200)
        return (res.body.items as Array<{id: string}>).map((i) => i.id)
      }
      expect(await search('user')).toEqual([ids[0]])
      expect(await search('getUserName')).toEqual([ids[0]])
      expect(await search('한글')).toEqual([ids[1]])
      expect(await search('로케일')).toEqual([ids[1]])
      expect(await search('fussgaengerzone')).toEqual([ids[2]])
      expect(await search('fussgangerzone')).toEqual([ids[2]])
      expect(await search('idle')).toEqual([ids[3]])
      // The vocabulary was rebuilt from the new terms: a typo is corrected to a code token's part.
      expect(await search('profiel')).toEqual([ids[0]])
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
