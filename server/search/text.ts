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
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
}

const TOKEN = /[\p{L}\p{N}\p{M}]+/gu

const ASCII = /^[\x00-\x7f]*$/

/** The tokens of a text with their places in it (UTF-16 offsets) and folded words, for marking matches. */
export function tokenSpans(text: string): Array<{start: number; end: number; word: string}> {
  const out: Array<{start: number; end: number; word: string}> = []
  if (!ASCII.test(text)) {
    for (const m of text.matchAll(TOKEN)) out.push({start: m.index, end: m.index + m[0].length, word: fold(m[0])})
    return out
  }
  // ASCII text (most of it) needs no normalising: a scan of char codes.
  const lower = text.toLowerCase()
  let start = -1
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? lower.charCodeAt(i) : 32
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i
    } else if (start >= 0) {
      out.push({start, end: i, word: lower.slice(start, i)})
      start = -1
    }
  }
  return out
}
