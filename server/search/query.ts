/**
 * @module Query parsing: a query's text as the terms search looks up, read with the index's own tokenizer
 * (tokenizer.ts) so that both sides agree, and the weights each kind of term carries (docs/search.md).
 * Everything but letters, digits and joiners separates words, so FTS5 or tsquery syntax in the input
 * (`AND`, `"`, `*`, `(` …) is plain text.
 */
import {stemOf} from './stem.js'
import {type Chunk, readChunks} from './tokenizer.js'

// Words that carry no meaning in a question ("what are the problems of …"); dropped from queries unless
// nothing else is left. Kept short on purpose: BM25 already gives frequent words little weight.
const STOP_WORDS = new Set(
  (
    'a an and are as at be been being but by can could did do does for from had has have how i if in into is it its ' +
    'may might must no not of on or so such than that the their them then there these they this those to was ' +
    'we were what when where which while who whom why will with would you your'
  ).split(' '),
)

/** Stop words as the index holds them (stemmed: `was` → `wa`), for what reads index terms (feedback.ts). */
const STOP_STEMS = new Set([...STOP_WORDS].map(stemOf))

/** Whether a folded word, as written (not stemmed), is a stop word. */
export function isStopWordText(word: string): boolean {
  return STOP_WORDS.has(word)
}

/** Whether an index term is a stop word's. */
export function isStopWord(term: string): boolean {
  return STOP_STEMS.has(term)
}

/** The most terms a phrase has: matching one costs the index work in proportion to its length at every occurrence. */
const PHRASE_TERMS_MAX = 8
/** The most terms a query looks up. */
const QUERY_TERMS_MAX = 64

/**
 * How much each kind of query term counts (a typed word counts 1). Tuned on the code, multilingual and
 * Cranfield collections (docs/search.md, "Tokens"): a code token's whole and the phrase of its parts rank
 * the exact token first; its parts alone still find it.
 */
const QUERY_WEIGHTS = {whole: 0.75, part: 0.25, phrase: 0.5, gram: 1, gramPhrase: 1, completion: 0.5}

/**
 * Query-term frequency saturation (BM25's k3): a term the query repeats counts `(k3 + 1)·qtf / (k3 + qtf)` times its
 * weight — twice 1.33, three times 1.5, never past 2 — so that a long request's recurring words weigh more without
 * one word drowning the rest (docs/search.md, "Ranking past BM25").
 */
const QTF_K3 = 1

export type QueryTerm =
  /** Any of the index terms (a word and its other spelling); `typo`: the word, when typo tolerance may replace it. */
  | {kind: 'term'; terms: string[]; weight: number; typo: string | null; stop: boolean}
  /** The index terms adjacent and in order. */
  | {kind: 'phrase'; terms: string[]; weight: number}
  /** Indexed terms beginning with the (folded, unstemmed) word still being typed. */
  | {kind: 'prefix'; word: string; weight: number}

const LETTERS = /^\p{L}+$/u

/**
 * The query's terms, in order, without repeats (a repeated word weighs more, QTF_K3): for a word, the word (and its German spelling); for a code
 * token, its whole, the phrase of its parts and each part; for a CJK run, its bigrams and phrases of them;
 * and when the query ends inside its last word (someone is still typing: `daemo` → `daemon`), that word as
 * a prefix. Words under three letters, numbers and stop words are not completed.
 */
export function parseQuery(query: string): QueryTerm[] {
  const out = new Map<string, QueryTerm>()
  // How often the query holds each word (after stemming: `crash` and `crashes` are one term).
  const repeats = new Map<string, number>()
  const add = (t: QueryTerm): void => {
    const key = `${t.kind}:${t.kind === 'prefix' ? t.word : t.terms.join(' ')}`
    if (!out.has(key)) out.set(key, t)
    else if (t.kind === 'term') repeats.set(key, (repeats.get(key) ?? 1) + 1)
  }
  const word = (text: string, german: string | null, weight: number): void => {
    const terms = [stemOf(text), ...(german === null ? [] : [stemOf(german)])]
    add({kind: 'term', terms: [...new Set(terms)], weight, typo: LETTERS.test(text) ? text : null, stop: STOP_WORDS.has(text)})
  }
  const phrases = (terms: string[], weight: number): void => {
    if (terms.length < 2) return
    // A longer run is covered by overlapping phrases of at most PHRASE_TERMS_MAX terms.
    for (let i = 0; i + 1 < terms.length; i += PHRASE_TERMS_MAX - 1)
      add({kind: 'phrase', terms: terms.slice(i, i + PHRASE_TERMS_MAX), weight})
  }
  const chunks: Chunk[] = []
  readChunks(query, (c) => chunks.push(c))
  const typing = chunks.length > 0 && chunks.at(-1)!.end === query.length
  chunks.forEach((chunk, i) => {
    if (chunk.kind === 'cjk') {
      const grams = chunk.chars.length === 1 ? chunk.chars : chunk.chars.slice(1).map((c, k) => chunk.chars[k]! + c)
      phrases(grams, QUERY_WEIGHTS.gramPhrase)
      for (const g of grams) add({kind: 'term', terms: [g], weight: QUERY_WEIGHTS.gram, typo: null, stop: false})
      return
    }
    const {parts} = chunk
    if (parts.length === 1) word(parts[0]!.text, parts[0]!.german, 1)
    else {
      if (chunk.whole !== null) {
        const whole = chunk.whole
        const german = chunk.wholeGerman === null ? [] : [chunk.wholeGerman]
        // A version asked for as `v20.19.0` is also written `20.19.0`.
        const version = chunk.forms.filter((f) => chunk.whole!.startsWith('v') && f === chunk.whole!.slice(1))
        add({kind: 'term', terms: [...new Set([whole, ...german, ...version])], weight: QUERY_WEIGHTS.whole, typo: null, stop: false})
      }
      phrases(
        parts.map((p) => stemOf(p.text)),
        QUERY_WEIGHTS.phrase,
      )
      for (const p of parts) word(p.text, p.german, QUERY_WEIGHTS.part)
    }
    const last = parts.at(-1)!.text
    if (i === chunks.length - 1 && typing && Array.from(last).length >= 3 && LETTERS.test(last) && !STOP_WORDS.has(last)) {
      add({kind: 'prefix', word: last, weight: QUERY_WEIGHTS.completion})
    }
  })
  for (const [key, qtf] of repeats) {
    const t = out.get(key)!
    out.set(key, {...t, weight: (t.weight * (QTF_K3 + 1) * qtf) / (QTF_K3 + qtf)})
  }
  return rankTerms([...out.values()])
}

/** The terms worth matching: without stop words, unless the query is nothing but stop words; at most QUERY_TERMS_MAX. */
function rankTerms(terms: QueryTerm[]): QueryTerm[] {
  const meaningful = terms.filter((t) => !(t.kind === 'term' && t.stop))
  return (meaningful.length > 0 ? meaningful : terms).slice(0, QUERY_TERMS_MAX)
}
