/**
 * @module BM25F ranking (Robertson & Zaragoza), driver-independent: a driver finds candidates, this scorer
 * orders them over all the query's terms with per-field length normalisation (docs/search.md, "Ranking").
 */
import {type Phrase, PhraseCounter} from './phrases.js'
import {fold, stemOf} from './text.js'

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

/**
 * Scores documents against a query with BM25F (Robertson & Zaragoza): each field's term frequency is
 * normalised by that field's length, weighted, summed, then saturated once per term with k1.
 */
export class Bm25fScorer {
  private readonly index = new Map<string, number>()
  private readonly idfs: number[]
  private readonly weights: number[]
  private readonly phrases: PhraseCounter | null
  private readonly firstChars: Set<string>
  private readonly asciiFirst = new Uint8Array(128)

  constructor(
    terms: RankTerm[],
    private readonly stats: CollectionStats,
    private readonly params: RankingParams = RANKING,
  ) {
    const phrases: Phrase[] = []
    terms.forEach((t, i) => {
      if (t.phrase && t.phrase.length > 1) phrases.push({stems: t.phrase, term: i})
      else this.index.set(t.stem, i)
    })
    this.phrases = phrases.length > 0 ? new PhraseCounter(phrases) : null
    this.idfs = terms.map((t) => idf(t.df, Math.max(stats.docs, t.df)))
    this.weights = terms.map((t) => t.weight ?? 1)
    // The stemmer never changes a word's first character, so other words need no stemming at all.
    this.firstChars = new Set([...this.index.keys(), ...phrases.flatMap((p) => p.stems)].map((stem) => stem[0]!))
    for (const c of this.firstChars) if (c.charCodeAt(0) < 128) this.asciiFirst[c.charCodeAt(0)] = 1
  }

  /** Counts one token (its stem, or null when it cannot be a query term) towards words and phrases. */
  private visit(stem: string | null, tf: Float64Array): void {
    if (stem !== null) {
      const t = this.index.get(stem)
      if (t !== undefined) tf[t]!++
    }
    if (this.phrases) for (const term of this.phrases.step(stem)) tf[term]!++
  }

  /** Occurrences of each query term in the text, and the text's length in tokens. */
  private count(text: string, tf: Float64Array): number {
    this.phrases?.reset()
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
    for (let i = 0; i < n; i++)
      if (combined[i]! > 0) score += (this.weights[i]! * this.idfs[i]! * combined[i]! * (k1 + 1)) / (k1 + combined[i]!)
    return score
  }
}
