/**
 * @module Driver-independent pieces of search: turning a query into terms, stop words, and typo candidates.
 */

// Words that carry no meaning in a question ("what are the problems of …"); dropped from queries unless
// nothing else is left. Kept short on purpose: BM25 already gives frequent words little weight.
const STOP_WORDS = new Set(
  ('a an and are as at be been being but by can could did do does for from had has have how i if in into is it its ' +
    'may might must no not of on or so such than that the their them then there these they this those to was ' +
    'we were what when where which while who whom why will with would you your').split(' '),
)

/** Splits a query into lower-case, accent-free words (letters and digits), in order, without repeats. */
export function queryTerms(query: string): string[] {
  const folded = query.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase()
  const words = folded.match(/[\p{L}\p{N}]+/gu) ?? []
  return [...new Set(words)]
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
