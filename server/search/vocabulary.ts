/**
 * @module The vocabulary that typo tolerance and completion look in, driver-independent: which terms a
 * driver keeps in it, which misspelt-word candidates to accept, and where to read them — a bounded number
 * of small index ranges per word instead of a scan of every term with its first letter (docs/search.md).
 */
import {tokenize} from './tokenizer.js'

/** Shortest term the vocabulary keeps: a shorter word has too many neighbours one edit away to correct. */
export const VOCABULARY_MIN_LENGTH = 4
/** Rows one vocabulary read returns at most; a typo lookup makes at most 24 reads (4 forms × 3 lengths × 2). */
export const PROBE_LIMIT = 100

/** One read of the vocabulary: terms of `length` code points beginning with `head`, and with `prefix` or ending with `suffix`. */
export type VocabularyProbe = {head: string; length: number} & ({prefix: string} | {suffix: string})

const WORD_TERM = /^[\p{L}\p{N}]+$/u

/** Whether the vocabulary keeps an index term: a word (letters and digits) at least VOCABULARY_MIN_LENGTH long. */
export function inVocabulary(term: string): boolean {
  return WORD_TERM.test(term) && codePoints(term).length >= VOCABULARY_MIN_LENGTH
}

/** The terms of the texts that the vocabulary keeps. */
export function vocabularyTerms(texts: string[]): Set<string> {
  const out = new Set<string>()
  for (const text of texts) tokenize(text, (term) => inVocabulary(term) && out.add(term))
  return out
}

/** A term's first code point, by which the vocabulary is grouped. */
export function headOf(term: string): string {
  return String.fromCodePoint(term.codePointAt(0)!)
}

/** The term with its code points in reverse order: a vocabulary index on it reads terms by their ending. */
export function reversed(term: string): string {
  return codePoints(term).reverse().join('')
}

function codePoints(s: string): string[] {
  return Array.from(s)
}

/** The word and the word less up to three trailing characters (the stemmer drops suffixes such as "-ing", "-ed"). */
function typoForms(word: string): string[] {
  const forms = [word]
  for (let k = 1; k <= 3 && word.length - k >= VOCABULARY_MIN_LENGTH; k++) forms.push(word.slice(0, word.length - k))
  return forms
}

/**
 * The reads that find every vocabulary term one edit away from a form of the word (typoCandidates).
 * A term within one insertion, deletion, substitution or swap of neighbours of a form of n characters
 * has a length within one of n and shares with it its first ⌊n/2⌋ characters or its last n − ⌊n/2⌋ − 1:
 * no single edit touches both. So two index ranges per form and length, each read at most PROBE_LIMIT
 * rows deep, replace a scan of every term with the word's first letter (which grows with the store).
 */
export function typoProbes(word: string): VocabularyProbe[] {
  const head = headOf(word)
  const seen = new Set<string>()
  const out: VocabularyProbe[] = []
  const add = (probe: VocabularyProbe): void => {
    const key = JSON.stringify(probe)
    if (seen.has(key)) return
    seen.add(key)
    out.push(probe)
  }
  for (const form of typoForms(word)) {
    const chars = codePoints(form)
    const n = chars.length
    const half = Math.floor(n / 2)
    const prefix = chars.slice(0, half).join('')
    const suffix = chars.slice(half + 1).join('')
    for (let length = Math.max(VOCABULARY_MIN_LENGTH, n - 1); length <= n + 1; length++) {
      add({head, length, prefix})
      add({head, length, suffix})
    }
  }
  return out
}

/**
 * Indexed (stemmed) terms that a possibly misspelt word may stand for: one edit away from the word or
 * from the word less up to three trailing characters. `vocabulary` comes in the vocabulary's order
 * (by length, then term); the first eight are taken.
 */
export function typoCandidates(word: string, vocabulary: string[]): string[] {
  const out: string[] = []
  const forms = typoForms(word)
  for (const v of vocabulary) {
    if (v.length < VOCABULARY_MIN_LENGTH) continue
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

/** Vocabulary order: by length in code points, then by code points (SQLite's BINARY order of UTF-8). */
export function byVocabularyOrder(a: string, b: string): number {
  const la = codePoints(a).length
  const lb = codePoints(b).length
  if (la !== lb) return la - lb
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}
