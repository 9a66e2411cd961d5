/**
 * @module Pseudo-relevance feedback (RM3-style, Lavrenko & Croft; Abdul-Jaleel et al.): the best few hits of a first
 * ranking are taken as relevant, the words they share become extra query terms at a fraction of a typed word's
 * weight, and the candidates are ranked again. Nothing is fetched or learned beforehand: the store's own text is
 * the model (docs/search.md, "Ranking past BM25").
 */
import type {IndexTerm} from './driver.js'
import {isStopWord} from './query.js'
import {tokenize} from './tokenizer.js'

export interface FeedbackParams {
  /** Hits of the first ranking read as relevant. */
  docs: number
  /** Expansion terms added. */
  terms: number
  /** Weight of the strongest expansion term, relative to a typed word (1); the others in proportion. */
  weight: number
  /** Words (not phrases) a query needs before feedback applies: an identifier or two already says what it wants. */
  minQueryWords: number
  /** A term in more than this share of the entries says nothing about the topic. */
  maxDfShare: number
  /** Feedback documents a term must occur in: one document's idiosyncrasies are not the topic. */
  minDocs: number
}

export const FEEDBACK: FeedbackParams = {docs: 8, terms: 10, weight: 0.3, minQueryWords: 3, maxDfShare: 0.2, minDocs: 3}

/** A feedback document: its text and its first-pass relevance. */
export interface FeedbackDoc {
  text: string
  relevance: number
}

/** Terms shorter than this (after stemming) are not worth adding. */
const TERM_MIN = 3
/** Candidate expansion terms whose document frequency is asked for (the best by weight in the feedback documents). */
const CANDIDATES = 40

/**
 * The relevance model of the feedback documents: for each word, Σ_d P(w|d)·P(d|q), with P(d|q) the document's
 * share of the first-pass relevance. Query terms, stop words, numbers and short terms are left out; the best
 * CANDIDATES by weight, best first.
 */
export function relevanceModel(docs: FeedbackDoc[], query: IndexTerm[], minDocs = FEEDBACK.minDocs): Array<{term: string; weight: number}> {
  const known = new Set(query.flatMap((t) => t.terms))
  const total = docs.reduce((s, d) => s + d.relevance, 0)
  const model = new Map<string, number>()
  const seen = new Map<string, number>()
  for (const d of docs) {
    const counts = new Map<string, number>()
    let length = 0
    tokenize(d.text, (term, kind) => {
      length++
      if (kind !== 'word' && kind !== 'gram') return
      if (term.length < TERM_MIN || known.has(term) || isStopWord(term) || /^\p{N}+$/u.test(term)) return
      counts.set(term, (counts.get(term) ?? 0) + 1)
    })
    if (length === 0) continue
    const share = total > 0 ? d.relevance / total : 1 / docs.length
    for (const [term, n] of counts) {
      model.set(term, (model.get(term) ?? 0) + (n / length) * share)
      seen.set(term, (seen.get(term) ?? 0) + 1)
    }
  }
  return [...model]
    .filter(([term]) => seen.get(term)! >= minDocs)
    .map(([term, weight]) => ({term, weight}))
    .sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : 1))
    .slice(0, CANDIDATES)
}

/**
 * The expansion terms: of the model's candidates (with their document frequencies), those in at most `maxDfShare`
 * of the `docs` entries and in more than one entry, weighted by the model times idf so that a word every text
 * uses does not crowd out the telling ones; the best `terms`, the strongest at `weight`.
 */
export function expansionTerms(
  candidates: Array<{term: string; weight: number}>,
  dfs: number[],
  docs: number,
  params: FeedbackParams = FEEDBACK,
): IndexTerm[] {
  const scored = candidates
    .map((c, i) => ({...c, df: dfs[i]!}))
    .filter((c) => c.df > 1 && c.df <= Math.max(2, params.maxDfShare * docs))
    .map((c) => ({...c, score: c.weight * Math.log(1 + docs / c.df)}))
    .sort((a, b) => b.score - a.score || (a.term < b.term ? -1 : 1))
    .slice(0, params.terms)
  const top = scored[0]?.score ?? 0
  return scored.map((c) => ({terms: [c.term], phrase: false, df: c.df, weight: (params.weight * c.score) / top}))
}
