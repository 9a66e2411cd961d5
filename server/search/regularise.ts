/**
 * @module Score regularisation (Diaz, "Regularizing ad hoc retrieval scores", CIKM 2005): the best candidates' scores are
 * each smoothed towards those of the candidates most like them, so that an entry resembling other good hits rises and a
 * stray match among them sinks — the cluster hypothesis, applied to the ranking itself. Bounded: a fixed number of
 * candidates, each read as its heaviest words (docs/search.md, "Ranking past BM25").
 */
import {isStopWordText} from './query.js'
import {tokenize} from './tokenizer.js'

interface RegularisationParams {
  /** How far a score moves towards its neighbours' (0: not at all). */
  weight: number
  /** Candidates regularised: the best of the ranking (the rest keep their scores and stay below them). */
  top: number
  /** Neighbours each is smoothed with. */
  neighbours: number
  /** Words of each candidate compared, the heaviest: bounds a comparison whatever a text's length. */
  words: number
}

export const REGULARISATION: RegularisationParams = {weight: 0.3, top: 30, neighbours: 10, words: 100}

/** Words shorter than this (after stemming) are not compared. */
const WORD_MIN = 3

/**
 * A candidate's words, each with its count: words as written, lower-cased, not stemmed (stemming every word of 30
 * texts of words the stem cache has not seen cost more than the rest of this step), and CJK bigrams; stop words, short
 * words and code tokens' parts left out.
 */
export function wordCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>()
  tokenize(
    text,
    (term, kind, start, end) => {
      if (kind !== 'word' && kind !== 'gram') return
      const word = kind === 'gram' ? term : text.slice(start, end).toLowerCase()
      if (word.length < WORD_MIN || isStopWordText(word)) return
      counts.set(word, (counts.get(word) ?? 0) + 1)
    },
    () => false,
  )
  return counts
}

/** A candidate's heaviest words as ids (into the candidates' joint vocabulary) and unit weights. */
interface Vector {
  ids: Int32Array
  weights: Float64Array
}

/**
 * Unit vectors of the candidates' heaviest words: (1 + ln tf) · ln(1 + n/df), df counted among the candidates
 * themselves; words become ids so that comparing two is array reads, not string lookups.
 */
function vectors(counts: Array<Map<string, number>>, words: number): {vecs: Vector[]; vocabulary: number} {
  const df = new Map<string, number>()
  for (const c of counts) for (const t of c.keys()) df.set(t, (df.get(t) ?? 0) + 1)
  const ids = new Map<string, number>()
  const vecs = counts.map((c): Vector => {
    const terms = [...c.keys()]
    const weights = terms.map((t) => (1 + Math.log(c.get(t)!)) * Math.log(1 + counts.length / df.get(t)!))
    // The heaviest `words`, ties in the order of the text (numbers compared, not strings: this runs 30 times a search).
    let order = terms.map((_, k) => k)
    if (order.length > words) order = order.sort((a, b) => weights[b]! - weights[a]! || a - b).slice(0, words)
    const norm = Math.sqrt(order.reduce((sum, k) => sum + weights[k]! * weights[k]!, 0)) || 1
    const v = {ids: new Int32Array(order.length), weights: new Float64Array(order.length)}
    order.forEach((k, at) => {
      let id = ids.get(terms[k]!)
      if (id === undefined) ids.set(terms[k]!, (id = ids.size))
      v.ids[at] = id
      v.weights[at] = weights[k]! / norm
    })
    return v
  })
  return {vecs, vocabulary: ids.size}
}

/** Cosine similarity of every pair: one candidate's vector spread into a dense array, the others read against it. */
function similarities(vecs: Vector[], vocabulary: number): Float64Array[] {
  const n = vecs.length
  const sim = Array.from({length: n}, () => new Float64Array(n))
  const dense = new Float64Array(vocabulary)
  for (let i = 0; i < n; i++) {
    const a = vecs[i]!
    for (let k = 0; k < a.ids.length; k++) dense[a.ids[k]!] = a.weights[k]!
    for (let j = i + 1; j < n; j++) {
      const b = vecs[j]!
      let s = 0
      for (let k = 0; k < b.ids.length; k++) s += dense[b.ids[k]!]! * b.weights[k]!
      sim[i]![j] = sim[j]![i] = s
    }
    for (let k = 0; k < a.ids.length; k++) dense[a.ids[k]!] = 0
  }
  return sim
}

/**
 * The scores of the candidates whose word counts are given (the best first), regularised: each becomes
 * `(1 − weight)·score + weight·Σ sim·score'/Σ sim` over its `neighbours` most similar (cosine) among them. Every smoothed
 * score lies between the lowest and highest of them, so the candidates after them stay after them.
 */
export function regularise(scores: number[], counts: Array<Map<string, number>>, params: RegularisationParams = REGULARISATION): number[] {
  const n = counts.length
  if (params.weight === 0 || n < 3) return scores.slice(0, n)
  const {vecs, vocabulary} = vectors(counts, params.words)
  const sim = similarities(vecs, vocabulary)
  return scores.slice(0, n).map((score, i) => {
    const near = Array.from(sim[i]!, (s, j) => ({j, s}))
      .filter(({j, s}) => j !== i && s > 0)
      .sort((a, b) => b.s - a.s || a.j - b.j)
      .slice(0, params.neighbours)
    const total = near.reduce((s, x) => s + x.s, 0)
    if (total === 0) return score
    return (1 - params.weight) * score + (params.weight * near.reduce((s, x) => s + x.s * scores[x.j]!, 0)) / total
  })
}
