/**
 * @module Driver-independent pieces of search: turning a query into terms, stop words, typo candidates,
 * and the BM25F scorer that re-ranks a driver's candidates (docs/search.md explains the choices).
 */
import {porterStem} from './porter.js'

// Words that carry no meaning in a question ("what are the problems of …"); dropped from queries unless
// nothing else is left. Kept short on purpose: BM25 already gives frequent words little weight.
const STOP_WORDS = new Set(
  ('a an and are as at be been being but by can could did do does for from had has have how i if in into is it its ' +
    'may might must no not of on or so such than that the their them then there these they this those to was ' +
    'we were what when where which while who whom why will with would you your').split(' '),
)

const WORD = /[\p{L}\p{N}]+/gu

/**
 * Splits a query into its terms, lower-cased and accent-free, in order, without repeats. Everything that
 * is not a letter or digit separates words, so FTS5 syntax in the input (`AND`, `"`, `*`, `:`, `(` …)
 * is plain text. Besides the words, a term may be:
 * - a **phrase** (words joined by one space): the parts of a code token in the order written, so that
 *   `max_idle_conns`, `foo.bar()`, `src/server/app.ts` or `node:http` match as a whole (the index splits
 *   them into adjacent words) above entries that merely contain the parts; `getUserName` brings the
 *   phrase `get user name` too, for the same identifier written `get_user_name`;
 * - a **prefix** (a word and `*`): the last word, when the query ends inside it (someone is still typing;
 *   `daemo` → `daemon`). Words under three letters and stop words are not completed.
 */
export function queryTerms(query: string): string[] {
  const out: string[] = []
  const chunks = query.split(/\s+/).filter((c) => c !== '')
  const typing = /[\p{L}\p{N}]$/u.test(query)
  chunks.forEach((chunk, i) => {
    const runs = chunk.match(WORD) ?? []
    const words = runs.map(fold)
    if (words.length === 0) return
    if (words.length > 1) out.push(words.join(' '))
    for (const run of runs) {
      const camel = camelParts(run)
      if (camel.length > 1) out.push(camel.map(fold).join(' '))
    }
    out.push(...words)
    const last = words.at(-1)!
    if (i === chunks.length - 1 && typing && Array.from(last).length >= 3 && !STOP_WORDS.has(last)) out.push(`${last}*`)
  })
  return [...new Set(out)]
}

/** `getUserName` → get, User, Name; `XMLHttpRequest` → XML, Http, Request; one part when not camel case. */
function camelParts(run: string): string[] {
  return run.match(/\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|[^\p{Lu}\p{Ll}\p{N}]+/gu) ?? [run]
}

export type QueryTerm = {kind: 'word'; word: string} | {kind: 'phrase'; words: string[]} | {kind: 'prefix'; word: string}

/** Reads back a term of queryTerms: a word, a phrase of words, or a prefix to complete. */
export function parseTerm(term: string): QueryTerm {
  if (term.includes(' ')) return {kind: 'phrase', words: term.split(' ').filter((w) => w !== '')}
  if (term.endsWith('*') && term.length > 1) return {kind: 'prefix', word: term.slice(0, -1)}
  return {kind: 'word', word: term}
}

/** A term as an FTS5 string: always quoted, so no input can be read as an operator. */
export function ftsString(text: string): string {
  return `"${text.replaceAll('"', '""')}"`
}

/** The terms worth matching: without stop words, unless the query is nothing but stop words. */
export function rankTerms(terms: string[]): string[] {
  const meaningful = terms.filter((t) => !STOP_WORDS.has(t))
  return (meaningful.length > 0 ? meaningful : terms).slice(0, 64)
}

/**
 * Indexed (stemmed) terms that a possibly misspelt word may stand for: one edit away from the word or
 * from the word less up to three trailing characters (the stemmer drops suffixes such as "-ing", "-ed").
 */
export function typoCandidates(word: string, vocabulary: string[]): string[] {
  const out: string[] = []
  const forms = [word]
  for (let k = 1; k <= 3 && word.length - k >= 4; k++) forms.push(word.slice(0, word.length - k))
  for (const v of vocabulary) {
    if (v.length < 4) continue
    if (forms.some((f) => withinOneEdit(f, v))) out.push(v)
  }
  return out.slice(0, 8)
}

/** True when a and b differ by at most one insertion, deletion, substitution or adjacent swap. */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true
  const la = a.length
  const lb = b.length
  if (Math.abs(la - lb) > 1) return false
  let i = 0
  while (i < la && i < lb && a[i] === b[i]) i++
  if (la === lb) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true // substitution
    return i + 1 < la && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2) // swap
  }
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1)
}

/** The fields search looks at, in the order of the FTS5 table's columns. */
export const SEARCH_FIELDS = ['title', 'tags', 'body'] as const
export type SearchField = (typeof SEARCH_FIELDS)[number]

export interface RankingParams {
  /** Term-frequency saturation: how much a second, third … occurrence still adds. */
  k1: number
  /** Per field: how much a match there counts, and how strongly the field's length normalises it (0–1). */
  fields: Record<SearchField, {weight: number; b: number}>
}

/**
 * BM25F parameters, tuned on the Cranfield collection with 2-fold cross-validation (docs/search.md).
 * Tags have no counterpart there; they sit between title and body, as docs/search.md says, without length
 * normalisation: most entries have none or one, so the mean tag count says little.
 */
export const RANKING: RankingParams = {
  k1: 2.5,
  fields: {title: {weight: 4, b: 1.0}, tags: {weight: 2, b: 0}, body: {weight: 1, b: 0.6}},
}

export interface CollectionStats {
  /** Entries in the index. */
  docs: number
  /** Mean length in tokens of each field. */
  avgLength: Record<SearchField, number>
}

