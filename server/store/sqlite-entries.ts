/**
 * @module Writing entries in the SQLite store, shared by live writes (sqlite.ts) and import
 * (sqlite-transfer.ts) so that both store and index text identically: the row's columns, its tags, the
 * full-text index (the terms of server/search/tokenizer.ts, written here: FTS5 cannot call the tokenizer),
 * the search vocabulary (added to on every write, pruned of terms no entry holds any more) and comment
 * rows. Callers run these methods inside their own transaction.
 */
import type Database from 'better-sqlite3'
import {indexText, tagsText} from '../search/tokenizer.js'
import {headOf, reversed, vocabularyTerms} from '../search/vocabulary.js'
import type {StatementCache} from './sqlite-rows.js'
import {encodeColumn, type Row, trustToDb} from './rows.js'
import type {CommentRow, EntryChanges, EntryRow} from './store.js'
import {lengthNeeded, SHORT_ID_SQL, tailOf} from './short-ids.js'
import {SHORT_ID_MIN} from '../../src/shared/contract.js'

const INSERT_ENTRY = `INSERT INTO entries (id, title, body, summary, summary_title, scope, project_id, tags, url, status, resolution,
    thought_chain, forked_from, author_id, created_at, updated_at, version, comment_count,
    anchors, flags, flagged_at, verified_at, verified_by, verifications, corrections, superseded_by, retrieved,
    last_retrieved_at)
  VALUES (@id, @title, @body, @summary, @summary_title, @scope, @project_id, @tags, @url, @status, @resolution,
    @thought_chain, @forked_from, @author_id, @created_at, @updated_at, @version, @comment_count,
    @anchors, @flags, @flagged_at, @verified_at, @verified_by, @verifications, @corrections, @superseded_by, @retrieved,
    @last_retrieved_at)`

const OVERWRITE_ENTRY = `UPDATE entries SET title = @title, body = @body, summary = @summary, summary_title = @summary_title, scope = @scope,
    project_id = @project_id, tags = @tags, url = @url, status = @status, resolution = @resolution, thought_chain = @thought_chain,
    forked_from = @forked_from, author_id = @author_id, created_at = @created_at, updated_at = @updated_at, version = @version,
    comment_count = @comment_count, anchors = @anchors, flags = @flags, flagged_at = @flagged_at, verified_at = @verified_at,
    verified_by = @verified_by, verifications = @verifications, corrections = @corrections, superseded_by = @superseded_by,
    retrieved = @retrieved, last_retrieved_at = @last_retrieved_at WHERE seq = @seq`

/** An entry's row as the `entries` table stores it (JSON for the structured fields, the author by id). */
function toDb(e: EntryRow): Row {
  return {
    id: e.id,
    title: e.title,
    body: e.body,
    summary: e.summary,
    summary_title: e.summary_title,
    scope: e.scope,
    project_id: e.project_id,
    tags: JSON.stringify(e.tags),
    url: e.url,
    status: e.status,
    resolution: e.resolution ? JSON.stringify(e.resolution) : null,
    thought_chain: JSON.stringify(e.thought_chain),
    forked_from: e.forked_from,
    author_id: e.author.id,
    created_at: e.created_at,
    updated_at: e.updated_at,
    version: e.version,
    comment_count: e.comment_count,
    ...trustToDb(e),
    superseded_by: e.superseded_by,
    retrieved: e.retrieved ?? 0,
    last_retrieved_at: e.last_retrieved_at ?? null,
  }
}

/** The searchable texts of an entry. */
interface SearchTexts {
  title: string
  body: string
  tags: string[]
}

/** An entry's title, tags and body as the FTS5 columns hold them: its index terms (both an insert and a delete send these). */
function ftsColumns(t: SearchTexts): [string, string, string] {
  return [indexText(t.title), indexText(tagsText(t.tags)), indexText(t.body)]
}

const textsOf = (t: SearchTexts): string[] => [t.title, t.body, ...t.tags]

