/**
 * @module The search engine every driver shares (the seam is described in `driver.ts`): it expands a
 * query's terms against the index (statistics, typo tolerance, completion of the word being typed),
 * chooses which terms generate candidates, asks the driver for them, re-ranks them with BM25F and explains
 * the hits.
 * docs/search.md describes each step and how it was measured.
 */
import type {EntryFilter, SearchHit, SearchOptions, SearchOutcome, Viewer} from '../store/store.js'
import {Bm25fScorer} from './bm25f.js'
import type {IndexTerm, SearchIndex} from './driver.js'
import {explainHit} from './explain.js'
import {parseTerm, rankTerms} from './query.js'
import {stemOf} from './text.js'
import {
  PROBE_LIMIT,
  VOCABULARY_MIN_LENGTH,
  byVocabularyOrder,
  headOf,
  typoCandidates,
  typoProbes,
  type VocabularyProbe,
} from './vocabulary.js'

/** Candidates re-ranked per search: at least this many, and twice the page size. */
const CANDIDATES_MIN = 50
/** Postings (summed document frequencies) that candidate terms may cover before common terms are left out. */
const CANDIDATE_POSTINGS = 10_000
/** Words per query that typo tolerance looks up: a long question may hold many words the store lacks; a few corrections are what helps. */
const TYPO_LOOKUPS_MAX = 3
/** Shortest word that typo tolerance corrects. */
const TYPO_WORD_MIN = 5
/** Completions of a word still being typed, the shortest first, and how much each counts next to a typed word. */
const COMPLETIONS_MAX = 8
const COMPLETION_WEIGHT = 0.5
/** How much longer than the typed prefix a completion may be. */
const COMPLETION_EXTRA_MAX = 12
/** How much a code token's phrase counts on top of its parts (docs/search.md: Cranfield's hyphenated words). */
const PHRASE_WEIGHT = 0.5

const WORD_ONLY = /^[\p{L}\p{N}]+$/u

/**
 * The terms that generate candidates: the rarest first, adding commoner ones while the postings they
 * cover stay within CANDIDATE_POSTINGS. The rest only re-rank; none at all when even the rarest term is
 * that common.
 */
function selectiveTerms(terms: IndexTerm[]): IndexTerm[] {
  const byRarity = [...terms].sort((a, b) => a.df - b.df)
  const chosen: IndexTerm[] = []
  let postings = 0
  for (const t of byRarity) {
    if (postings + t.df > CANDIDATE_POSTINGS) break
    chosen.push(t)
    postings += t.df
  }
  return chosen
}

export class SearchEngine {
  constructor(private readonly index: SearchIndex) {}

  /**
   * Search in two stages: the driver finds candidates with any-term matching in its own first-stage order;
   * the best few are re-ranked here with a tuned BM25F over all the terms. Very common terms do not
   * generate candidates when rarer ones give enough, so that a query with "error" in it does not score
   * half the store; they still count in the re-ranking and in `total`.
   */
  async search(viewer: Viewer, filter: EntryFilter, options: SearchOptions): Promise<SearchOutcome> {
    const terms = await this.expandTerms(rankTerms(options.terms))
    if (terms.length === 0) return {hits: [], total: 0}
    const source = await this.index.candidates(viewer, filter)
    const total = await source.count(terms)
    if (total === 0) return {hits: [], total: 0}

    const depth = Math.max(CANDIDATES_MIN, 2 * options.limit)
    const selective = selectiveTerms(terms)
    let keys = selective.length > 0 ? await source.best(selective, depth * (this.index.candidateFactor ?? 1)) : []
    if (keys.length < Math.min(depth, total)) {
      // Only very common terms, or too few entries with the rarer ones: ranking every entry with a
      // common word would cost a scan, so take the newest matches, those with a title match first.
      keys = [...new Set([...keys, ...(await source.newest(terms, depth))])]
    }
    const scorer = new Bm25fScorer(terms, await this.index.collectionStats())
    const ranked = (await this.index.texts(keys))
      .map((text) => ({text, score: scorer.score({title: text.title, tags: text.tags.join(' '), body: text.body})}))
      .sort((a, b) => b.score - a.score || b.text.key - a.text.key)
      .slice(0, options.limit)
    const entries = await this.index.entries(ranked.map((r) => r.text.key))
    const hits = ranked.map(({text, score}): SearchHit => {
      const hit: SearchHit = {entry: entries.get(text.key)!, score: Number(score.toPrecision(6))}
      return options.explain ? {...hit, ...explainHit(text, terms)} : hit
    })
    return {hits, total}
  }

