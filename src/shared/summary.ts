/**
 * @module The summary form of an entry (docs/api.md, "Detail levels" and "Summary form"): the first paragraph of text, stripped of
 * Markdown, cut so that the whole `summary` item — id, title, body, status, freshness and a search score, as JSON —
 * stays within SUMMARY_TOKEN_BUDGET (contract.ts) tokens of o200k_base as counted by gpt-tokenizer. Shared by the daemon and `kb mcp`,
 * unlike the rest of src/shared it loads a tokenizer: import it only where tokens are counted.
 */
import {isSpace} from './chars.js'
import {SUMMARY_TOKEN_BUDGET} from './contract.js'
import {firstParagraph} from './markdown.js'
import {countUpTo, piecesWithin} from './tokens.js'

const ELLIPSIS = '…'
// Worst cases of the fields around title and body, so the stored summary fits however the item is served.
const PLACEHOLDER_ID = '01234567-89ab-7cde-8f01-23456789abcd'
// The costliest score a search can serve (6 significant digits, as the store rounds them): an exponent
// form with a sign is 16 tokens where 1234.5678 was 13, so long summaries overflowed in search results.
const PLACEHOLDER_SCORE = -1.23456e-30
// No token is longer than this many characters in practice; it bounds the text we tokenise.
const MAX_CHARS_PER_TOKEN = 32
/** The most characters a cut looks at. */
const CUT_MAX = SUMMARY_TOKEN_BUDGET * MAX_CHARS_PER_TOKEN
// Dropped before the "…" of a cut, with white space.
const TRAILING_PUNCTUATION = new Set(['.', ',', ';', ':', '!', '?', '-', '–', '—', '('])
const SENTENCE_END = new Set(['.', '!', '?'])

/**
 * Tokens of a summary item as served, with room for the longest status, the freshness word and a search score, in
 * the order the server serves them (score last); counted up to the budget.
 */
function itemTokens(id: string | null, title: string, body: string, supersededBy: string | null): number {
  const item = {id: id ?? PLACEHOLDER_ID, title, body, status: 'resolved', freshness: 'stale'}
  // A superseded entry's item also names its replacement (docs/api.md, "Supersede"): that very id, since ids of
  // the same length differ by several tokens (a placeholder's count let random ones overflow the budget).
  const served =
    supersededBy !== null ? {...item, superseded_by: supersededBy, score: PLACEHOLDER_SCORE} : {...item, score: PLACEHOLDER_SCORE}
  return countUpTo(JSON.stringify(served), SUMMARY_TOKEN_BUDGET)
}

export interface SummaryForm {
  title: string
  body: string
}

/**
 * Computes the title and body shown at `summary` level. Deterministic for the same input; `supersededBy` (the
 * replacement's id) leaves room for `superseded_by` in the item: computed again whenever it changes.
 */
export function summarize(id: string | null, title: string, body: string, supersededBy: string | null = null): SummaryForm {
  const text = firstParagraph(body)
  const fits = (t: string, b: string): boolean => itemTokens(id, t, b, supersededBy) <= SUMMARY_TOKEN_BUDGET
  // Text longer than the cut ever looks at cannot fit whole; not tokenising it all matters, because BPE
  // is quadratic in a long run without spaces (100,000 × "x" took 30 s and blocked the daemon).
  const mayFitWhole = text.length <= CUT_MAX
  if (mayFitWhole && fits(title, text)) return {title, body: text}
  let shownTitle = title
  // A title so long that it leaves no room for the body is cut too: the budget is a promise.
  if (!fits(title, ELLIPSIS)) shownTitle = cutToFit(title, (t) => itemTokens(id, t, ELLIPSIS, supersededBy) <= SUMMARY_TOKEN_BUDGET - 20)
  if (mayFitWhole && fits(shownTitle, text)) return {title: shownTitle, body: text}
  // Where the cut falls, about: as far as the text's own tokens fill the room the rest leaves. The search
  // starts there, so a cut costs two or three counts of the item instead of a dozen.
  const room = SUMMARY_TOKEN_BUDGET - itemTokens(id, shownTitle, ELLIPSIS, supersededBy)
  const near = room > 0 ? Array.from(text.slice(0, piecesWithin(text.slice(0, CUT_MAX), room))).length : 0
  const shownBody = cutToFit(text, (b) => fits(shownTitle, b), near)
  return {title: shownTitle, body: shownBody}
}

/**
 * The longest prefix of `text`, cut at a sentence or else a word boundary and ending in "…", that
 * `fits`. Falls back to a cut between characters when a single word is too long.
 */
export function cutToFit(text: string, fits: (candidate: string) => boolean, near = 0): string {
  const chars = Array.from(text.slice(0, CUT_MAX))
  // Code points that are white space are single UTF-16 units, so the first unit tells.
  const space = (i: number): boolean => i < chars.length && isSpace(chars[i]!.charCodeAt(0))
  const withEllipsis = (n: number): string => {
    let end = n
    while (end > 0 && (space(end - 1) || TRAILING_PUNCTUATION.has(chars[end - 1]!))) end--
    return chars.slice(0, end).join('') + ELLIPSIS
  }
  // Word boundaries: positions just before a space.
  const bounds: number[] = []
  for (let i = 1; i < chars.length; i++) if (space(i) && !space(i - 1)) bounds.push(i)
  const best = largestFitting(bounds, (n) => fits(withEllipsis(n)), lastAtOrBefore(bounds, near))
  if (best !== null) {
    // Prefer ending at a sentence (`.`, `!` or `?` before a space) when one ends in the last half of what fits.
    let lastSentence = best - 1
    while (lastSentence > 0 && !(SENTENCE_END.has(chars[lastSentence - 1]!) && space(lastSentence))) lastSentence--
    if (lastSentence > 0 && lastSentence >= best / 2 && fits(withEllipsis(lastSentence))) return withEllipsis(lastSentence)
    return withEllipsis(best)
  }
  const positions = Array.from({length: chars.length}, (_, i) => i + 1)
  const byChar = largestFitting(positions, (n) => fits(withEllipsis(n)))
  return byChar === null ? ELLIPSIS : withEllipsis(byChar)
}

/**
 * The largest candidate (ascending list) that passes a monotone test: galloping from index `start` (up while
 * candidates pass, else down), then a binary search, so that few are tested and those near the answer (each
 * test tokenises a text, and a long text without spaces is slow).
 */
function largestFitting(candidates: number[], passes: (n: number) => boolean, start = 0): number | null {
  if (candidates.length === 0) return null
  const s = Math.min(Math.max(start, 0), candidates.length - 1)
  // lo passes (or -1), hi fails (or past the end).
  let lo = -1
  let hi = candidates.length
  if (passes(candidates[s]!)) {
    lo = s
    for (let step = 1; s + step < candidates.length; step *= 2) {
      if (!passes(candidates[s + step]!)) {
        hi = s + step
        break
      }
      lo = s + step
    }
  } else {
    hi = s
    for (let step = 1; s - step >= 0; step *= 2) {
      if (passes(candidates[s - step]!)) {
        lo = s - step
        break
      }
      hi = s - step
    }
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1
    if (passes(candidates[mid]!)) lo = mid
    else hi = mid
  }
  return lo < 0 ? null : candidates[lo]!
}

/** The index of the last value at or before `n` in an ascending list (0 when there is none). */
function lastAtOrBefore(sorted: number[], n: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (sorted[mid]! <= n) lo = mid + 1
    else hi = mid
  }
  return Math.max(lo - 1, 0)
}
