/**
 * @module Text as the index sees it: folding (lower case, accents removed) and Porter stems, the same
 * terms the SQLite FTS5 tokenizer (`porter unicode61 remove_diacritics 2`) produces, for every driver.
 */
import {porterStem} from './porter.js'

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

/** The index terms (stems) of a text in order, one per token, as the FTS5 tokenizer produces them; what a driver without FTS5 indexes. */
export function indexTokens(text: string): string[] {
  return (fold(text).match(/[\p{L}\p{N}]+/gu) ?? []).map(stemOf)
}

/** The distinct index terms (stems) of a text, as the FTS5 tokenizer produces them. */
export function indexStems(text: string): Set<string> {
  return new Set(indexTokens(text))
}

/** Folds text as the index tokenizer does (lower case, accents removed). */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase()
}