/** Vocabulary terms added per transaction when added in slices: ~5 ms of inserts. */
const TERMS_PER_SLICE = 500

export class SqliteEntryWriter {
  constructor(private readonly statements: StatementCache) {}

  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql)
  }

  /** Inserts the entry with its tags and vocabulary; returns its `seq`. */
  insert(e: EntryRow): number {
    const seq = Number(this.stmt(INSERT_ENTRY).run(toDb(e)).lastInsertRowid)
    this.writeTags(seq, e.tags)
    this.index(seq, e)
    this.addVocabulary(e)
    this.growShortIds(e.id)
    return seq
  }

  /** Lengthens the short form when this id ends as another does (docs/api.md, "Short ids"): two index seeks. */
  private growShortIds(id: string): void {
    const tail = tailOf(id)
    const n = this.stmt(SHORT_ID_SQL.neighbours).get(tail, tail) as {below: string | null; above: string | null}
    const need = lengthNeeded(tail, [n.below, n.above])
    if (need > SHORT_ID_MIN) this.stmt(SHORT_ID_SQL.grow).run(need, need)
  }

  /** Replaces every stored column of entry `seq` (an import's overwrite); its comments are the caller's. */
  overwrite(seq: number, e: EntryRow): void {
    const before = this.searchTexts(seq)!
    this.stmt(OVERWRITE_ENTRY).run({...toDb(e), seq})
    this.writeTags(seq, e.tags)
    this.unindex(seq, before)
    this.index(seq, e)
    this.addVocabulary(e)
    this.pruneVocabulary(before, e)
  }

  /** Applies the changes to entry `seq`, sets `updated_at` and bumps `version`. */
  update(seq: number, changes: EntryChanges, at: string): void {
    const textChanges = changes.title !== undefined || changes.body !== undefined || changes.tags !== undefined
    const before = textChanges ? this.searchTexts(seq) : null
    const sets: string[] = []
    const params: Row = {seq, at}
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined) continue
      sets.push(`${key} = @${key}`)
      params[key] = encodeColumn(key, value)
    }
    this.stmt(`UPDATE entries SET ${[...sets, 'updated_at = @at', 'version = version + 1'].join(', ')} WHERE seq = @seq`).run(params)
    if (changes.tags) this.writeTags(seq, changes.tags)
    if (!before) return
    const after: SearchTexts = {title: changes.title ?? before.title, body: changes.body ?? before.body, tags: changes.tags ?? before.tags}
    this.unindex(seq, before)
    this.index(seq, after)
    this.addVocabulary(after)
    this.pruneVocabulary(before, after)
  }

  /** Deletes the entry (its tags and comments go with it); false if there was none. */
  delete(id: string): boolean {
    const seq = this.stmt('SELECT seq FROM entries WHERE id = ?').pluck().get(id) as number | undefined
    if (seq === undefined) return false
    const before = this.searchTexts(seq)!
    this.stmt('DELETE FROM entries WHERE seq = ?').run(seq)
    this.unindex(seq, before)
    this.pruneVocabulary(before, {title: '', body: '', tags: []})
    return true
  }

  /** A comment row on entry `seq`; the entry's count and version are the caller's to change. */
  insertComment(seq: number, c: Omit<CommentRow, 'entry_id'>): void {
    this.stmt('INSERT INTO comments (id, entry_seq, body, type, author_id, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
      c.id,
      seq,
      c.body,
      c.type,
      c.author_id,
      c.created_at,
    )
  }

  private writeTags(seq: number, tags: string[]): void {
    this.stmt('DELETE FROM entry_tags WHERE seq = ?').run(seq)
    const insert = this.stmt('INSERT OR IGNORE INTO entry_tags (tag, seq) VALUES (?, ?)')
    for (const tag of tags) insert.run(tag, seq)
  }

  private searchTexts(seq: number): SearchTexts | null {
    const row = this.stmt('SELECT title, body, tags FROM entries WHERE seq = ?').get(seq) as
      {title: string; body: string; tags: string} | undefined
    return row ? {title: row.title, body: row.body, tags: JSON.parse(row.tags) as string[]} : null
  }

  /** The entry's terms into the full-text index (migration 7: FTS5 holds terms, tokenized by whitespace alone). */
  private index(seq: number, t: SearchTexts): void {
    this.stmt('INSERT INTO entries_fts (rowid, title, tags, body) VALUES (?, ?, ?, ?)').run(seq, ...ftsColumns(t))
  }

  /**
   * Takes the entry's old terms out of the full-text index. A contentless FTS5 table deletes by being told the
   * terms it held, which the tokenizer gives again from the old text (it is deterministic; a change to it comes
   * with a migration that rebuilds the index, as 7 does). So every count — the totals BM25F reads, document
   * frequencies, the vocabulary — follows deletes exactly (`contentless_delete` would not update the totals).
   */
  private unindex(seq: number, before: SearchTexts): void {
    this.stmt("INSERT INTO entries_fts (entries_fts, rowid, title, tags, body) VALUES ('delete', ?, ?, ?, ?)").run(
      seq,
      ...ftsColumns(before),
    )
  }

  /**
   * Terms for `search_vocab` that an import adds later, a slice at a time (`addTerms`), instead of at once: an
   * entry of 100,000 characters of distinct words brings 11,000 of them, ~70 ms of inserts in one turn of the
   * event loop. Null (the default): added at once, as live writes do.
   */
  deferredTerms: string[] | null = null

  /** Records the texts' index terms in `search_vocab`, where typo tolerance and completion look (server/search/vocabulary.ts). */
  private addVocabulary(texts: SearchTexts): void {
    const terms = vocabularyTerms(textsOf(texts))
    if (this.deferredTerms) for (const term of terms) this.deferredTerms.push(term)
    else this.addTerms(terms)
  }

  /**
   * Adds terms to `search_vocab` a slice at a time, each slice its own transaction, other requests running between
   * (a live create's vocabulary, after the entry is committed; the answer waits for the last slice).
   */
  async addTermsInSlices(db: Database.Database, terms: string[]): Promise<void> {
    for (let i = 0; i < terms.length; i += TERMS_PER_SLICE) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve))
      db.transaction(() => this.addTerms(terms.slice(i, i + TERMS_PER_SLICE))).immediate()
    }
  }

  /**
   * Terms known to be in `search_vocab` within the current transaction (an import's, a bulk load's), so that each is
   * inserted once rather than once per entry that holds it: at 100,000 entries the repeated `INSERT OR IGNORE`s were
   * a third of an import's time. A term pruned meanwhile leaves the set. Null (the default): every term is inserted.
   */
  knownTerms: Set<string> | null = null

  /** Adds terms to `search_vocab` (those it holds already stay as they are). */
  addTerms(terms: Iterable<string>): void {
    const insert = this.stmt('INSERT OR IGNORE INTO search_vocab (head, len, term, rev) VALUES (?, ?, ?, ?)')
    const known = this.knownTerms
    for (const term of terms) {
      if (known) {
        if (known.has(term)) continue
        known.add(term)
      }
      insert.run(headOf(term), Array.from(term).length, term, reversed(term))
    }
  }

  /**
   * Drops from `search_vocab` the terms of replaced or deleted text that no entry holds any more. One index
   * seek per term (`entries_instances`, stopping at the first occurrence), so the cost follows the size of
   * the text written, not of the store.
   */
  private pruneVocabulary(before: SearchTexts, after: SearchTexts): void {
    const kept = vocabularyTerms(textsOf(after))
    const held = this.stmt('SELECT 1 FROM entries_instances WHERE term = ? LIMIT 1').pluck()
    const remove = this.stmt('DELETE FROM search_vocab WHERE head = ? AND len = ? AND term = ?')
    for (const term of vocabularyTerms(textsOf(before))) {
      if (!kept.has(term) && held.get(term) === undefined) {
        remove.run(headOf(term), Array.from(term).length, term)
        this.knownTerms?.delete(term)
      }
    }
  }
}
