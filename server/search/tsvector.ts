/**
 * @module An entry's text as PostgreSQL's full-text types hold it, written from the shared tokenizer (tokenizer.ts)
 * rather than by PostgreSQL's own parser, so that both drivers index exactly the same terms: a `tsvector`
 * literal with every term's positions (title weight A, tags B, body D, a gap between fields so a phrase never
 * spans two), the entry's distinct terms and its field lengths (BM25F's statistics), and `tsquery` literals
 * matching any of a search's terms. Tags are tokenized as one text, as the FTS5 table indexes them.
 */
import type {SearchField} from './bm25f.js'
import type {IndexTerm} from './driver.js'
import {indexTerms, tagsText} from './tokenizer.js'

/** PostgreSQL's largest position; later tokens share it (phrases there may match loosely, the re-ranker reads the text). */
const POSITION_MAX = 16_383
/** Positions kept per term; PostgreSQL keeps no more. */
const POSITIONS_PER_TERM = 256
const WEIGHTS: Record<SearchField, string> = {title: 'A', tags: 'B', body: ''}
/** PostgreSQL's longest lexeme in bytes; a longer "word" (a hash, a blob pasted whole) is not indexed on PostgreSQL. */
const LEXEME_BYTES_MAX = 2047

/** Whether PostgreSQL can index the term (short enough; a UTF-16 unit is at most 3 bytes of UTF-8). */
export function indexable(term: string): boolean {
  return term.length * 3 <= LEXEME_BYTES_MAX || Buffer.byteLength(term, 'utf8') <= LEXEME_BYTES_MAX
}

export interface IndexedEntry {
  /** The `tsvector` literal (cast with `::tsvector`). */
  vector: string
  /** The distinct terms. */
  terms: string[]
  /** Tokens per field. */
  lengths: Record<SearchField, number>
}

/** A term as a quoted lexeme of a tsvector or tsquery literal. */
function lexeme(term: string): string {
  return `'${term.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`
}

/** The index form of an entry's searchable text. */
export function indexEntry(title: string, tags: string[], body: string): IndexedEntry {
  const fields: Record<SearchField, string[]> = {
    title: indexTerms(title),
    tags: indexTerms(tagsText(tags)),
    body: indexTerms(body),
  }
  const positions = new Map<string, string[]>()
  let position = 0
  for (const field of ['title', 'tags', 'body'] as const) {
    for (const term of fields[field]) {
      position = Math.min(POSITION_MAX, position + 1)
      if (!indexable(term)) continue
      let list = positions.get(term)
      if (!list) positions.set(term, (list = []))
      if (list.length < POSITIONS_PER_TERM) list.push(`${position}${WEIGHTS[field]}`)
    }
    position = Math.min(POSITION_MAX, position + 1)
  }
  const terms = [...positions.keys()]
  return {
    vector: terms.map((t) => `${lexeme(t)}:${positions.get(t)!.join(',')}`).join(' '),
    terms,
    lengths: {title: fields.title.length, tags: fields.tags.length, body: fields.body.length},
  }
}

/**
 * One term as a tsquery: an index term, any of its spellings, or a phrase's terms adjacent and in order; with
 * `weight`, only in that weight's field.
 */
function termQuery(term: IndexTerm, weight: string): string {
  const parts = term.terms.map((t) => `${lexeme(t)}${weight === '' ? '' : `:${weight}`}`)
  return parts.length === 1 ? parts[0]! : `(${parts.join(term.phrase ? ' <-> ' : ' | ')})`
}

/** A tsquery literal matching any of the terms; `titleOnly` keeps it to title positions (weight A). */
export function anyTermQuery(terms: IndexTerm[], titleOnly = false): string {
  return terms.map((t) => termQuery(t, titleOnly ? WEIGHTS.title : '')).join(' | ')
}