export interface RankTerm {
  /** The term as the index stores it (Porter stem of the folded word); for a phrase, its stems joined by spaces. */
  stem: string
  /** How many entries contain it. */
  df: number
  /** A phrase's stems, which count only when adjacent and in this order. */
  phrase?: string[]
  /** How much the term counts (default 1): a completion of a word still being typed counts less than a word. */
  weight?: number
}

/** Inverse document frequency, BM25's with 1 added inside the logarithm so that it never goes negative. */
export function idf(df: number, docs: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5))
}

const STEM_CACHE_MAX = 100_000
const stemCache = new Map<string, string>()

/** The index form of a folded word, memoised: the same few thousand words recur in every document. */
export function stemOf(word: string): string {
  let s = stemCache.get(word)
  if (s === undefined) {
    if (stemCache.size >= STEM_CACHE_MAX) stemCache.clear()
    s = porterStem(word)
    stemCache.set(word, s)
  }
  return s
}

/** The distinct index terms (stems) of a text, as the FTS5 tokenizer produces them. */
export function indexStems(text: string): Set<string> {
  const out = new Set<string>()
  for (const w of fold(text).match(/[\p{L}\p{N}]+/gu) ?? []) out.add(stemOf(w))
  return out
}

/** Folds text as the index tokenizer does (lower case, accents removed). */
function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase()
}

/**
 * Scores documents against a query with BM25F (Robertson & Zaragoza): each field's term frequency is
 * normalised by that field's length, weighted, summed, then saturated once per term with k1.
 */
export class Bm25fScorer {
  private readonly index = new Map<string, number>()
  private readonly idfs: number[]
  private readonly weights: number[]
  private readonly phrases: Array<{stems: string[]; term: number}> = []
  private readonly phraseParts = new Set<string>()
  /** The stems of the last few tokens (null: not a query term), to find phrases. */
  private recent: Array<string | null> = []
  private readonly longestPhrase: number
  private readonly firstChars: Set<string>
  private readonly asciiFirst = new Uint8Array(128)

  constructor(
    terms: RankTerm[],
    private readonly stats: CollectionStats,
    private readonly params: RankingParams = RANKING,
  ) {
    terms.forEach((t, i) => {
      if (t.phrase && t.phrase.length > 1) {
        this.phrases.push({stems: t.phrase, term: i})
        for (const p of t.phrase) this.phraseParts.add(p)
      } else this.index.set(t.stem, i)
    })
    this.longestPhrase = Math.max(0, ...this.phrases.map((p) => p.stems.length))
    this.idfs = terms.map((t) => idf(t.df, Math.max(stats.docs, t.df)))
    this.weights = terms.map((t) => t.weight ?? 1)
    // The stemmer never changes a word's first character, so other words need no stemming at all.
    this.firstChars = new Set([...this.index.keys(), ...this.phraseParts].map((stem) => stem[0]!))
    for (const c of this.firstChars) if (c.charCodeAt(0) < 128) this.asciiFirst[c.charCodeAt(0)] = 1
  }

  /** Counts one token (its stem, or null when it cannot be a query term) towards words and phrases. */
  private visit(stem: string | null, tf: Float64Array): void {
    if (stem !== null) {
      const t = this.index.get(stem)
      if (t !== undefined) tf[t]!++
    }
    if (this.longestPhrase === 0) return
    const recent = this.recent
    recent.push(stem !== null && this.phraseParts.has(stem) ? stem : null)
    if (recent.length > this.longestPhrase) recent.shift()
    if (stem === null) return
    for (const {stems, term} of this.phrases) {
      const from = recent.length - stems.length
      if (from < 0) continue
      let all = true
      for (let j = 0; j < stems.length && all; j++) all = recent[from + j] === stems[j]
      if (all) tf[term]!++
    }
  }

  /** Occurrences of each query term in the text, and the text's length in tokens. */
  private count(text: string, tf: Float64Array): number {
    this.recent = []
    // eslint-disable-next-line no-control-regex
    if (!/^[\x00-\x7f]*$/.test(text)) return this.countUnicode(text, tf)
    // ASCII text (most of it): scan char codes, and cut out only words that may be query terms.
    let tokens = 0
    let start = -1
    const lower = text.toLowerCase()
    for (let i = 0; i <= lower.length; i++) {
      const c = i < lower.length ? lower.charCodeAt(i) : 32
      if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
        if (start < 0) start = i
        continue
      }
      if (start < 0) continue
      tokens++
      this.visit(this.asciiFirst[lower.charCodeAt(start)] === 1 ? stemOf(lower.slice(start, i)) : null, tf)
      start = -1
    }
    return tokens
  }

  private countUnicode(text: string, tf: Float64Array): number {
    const words = fold(text).match(/[\p{L}\p{N}]+/gu)
    if (!words) return 0
    for (const w of words) this.visit(this.firstChars.has(w[0]!) ? stemOf(w) : null, tf)
    return words.length
  }

  score(doc: Record<SearchField, string>): number {
    const n = this.idfs.length
    const combined = new Float64Array(n)
    const tf = new Float64Array(n)
    for (const field of SEARCH_FIELDS) {
      tf.fill(0)
      const length = this.count(doc[field], tf)
      const {weight, b} = this.params.fields[field]
      const avg = this.stats.avgLength[field] || 1
      const norm = 1 - b + (b * length) / avg
      for (let i = 0; i < n; i++) if (tf[i]! > 0) combined[i]! += (weight * tf[i]!) / norm
    }
    const k1 = this.params.k1
    let score = 0
    for (let i = 0; i < n; i++) if (combined[i]! > 0) score += (this.weights[i]! * this.idfs[i]! * combined[i]! * (k1 + 1)) / (k1 + combined[i]!)
    return score
  }
}
