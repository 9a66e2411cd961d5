/**
 * @module `explain=true` for a hit, driver-independent and linear in the entry's text: which fields and
 * words matched the query's terms, and the best excerpt of the body with the matches marked «» (docs/api.md,
 * "Search"). The text is read with the index's tokenizer, so what is marked is what matched. A window of
 * SNIPPET_TOKENS tokens is slid once over the body, keeping the one that holds the most distinct terms, then
 * the most matches, the earliest on a tie.
 */
import type {SearchHit} from '../store/store.js'
import {SEARCH_FIELDS} from './bm25f.js'
import type {CandidateText, IndexTerm} from './driver.js'
import {PhraseCounter} from './phrases.js'
import {tagsText, tokenize} from './tokenizer.js'

/** Tokens in a snippet. */
const SNIPPET_TOKENS = 24

/** A field read for marking: its surface tokens (words, parts, grams) and the matches found in it. */
interface Marked {
  /** Where each surface token lies in the text. */
  surface: Array<{start: number; end: number}>
  /** The matched text ranges, in order, overlapping ones merged. */
  spans: Array<{start: number; end: number}>
  /** Per surface token: the terms whose match ends at or around it, if any. */
  hits: Array<number[] | undefined>
}

export function explainHit(text: CandidateText, terms: IndexTerm[]): Pick<SearchHit, 'matched' | 'snippet'> {
  const words = new Map<string, number>()
  const phrases: Array<{stems: string[]; term: number}> = []
  terms.forEach((t, i) => {
    if (t.phrase) phrases.push({stems: t.terms, term: i})
    else for (const term of t.terms) if (!words.has(term)) words.set(term, i)
  })
  const counter = phrases.length > 0 ? new PhraseCounter(phrases) : null
  const length = new Map(phrases.map((p) => [p.term, p.stems.length]))

  const mark = (value: string): Marked => {
    const surface: Marked['surface'] = []
    const hits: Marked['hits'] = []
    const ranges: Marked['spans'] = []
    // The starts of the last tokens, to mark a phrase from its first token.
    const starts: number[] = []
    counter?.reset()
    tokenize(value, (term, kind, start, end) => {
      if (kind === 'word' || kind === 'part' || kind === 'gram') {
        surface.push({start, end})
        hits.push(undefined)
      }
      starts.push(start)
      // A whole comes before its parts: its hits count at its first part.
      const at = Math.max(0, kind === 'whole' ? surface.length : surface.length - 1)
      const note = (queryTerm: number, from: number): void => {
        ranges.push({start: from, end})
        ;(hits[at] ??= []).push(queryTerm)
      }
      const word = words.get(term)
      if (word !== undefined) note(word, start)
      for (const t of counter?.step(term) ?? []) note(t, starts[starts.length - length.get(t)!]!)
    })
    return {surface, spans: merge(ranges), hits}
  }

  const fields: string[] = []
  const found = new Set<string>()
  let body: Marked | null = null
  for (const field of SEARCH_FIELDS) {
    const value = field === 'tags' ? tagsText(text.tags) : text[field]
    const marked = mark(value)
    if (field === 'body') body = marked
    if (marked.spans.length > 0) fields.push(field)
    for (const s of marked.spans) found.add(value.slice(s.start, s.end).toLowerCase())
  }
  return {matched: {fields, terms: [...found]}, snippet: snippet(text.body, body!, terms.length)}
}

/** The ranges in order of their starts, overlapping or touching ones merged. */
function merge(ranges: Marked['spans']): Marked['spans'] {
  ranges.sort((a, b) => a.start - b.start)
  const out: Marked['spans'] = []
  for (const r of ranges) {
    const last = out.at(-1)
    if (last && r.start < last.end) last.end = Math.max(last.end, r.end)
    else out.push({...r})
  }
  return out
}

function snippet(body: string, marked: Marked, termCount: number): string {
  const {surface, hits, spans} = marked
  if (surface.length === 0) return ''
  const inWindow = new Int32Array(termCount)
  let distinct = 0
  let count = 0
  let best = {from: 0, distinct: -1, count: -1}
  for (let i = 0; i < surface.length; i++) {
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
  const to = Math.min(surface.length, best.from + SNIPPET_TOKENS) - 1
  const first = surface[best.from]!.start
  const last = surface[to]!.end
  let out = best.from > 0 ? '…' : ''
  let at = first
  for (const s of spans) {
    const start = Math.max(s.start, first)
    const end = Math.min(s.end, last)
    if (end <= start || start < at) continue
    out += `${body.slice(at, start)}«${body.slice(start, end)}»`
    at = end
  }
  out += body.slice(at, last)
  return to < surface.length - 1 ? `${out}…` : out
}
