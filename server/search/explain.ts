/**
 * @module `explain=true` for a hit, driver-independent and linear in the entry's text: which fields and
 * words matched the query's terms, and the best excerpt of the body with the matches marked «» (docs/api.md,
 * "Search"). A window of SNIPPET_TOKENS tokens is slid once over the body, keeping the one that holds the
 * most distinct terms, then the most matches, the earliest on a tie.
 */
import type {SearchHit} from '../store/store.js'
import {SEARCH_FIELDS} from './bm25f.js'
import type {CandidateText, IndexTerm} from './driver.js'
import {PhraseCounter} from './phrases.js'
import {stemOf, tokenSpans} from './text.js'

const NONE: readonly number[] = []
/** Tokens in a snippet. */
const SNIPPET_TOKENS = 24

/** A field's tokens and the marked spans (token ranges, inclusive) of its matches, each with its term. */
interface Marked {
  spans: Array<{from: number; to: number}>
  /** Per token: the terms whose match ends at it, if any. */
  hits: Array<number[] | undefined>
  tokens: Array<{start: number; end: number; word: string}>
}

export function explainHit(text: CandidateText, terms: IndexTerm[]): Pick<SearchHit, 'matched' | 'snippet'> {
  const words = new Map<string, number>()
  const phrases: Array<{stems: string[]; term: number}> = []
  terms.forEach((t, i) => {
    if (t.phrase && t.phrase.length > 1) phrases.push({stems: t.phrase, term: i})
    else words.set(t.stem, i)
  })
  const counter = phrases.length > 0 ? new PhraseCounter(phrases) : null
  const length = new Map(phrases.map((p) => [p.term, p.stems.length]))
  const mark = (value: string): Marked => {
    const tokens = tokenSpans(value)
    const spans: Marked['spans'] = []
    const hits: Marked['hits'] = []
    // Spans arrive by their last token; one that reaches back over earlier ones absorbs them.
    const add = (from: number, to: number): void => {
      let last = spans.at(-1)
      while (last && last.to >= from) {
        from = Math.min(from, last.from)
        to = Math.max(to, last.to)
        spans.pop()
        last = spans.at(-1)
      }
      spans.push({from, to})
    }
    counter?.reset()
    for (let i = 0; i < tokens.length; i++) {
      const stem = stemOf(tokens[i]!.word)
      let here: number[] | undefined
      const word = words.get(stem)
      if (word !== undefined) {
        here = [word]
        add(i, i)
      }
      const ending = counter ? counter.step(stem) : NONE
      for (const term of ending) {
        ;(here ??= []).push(term)
        add(i - length.get(term)! + 1, i)
      }
      hits.push(here)
    }
    return {spans, hits, tokens}
  }

  const fields: string[] = []
  // The matched text as written (lower-cased), by folded word for one-token matches: one slice per distinct word.
  const found = new Map<string, string>()
  let body: Marked | null = null
  for (const field of SEARCH_FIELDS) {
    const value = field === 'tags' ? text.tags.join(' ') : text[field]
    const marked = mark(value)
    if (field === 'body') body = marked
    if (marked.spans.length > 0) fields.push(field)
    for (const {from, to} of marked.spans) {
      const first = marked.tokens[from]!
      const key = from === to ? first.word : `${first.start}:${field}`
      if (!found.has(key)) found.set(key, value.slice(first.start, marked.tokens[to]!.end).toLowerCase())
    }
  }
  return {matched: {fields, terms: [...new Set(found.values())]}, snippet: snippet(text.body, body!, terms.length)}
}

function snippet(body: string, marked: Marked, termCount: number): string {
  const {tokens, hits, spans} = marked
  if (tokens.length === 0) return ''
  const inWindow = new Int32Array(termCount)
  let distinct = 0
  let count = 0
  let best = {from: 0, distinct: -1, count: -1}
  for (let i = 0; i < tokens.length; i++) {
    for (const t of hits[i] ?? []) {
      if (inWindow[t]!++ === 0) distinct++
      count++
    }
    const from = i - SNIPPET_TOKENS + 1
    if (from > 0) {
      for (const t of hits[from - 1] ?? []) {
        if (--inWindow[t]! === 0) distinct--
        count--
      }
    }
    if (distinct > best.distinct || (distinct === best.distinct && count > best.count)) best = {from: Math.max(0, from), distinct, count}
  }
  const from = best.from
  const to = Math.min(tokens.length, from + SNIPPET_TOKENS) - 1
  let out = from > 0 ? '…' : ''
  let at = tokens[from]!.start
  for (const s of spans) {
    if (s.to < from || s.from > to) continue
    const start = tokens[Math.max(s.from, from)]!.start
    const end = tokens[Math.min(s.to, to)]!.end
    out += `${body.slice(at, start)}«${body.slice(start, end)}»`
    at = end
  }
  out += body.slice(at, tokens[to]!.end)
  return to < tokens.length - 1 ? `${out}…` : out
}
