/**
 * @module `explain` for a driver without FTS5's highlight() and snippet(): which fields and words of a hit
 * matched the query's terms, and an excerpt of its body around the most matches with them marked «», found
 * with the shared tokenizer (text.ts) so they agree with what the index matched. One linear pass per field.
 */
import type {SearchHit} from '../store/store.js'
import {SEARCH_FIELDS, type SearchField} from './bm25f.js'
import type {CandidateText, IndexTerm} from './driver.js'
import {fold, stemOf} from './text.js'

/** Tokens in a snippet, as FTS5's snippet(…, 24) gives. */
const SNIPPET_TOKENS = 24
const WORD = /[\p{L}\p{N}\p{M}]+/gu
const FOLDED_WORD = /[\p{L}\p{N}]+/gu

interface Token {
  start: number
  end: number
  /** The index terms of the token (usually one; more when folding splits it, e.g. a ligature). */
  stems: string[]
}

function tokenize(text: string): Token[] {
  const out: Token[] = []
  for (const m of text.matchAll(WORD)) {
    const stems = (fold(m[0]).match(FOLDED_WORD) ?? []).map(stemOf)
    if (stems.length > 0) out.push({start: m.index, end: m.index + m[0].length, stems})
  }
  return out
}

/** Spans [first token, last token] that match: a word term's token, or a phrase's tokens adjacent and in order. */
function matchedSpans(tokens: Token[], terms: IndexTerm[]): Array<[number, number]> {
  const words = new Set(terms.filter((t) => !t.phrase || t.phrase.length < 2).map((t) => t.stem))
  const phrases = terms.filter((t) => t.phrase && t.phrase.length > 1).map((t) => t.phrase!)
  const spans: Array<[number, number]> = []
  tokens.forEach((token, i) => {
    if (token.stems.some((s) => words.has(s))) spans.push([i, i])
    for (const phrase of phrases) {
      if (i + phrase.length > tokens.length) continue
      if (phrase.every((stem, j) => tokens[i + j]!.stems.includes(stem))) spans.push([i, i + phrase.length - 1])
    }
  })
  // Overlapping spans become one, as FTS5 highlights them.
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  const merged: Array<[number, number]> = []
  for (const s of spans) {
    const last = merged.at(-1)
    if (last && s[0] <= last[1]) last[1] = Math.max(last[1], s[1])
    else merged.push([s[0], s[1]])
  }
  return merged
}

/** The text from token `from` to token `to` with the spans inside marked «». */
function marked(text: string, tokens: Token[], spans: Array<[number, number]>, from: number, to: number): string {
  let out = ''
  let at = tokens[from]?.start ?? 0
  for (const [a, b] of spans) {
    if (b < from || a > to) continue
    const start = tokens[Math.max(a, from)]!.start
    const end = tokens[Math.min(b, to)]!.end
    out += `${text.slice(at, start)}«${text.slice(start, end)}»`
    at = end
  }
  return out + text.slice(at, tokens[to]?.end ?? text.length)
}

/** Which fields and words matched, and the body's best excerpt of SNIPPET_TOKENS tokens, matches marked «». */
export function explainHit(doc: CandidateText, terms: IndexTerm[]): Pick<SearchHit, 'matched' | 'snippet'> {
  const texts: Record<SearchField, string> = {title: doc.title, tags: JSON.stringify(doc.tags), body: doc.body}
  const fields: string[] = []
  const found = new Set<string>()
  let snippet = ''
  for (const field of SEARCH_FIELDS) {
    const text = texts[field]
    const tokens = tokenize(text)
    const spans = matchedSpans(tokens, terms)
    if (spans.length > 0) fields.push(field)
    for (const [a, b] of spans) found.add(text.slice(tokens[a]!.start, tokens[b]!.end).toLowerCase())
    if (field !== 'body' || tokens.length === 0) continue
    // The window with the most matched tokens, the earliest of equals: a sliding count over the tokens.
    const hit = new Uint8Array(tokens.length)
    for (const [a, b] of spans) hit.fill(1, a, b + 1)
    let best = 0
    let bestCount = -1
    let count = 0
    for (let i = 0; i < tokens.length; i++) {
      count += hit[i]!
      if (i >= SNIPPET_TOKENS) count -= hit[i - SNIPPET_TOKENS]!
      const start = Math.max(0, i - SNIPPET_TOKENS + 1)
      if (count > bestCount && (i >= SNIPPET_TOKENS - 1 || i === tokens.length - 1)) {
        best = start
        bestCount = count
      }
    }
    const last = Math.min(tokens.length, best + SNIPPET_TOKENS) - 1
    snippet = `${best > 0 ? '…' : ''}${marked(text, tokens, spans, best, last)}${last < tokens.length - 1 ? '…' : ''}`
  }
  return {matched: {fields, terms: [...found]}, snippet}
}
