/**
 * @module BM25F ranking (Robertson & Zaragoza), driver-independent: a driver finds candidates, this scorer
 * orders them over all the query's terms with per-field length normalisation (docs/search.md, "Ranking").
 */
import type {IndexTerm} from './driver.js'
import {queryLikelihood} from './likelihood.js'
import {type Phrase, PhraseCounter} from './phrases.js'
import {type TokenKind, tokenize} from './tokenizer.js'

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
const RANKING: RankingParams = {
  k1: 2.5,
  fields: {title: {weight: 4, b: 1.0}, tags: {weight: 2, b: 0}, body: {weight: 1, b: 0.6}},
}

export interface CollectionStats {
  /** Entries in the index. */
  docs: number
  /** Mean length in tokens of each field. */
  avgLength: Record<SearchField, number>
}

/**
 * How much one token counts towards a term's frequency, by how the tokenizer made it: a part of a code token
 * counts less than a word standing alone, so that `user` ranks an entry about a user above one that only
 * mentions `getUserName` (docs/search.md, "Tokens").
 */
const TOKEN_WEIGHTS: Record<TokenKind, number> = {word: 1, whole: 1, part: 0.5, form: 1, gram: 1}

/** Inverse document frequency, BM25's with 1 added inside the logarithm so that it never goes negative. */
export function idf(df: number, docs: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5))
}

/**
 * Scores documents against a query with BM25F (Robertson & Zaragoza): each field's term frequency is
 * normalised by that field's length, weighted, summed, then saturated once per term with k1. Fields are
 * read with the index's tokenizer, so the counts are those of the index.
 */
export class Bm25fScorer {
  /** Index term → the query term it counts for. */
  private readonly index = new Map<string, number>()
  private readonly idfs: number[]
  private readonly weights: number[]
  private readonly phrases: PhraseCounter | null
  private readonly firstChars = new Set<number>()
  private readonly asciiFirst = new Uint8Array(128)

  constructor(
    private readonly terms: IndexTerm[],
    private readonly stats: CollectionStats,
    private readonly params: RankingParams = RANKING,
  ) {
    const phrases: Phrase[] = []
    terms.forEach((t, i) => {
      if (t.phrase) phrases.push({stems: t.terms, term: i})
      else for (const term of t.terms) if (!this.index.has(term)) this.index.set(term, i)
    })
    this.phrases = phrases.length > 0 ? new PhraseCounter(phrases) : null
    this.idfs = terms.map((t) => idf(t.df, Math.max(stats.docs, t.df)))
    this.weights = terms.map((t) => t.weight)
    for (const t of terms) {
      for (const term of t.terms) {
        const c = term.charCodeAt(0)
        if (c < 128) this.asciiFirst[c] = 1
        else this.firstChars.add(c)
      }
    }
  }

  /** Whether a word may stem to a query term: Porter keeps the first character, so most words need no stemming. */
  private readonly wanted = (first: number): boolean => (first < 128 ? this.asciiFirst[first] === 1 : this.firstChars.has(first))

  /** Occurrences of each query term in the text (weighted by token kind), and the text's length in tokens. */
  private count(text: string, tf: Float64Array): number {
    this.phrases?.reset()
    let tokens = 0
    tokenize(
      text,
      (term, kind) => {
        tokens++
        if (term === '') {
          this.phrases?.step(null)
          return
        }
        const t = this.index.get(term)
        if (t !== undefined) tf[t]! += TOKEN_WEIGHTS[kind]
        if (this.phrases) for (const p of this.phrases.step(term)) tf[p]!++
      },
      this.wanted,
    )
    return tokens
  }

  /**
   * `bodyScale` (≥ 1) is how many times longer the whole body is than the text given for it (a prefix,
   * docs/search.md "Bounded work"): the body's length is estimated from the prefix's, so a long entry is
   * normalised as long; its matches are those of the prefix.
   */
  score(doc: Record<SearchField, string>, bodyScale = 1): number {
    return this.scores(doc, bodyScale).bm25f
  }

  /**
   * The BM25F score and, from the same reading, the query likelihood (likelihood.ts) over the fields' counts taken
   * together, unweighted.
   */
  scores(doc: Record<SearchField, string>, bodyScale = 1): {bm25f: number; likelihood: number} {
    const n = this.idfs.length
    const combined = new Float64Array(n)
    const tf = new Float64Array(n)
    const counts = new Float64Array(n)
    let tokens = 0
    for (const field of SEARCH_FIELDS) {
      tf.fill(0)
      const length = this.count(doc[field], tf) * (field === 'body' ? bodyScale : 1)
      tokens += length
      for (let i = 0; i < n; i++) counts[i]! += tf[i]!
      const {weight, b} = this.params.fields[field]
      const avg = this.stats.avgLength[field] || 1
      const norm = 1 - b + (b * length) / avg
      for (let i = 0; i < n; i++) if (tf[i]! > 0) combined[i]! += (weight * tf[i]!) / norm
    }
    const k1 = this.params.k1
    let score = 0
    for (let i = 0; i < n; i++)
      if (combined[i]! > 0) score += (this.weights[i]! * this.idfs[i]! * combined[i]! * (k1 + 1)) / (k1 + combined[i]!)
    const {avgLength} = this.stats
    const collectionTokens = this.stats.docs * (avgLength.title + avgLength.tags + avgLength.body)
    return {bm25f: score, likelihood: queryLikelihood(counts, tokens, this.terms, collectionTokens)}
  }
}
