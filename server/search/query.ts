/**
 * @module Query parsing: a query's text as the terms search looks up (words, code tokens as phrases, the
 * word being typed as a prefix), stop words, and the terms that take part in ranking (docs/search.md).
 */
import {fold} from './text.js'

// Words that carry no meaning in a question ("what are the problems of …"); dropped from queries unless
// nothing else is left. Kept short on purpose: BM25 already gives frequent words little weight.
const STOP_WORDS = new Set(
  (
    'a an and are as at be been being but by can could did do does for from had has have how i if in into is it its ' +
    'may might must no not of on or so such than that the their them then there these they this those to was ' +
    'we were what when where which while who whom why will with would you your'
  ).split(' '),
)

const WORD = /[\p{L}\p{N}]+/gu
/**
 * The most words a phrase has: matching a phrase costs the index and the re-ranker work in proportion to
 * its length at every occurrence of its words, and a longer code token is found well enough by its parts.
 */
const PHRASE_WORDS_MAX = 8

/**
 * Splits a query into its terms, lower-cased and accent-free, in order, without repeats. Everything that
 * is not a letter or digit separates words, so FTS5 syntax in the input (`AND`, `"`, `*`, `:`, `(` …)
 * is plain text. Besides the words, a term may be:
 * - a **phrase** (words joined by one space): the parts of a code token in the order written, so that
 *   `max_idle_conns`, `foo.bar()`, `src/server/app.ts` or `node:http` match as a whole (the index splits
 *   them into adjacent words) above entries that merely contain the parts; `getUserName` brings the
 *   phrase `get user name` too, for the same identifier written `get_user_name`. A token of more than
 *   PHRASE_WORDS_MAX parts brings its words only;
 * - a **prefix** (a word and `*`): the last word, when the query ends inside it (someone is still typing;
 *   `daemo` → `daemon`). Words under three letters and stop words are not completed.
 */
export function queryTerms(query: string): string[] {
  const out: string[] = []
  const chunks = query.split(/\s+/).filter((c) => c !== '')
  const typing = /[\p{L}\p{N}]$/u.test(query)
  chunks.forEach((chunk, i) => {
    const runs = chunk.match(WORD) ?? []
    const words = runs.map(fold)
    if (words.length === 0) return
    if (words.length > 1 && words.length <= PHRASE_WORDS_MAX) out.push(words.join(' '))
    for (const run of runs) {
      const camel = camelParts(run)
      if (camel.length > 1 && camel.length <= PHRASE_WORDS_MAX) out.push(camel.map(fold).join(' '))
    }
    out.push(...words)
    const last = words.at(-1)!
    if (i === chunks.length - 1 && typing && Array.from(last).length >= 3 && !STOP_WORDS.has(last)) out.push(`${last}*`)
  })
  return [...new Set(out)]
}

/** `getUserName` → get, User, Name; `XMLHttpRequest` → XML, Http, Request; one part when not camel case. */
function camelParts(run: string): string[] {
  return run.match(/\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|[^\p{Lu}\p{Ll}\p{N}]+/gu) ?? [run]
}

export type ParsedTerm = {kind: 'word'; word: string} | {kind: 'phrase'; words: string[]} | {kind: 'prefix'; word: string}

/** Reads back a term of queryTerms: a word, a phrase of words, or a prefix to complete. */
export function parseTerm(term: string): ParsedTerm {
  if (term.includes(' ')) return {kind: 'phrase', words: term.split(' ').filter((w) => w !== '')}
  if (term.endsWith('*') && term.length > 1) return {kind: 'prefix', word: term.slice(0, -1)}
  return {kind: 'word', word: term}
}

/** The terms worth matching: without stop words, unless the query is nothing but stop words. */
export function rankTerms(terms: string[]): string[] {
  const meaningful = terms.filter((t) => !STOP_WORDS.has(t))
  return (meaningful.length > 0 ? meaningful : terms).slice(0, 64)
}
