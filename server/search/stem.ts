/**
 * @module The index form of a folded word: its Porter stem (porter.ts), memoised — the same few thousand words
 * recur in every document, and the re-ranker stems every candidate's text.
 */
import {porterStem} from './porter.js'

const STEM_CACHE_MAX = 100_000
const stemCache = new Map<string, string>()

export function stemOf(word: string): string {
  let s = stemCache.get(word)
  if (s === undefined) {
    if (stemCache.size >= STEM_CACHE_MAX) stemCache.clear()
    s = porterStem(word)
    stemCache.set(word, s)
  }
  return s
}
