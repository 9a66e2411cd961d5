/**
 * @module How alike two entries are (docs/search.md, "Similar entries"): a deterministic, lexical measure in [0, 1]
 * over the shared tokenizer's terms, for the check made when an entry is written. Each text is read once into a
 * fingerprint (a bounded prefix of title and body: linear in its length, whatever the entry's size); two
 * fingerprints compare as a weighted Jaccard of their term sets, titles counted apart, lifted when both name
 * the same error line or the same anchor.
 */
import {tokenize} from './tokenizer.js'

/** Characters of a body read: what states the knowledge is at its start, and this bounds the work. */
const BODY_PREFIX = 8_000
/** Longest line taken as an error line. */
const ERROR_LINE_MAX = 300

// Words that say nothing about which knowledge an entry holds; in stemmed form, as the tokenizer gives them.
const STOP = new Set(
  (
    'a an and ar as at be been but by can could did do doe for from had ha have how i if in into is it it\u2019 its may ' +
    'might must no not of on or so such than that the their them then there these thei thi those to wa we were what ' +
    'when where which while who why will with would you your us use instead get when after befor onli also just all ani ' +
    'should need now same new one out up'
  ).split(' '),
)

/** What an entry's text is compared by. */
export interface Fingerprint {
  /** Weighted terms of the title. */
  title: Map<string, number>
  /** Weighted terms of title and body together. */
  all: Map<string, number>
  /** Lines that read as error messages, folded (lower case, spaces squeezed, digits kept). */
  errors: Set<string>
  /** Anchors as `path#symbol` (or the path alone). */
  anchors: Set<string>
}

export interface SimilarityInput {
  title: string
  body: string
  anchors?: ReadonlyArray<{path: string; symbol?: string | null}>
}

/** A term's weight: code tokens and numbers say most, a part of a code token less (its whole counts already). */
function weighTerms(text: string, into: Map<string, number>): void {
  tokenize(text, (term, kind) => {
    if (term === '' || kind === 'form' || STOP.has(term)) return
    let w = 1
    if (kind === 'whole') w = 2.5
    else if (kind === 'part') w = 0.6
    else if (/[0-9_]/.test(term) || term.length >= 11) w = 2
    else if (term.length <= 2) w = 0.3
    if ((into.get(term) ?? 0) < w) into.set(term, w)
  })
}

/** The error lines of a body: a line holding an exception or error word with a colon, or an all-caps error code. */
function errorLines(body: string): Set<string> {
  const out = new Set<string>()
  let start = 0
  while (start < body.length) {
    let end = body.indexOf('\n', start)
    if (end === -1) end = body.length
    const line = body.slice(start, Math.min(end, start + ERROR_LINE_MAX)).trim()
    start = end + 1
    if (line.length < 12) continue
    const lower = line.toLowerCase()
    const looksLikeError =
      (lower.includes('error') || lower.includes('exception') || lower.includes('panic') || lower.includes('fatal')) && line.includes(':')
    if (looksLikeError)
      out.add(
        lower
          .split(/\s+/)
          .join(' ')
          .replace(/^[`>*\-\s]+|[`\s]+$/g, ''),
      )
  }
  return out
}

export function fingerprint(e: SimilarityInput): Fingerprint {
  const body = e.body.length > BODY_PREFIX ? e.body.slice(0, BODY_PREFIX) : e.body
  const title = new Map<string, number>()
  weighTerms(e.title, title)
  const all = new Map(title)
  weighTerms(body, all)
  const anchors = new Set((e.anchors ?? []).map((a) => (a.symbol ? `${a.path}#${a.symbol}` : a.path)))
  return {title, all, errors: errorLines(body), anchors}
}

/** Weighted Jaccard of two term sets: the weight they share over the weight either holds. */
function jaccard(a: Map<string, number>, b: Map<string, number>): number {
  let shared = 0
  let union = 0
  for (const [t, w] of a) {
    const v = b.get(t)
    if (v === undefined) union += w
    else {
      shared += Math.min(w, v)
      union += Math.max(w, v)
    }
  }
  for (const [t, w] of b) if (!a.has(t)) union += w
  return union === 0 ? 0 : shared / union
}

/** Weight shared over the smaller side's weight: a short restatement inside a longer entry still counts. */
function containment(a: Map<string, number>, b: Map<string, number>): number {
  let shared = 0
  let wa = 0
  let wb = 0
  for (const [t, w] of a) {
    wa += w
    const v = b.get(t)
    if (v !== undefined) shared += Math.min(w, v)
  }
  for (const w of b.values()) wb += w
  const small = Math.min(wa, wb)
  return small === 0 ? 0 : shared / small
}

const intersects = (a: Set<string>, b: Set<string>): boolean => [...a].some((x) => b.has(x))

/**
 * The similarity of two fingerprints in [0, 1]: the text's weighted Jaccard and containment, the titles', and a
 * lift for a shared error line or anchor (the same failure, the same code). Weights tuned on bench/collections/similar.
 */
export function similarity(a: Fingerprint, b: Fingerprint): number {
  const text = 0.5 * jaccard(a.all, b.all) + 0.5 * containment(a.all, b.all)
  const title = jaccard(a.title, b.title)
  let s = 0.7 * text + 0.3 * title
  if (intersects(a.errors, b.errors)) s += 0.25
  if (intersects(a.anchors, b.anchors)) s += 0.15
  return Math.min(1, Number(s.toFixed(4)))
}

/**
 * The search the candidates come from: the title and the body's most telling terms (code tokens, numbers, long
 * words; first seen first), at most `max` of them, as plain words a query reads (query.ts).
 */
export function candidateQuery(e: SimilarityInput, max = 6): string {
  const body = e.body.length > BODY_PREFIX ? e.body.slice(0, BODY_PREFIX) : e.body
  const words: string[] = []
  const seen = new Set<string>()
  const take = (text: string, keep: (term: string, kind: string) => boolean, limit: number): void => {
    tokenize(text, (term, kind, start, end) => {
      if (words.length >= limit || term === '' || seen.has(term) || STOP.has(term) || !keep(term, kind)) return
      if (kind === 'part' || kind === 'form') return
      seen.add(term)
      // The word as written: the query reads (and stems) it as the index did.
      words.push(text.slice(start, end))
    })
  }
  take(e.title, () => true, Math.floor(max / 2))
  take(body, (term, kind) => kind === 'whole' || /[0-9_]/.test(term) || term.length >= 7, max)
  // A trailing space: the last word is complete, not a prefix being typed.
  return `${words.join(' ').slice(0, 480)} `
}