  /**
   * The query's terms (query.ts queryTerms) as index terms with their document frequencies, one per stem
   * or phrase, without those that match nothing. A longer word that matches nothing brings instead the
   * indexed terms one edit away (typo tolerance; the vocabulary holds stems, so a few trailing characters
   * may be dropped first). A prefix brings the shortest indexed terms it begins, counting less than typed
   * words; a phrase (a code token's parts) is one more term, rarer than its parts. The index is read in a
   * few batches (every word's statistics, then every typo probe, then every completion), each one call.
   */
  private async expandTerms(terms: string[]): Promise<IndexTerm[]> {
    const parsed = terms.map(parseTerm)
    const df = new Map<string, number>()
    const words = parsed.flatMap((p) => (p.kind === 'word' ? [p.word] : []))
    await this.frequencies(words, df)
    const phrases = new Map<string, string[]>()
    for (const p of parsed) if (p.kind === 'phrase') phrases.set(p.words.map(stemOf).join(' '), p.words)
    const counts = await this.index.phraseFrequencies([...phrases.values()])
    const phraseDf = new Map([...phrases.keys()].map((key, i) => [key, counts[i]!]))

    // Typo tolerance for the first few longer words that match nothing.
    let lookups = 0
    const typoWords = words.filter(
      (w) => df.get(stemOf(w))! === 0 && Array.from(w).length >= TYPO_WORD_MIN && WORD_ONLY.test(w) && lookups++ < TYPO_LOOKUPS_MAX,
    )
    const near = await this.near(typoWords)
    const corrections = new Map(typoWords.map((w, i) => [w, typoCandidates(w, near[i]!)]))
    // Completions of the word being typed.
    const prefixes = parsed.flatMap((p) => (p.kind === 'prefix' ? [p.word] : []))
    const completions = await this.completions(prefixes)
    await this.frequencies([...[...corrections.values()].flat(), ...completions.flat()], df)

    const out = new Map<string, IndexTerm>()
    const add = (word: string, weight = 1): number => {
      const stem = stemOf(word)
      const known = out.get(stem)
      if (known) return known.df
      const n = df.get(stem)!
      if (n > 0) out.set(stem, {words: [word], stem, df: n, ...(weight !== 1 ? {weight} : {})})
      return n
    }
    for (const p of parsed) {
      if (p.kind === 'prefix') continue
      if (p.kind === 'phrase') {
        const stems = p.words.map(stemOf)
        const key = stems.join(' ')
        const n = phraseDf.get(key)!
        if (!out.has(key) && n > 0) out.set(key, {words: p.words, stem: key, df: n, phrase: stems, weight: PHRASE_WEIGHT})
        continue
      }
      if (add(p.word) > 0) continue
      for (const candidate of corrections.get(p.word) ?? []) add(candidate)
    }
    // Completions last, so that a word typed in full keeps its full weight.
    for (const list of completions) for (const completion of list) add(completion, COMPLETION_WEIGHT)
    return [...out.values()]
  }

  /** Document frequencies of the words' stems not in `df` yet, read in one call into `df`. */
  private async frequencies(words: string[], df: Map<string, number>): Promise<void> {
    const stems = [...new Set(words.map(stemOf))].filter((s) => !df.has(s))
    const counts = await this.index.documentFrequencies(stems)
    stems.forEach((s, i) => df.set(s, counts[i]!))
  }

  /** For each word, the vocabulary terms that may be one edit from a form of it (vocabulary.ts typoProbes), in vocabulary order. */
  private async near(words: string[]): Promise<string[][]> {
    const probes = words.map(typoProbes)
    const found = await this.index.vocabulary(probes.flat(), PROBE_LIMIT)
    let at = 0
    return probes.map((list) => {
      const terms = new Set(found.slice(at, (at += list.length)).flat())
      return [...terms].sort(byVocabularyOrder)
    })
  }

  /** For each prefix, the shortest indexed terms (at most COMPLETIONS_MAX) that begin with it: one vocabulary read per length. */
  private async completions(prefixes: string[]): Promise<string[][]> {
    const probes = prefixes.map((prefix): VocabularyProbe[] => {
      if (!WORD_ONLY.test(prefix)) return []
      const length = Array.from(prefix).length
      const lengths: number[] = []
      for (let len = Math.max(VOCABULARY_MIN_LENGTH, length + 1); len <= length + COMPLETION_EXTRA_MAX; len++) lengths.push(len)
      return lengths.map((len) => ({head: headOf(prefix), length: len, prefix}))
    })
    // Each length read as deep as all of them may need: taking the first COMPLETIONS_MAX in length order is
    // what reading length by length until that many are found gives.
    const found = await this.index.vocabulary(probes.flat(), COMPLETIONS_MAX)
    let at = 0
    return probes.map((list) =>
      found
        .slice(at, (at += list.length))
        .flat()
        .slice(0, COMPLETIONS_MAX),
    )
  }
}
