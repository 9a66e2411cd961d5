/**
 * @module Query likelihood beside BM25F: each candidate's Dirichlet-smoothed query likelihood (Zhai & Lafferty), fused
 * with its BM25F score by a weighted sum after scaling both to the best candidate's (CombSUM of normalised scores).
 * Two rankers that weigh term frequency and length differently agree on what is relevant more often than on what is
 * not (docs/search.md, "Ranking past BM25").
 */

interface LikelihoodParams {
  /** Dirichlet prior: how many tokens of the collection's language model a document is smoothed with. */
  mu: number
  /** The likelihood's share of the fused score (0: BM25F alone). */
  weight: number
}

const LIKELIHOOD: LikelihoodParams = {mu: 3000, weight: 0.2}

/** A query term as the likelihood needs it: its weight in the query and how many entries hold it. */
export interface LikelihoodTerm {
  weight: number
  df: number
}

/**
 * log P(q|d) up to a constant of the query: Σ w·(log(1 + tf/(μ·P(t|C))) + log(μ/(|d| + μ))), the rank-equivalent form of
 * Dirichlet smoothing. P(t|C) is estimated from the document frequency (df over the collection's tokens), since the
 * index counts entries per term, not occurrences.
 */
export function queryLikelihood(
  counts: ArrayLike<number>,
  length: number,
  terms: LikelihoodTerm[],
  collectionTokens: number,
  mu = LIKELIHOOD.mu,
): number {
  const lengthPart = Math.log(mu / (length + mu))
  const tokens = Math.max(1, collectionTokens)
  let sum = 0
  terms.forEach((t, i) => {
    const pc = Math.max(1, t.df) / tokens
    sum += t.weight * (Math.log(1 + counts[i]! / (mu * pc)) + lengthPart)
  })
  return sum
}

/**
 * BM25F and likelihood fused: each scaled so that the best candidate's is BM25F's best, then `(1 − weight)·bm25f +
 * weight·likelihood`. Scaling to the best, not to the pool's range, keeps the result independent of how deep a driver's
 * first stage reads. A likelihood below 0 (a long entry with a weak match) counts as 0, so a fused score stays positive
 * for the confidence factor to multiply.
 */
export function fuse(bm25f: number[], likelihood: number[], weight = LIKELIHOOD.weight): number[] {
  const best = Math.max(0, ...bm25f)
  const top = Math.max(0, ...likelihood)
  if (weight === 0 || top === 0) return bm25f
  return bm25f.map((r, i) => (1 - weight) * r + (weight * best * Math.max(0, likelihood[i]!)) / top)
}
