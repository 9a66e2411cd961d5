/**
 * @module The search engine every driver shares (the seam is described in `driver.ts`): it expands a
 * query's terms against the index (statistics, typo tolerance, completion of the word being typed),
 * chooses which terms generate candidates, asks the driver for them, re-ranks them with BM25F and explains
 * the hits.
 * docs/search.md describes each step and how it was measured.
 */
import type {EntryFilter, EntryRow, SearchHit, SearchOptions, SearchOutcome, Viewer} from '../store/store.js'
import {Bm25fScorer, type CollectionStats} from './bm25f.js'
import type {CandidateText, IndexTerm, SearchIndex} from './driver.js'
import {explainHit} from './explain.js'
import {expansionTerms, FEEDBACK, relevanceModel} from './feedback.js'
import {fuse} from './likelihood.js'
import {parseQuery, type QueryTerm} from './query.js'
import {REGULARISATION, regularise, wordCounts} from './regularise.js'
import {tagsText} from './tokenizer.js'
import {TimeSlice} from '../lib/time-slice.js'
import {
  PROBE_LIMIT,
  VOCABULARY_MIN_LENGTH,
  byVocabularyOrder,
  headOf,
  typoCandidates,
  typoProbes,
  type VocabularyProbe,
} from './vocabulary.js'

/**
 * Characters of a candidate's body the re-ranker and explain read: an entry's body may hold 100,000, and a
 * search re-ranks up to 200 candidates (docs/search.md, "Bounded work").
 */
export const RERANK_BODY_CHARS = 10_000
/** Entries read from the store in one call (bounded stretches of synchronous reading). */
const ENTRIES_READ = 20
/** Candidates re-ranked per search: at least this many, and twice the page size. */
const CANDIDATES_MIN = 50
/** Postings (summed document frequencies) that candidate terms may cover before common terms are left out. */
const CANDIDATE_POSTINGS = 10_000
/**
 * The same for a lookup (the similar-entries check, docs/search.md "Similar entries"): its rarest words are the
 * telling ones, and FTS5 orders every posting it reads; 2,000 keeps the check ≈ 2 ms at 100k entries.
 */
const LOOKUP_POSTINGS = 2_000
/** Words per query that typo tolerance looks up: a long question may hold many words the store lacks; a few corrections are what helps. */
const TYPO_LOOKUPS_MAX = 3
/** Shortest word that typo tolerance corrects. */
const TYPO_WORD_MIN = 5
/** Completions of a word still being typed, the shortest first. */
const COMPLETIONS_MAX = 8
/** How much longer than the typed prefix a completion may be. */
const COMPLETION_EXTRA_MAX = 12

/**
 * The terms that generate candidates: the rarest first, adding commoner ones while the postings they
 * cover stay within CANDIDATE_POSTINGS. The rest only re-rank; none at all when even the rarest term is
 * that common.
 */
function selectiveTerms(terms: IndexTerm[], budget = CANDIDATE_POSTINGS): IndexTerm[] {
  const byRarity = [...terms].sort((a, b) => a.df - b.df)
  const chosen: IndexTerm[] = []
  let postings = 0
  for (const t of byRarity) {
    if (postings + t.df > budget) break
    chosen.push(t)
    postings += t.df
  }
  return chosen
}

/** A candidate with its relevance (BM25F) and the confidence factor applied to it (1 until weighed). */
interface Ranked {
  text: CandidateText
  relevance: number
  factor: number
}

/** Best first; ties by the newer key, so the order is the same on every driver and every run. */
const byScore = (a: Ranked, b: Ranked): number => b.relevance * b.factor - a.relevance * a.factor || b.text.key - a.text.key

export class SearchEngine {
  constructor(private readonly index: SearchIndex) {}

  /**
   * Search in two stages: the driver finds candidates with any-term matching in its own first-stage order;
   * the best few are re-ranked here with a tuned BM25F over all the terms. Very common terms do not
   * generate candidates when rarer ones give enough, so that a query with "error" in it does not score
   * half the store; they still count in the re-ranking and in `total`.
   */
  async search(viewer: Viewer, filter: EntryFilter, options: SearchOptions): Promise<SearchOutcome> {
    const terms = await this.expandTerms(parseQuery(options.query), options.lookup === true)
    if (terms.length === 0) return {hits: [], total: 0}
    const source = await this.index.candidates(viewer, filter)
    const depth = options.lookup === true ? options.limit : Math.max(CANDIDATES_MIN, 2 * options.limit)
    const selective = selectiveTerms(terms, options.lookup === true ? LOOKUP_POSTINGS : CANDIDATE_POSTINGS)
    // Independent reads: a driver with a connection pool (PostgreSQL) answers them at once.
    // A lookup needs no total (a count over every posting of its many words) and no newest-first fallback.
    const lookup = options.lookup === true
    const [counted, best, stats] = await Promise.all([
      lookup ? -1 : source.count(terms),
      selective.length > 0 ? source.best(selective, depth * (this.index.candidateFactor ?? 1)) : [],
      this.index.collectionStats(),
    ])
    const total = lookup ? best.length : counted
    if (total === 0) return {hits: [], total: 0}
    if (lookup && best.length <= options.limit) {
      // Every candidate is kept, and a lookup's caller scores them itself (docs/search.md, "Similar entries"): ranking
      // them first would only order them. Their rows, in the first stage's order, score 0.
      const rows = await this.entriesIn(best, new TimeSlice())
      return {hits: best.flatMap((k) => (rows.has(k) ? [{entry: rows.get(k)!, score: 0}] : [])), total}
    }
    let keys = best
    if (!lookup && keys.length < Math.min(depth, total)) {
      // Only very common terms, or too few entries with the rarer ones: ranking every entry with a
      // common word would cost a scan, so take the newest matches, those with a title match first.
      keys = [...new Set([...keys, ...(await source.newest(terms, depth))])]
    }
    const scorer = new Bm25fScorer(terms, stats)
    // Bounded and yielding (docs/search.md, "Bounded work"): each candidate is read up to RERANK_BODY_CHARS of
    // its body, and other requests are served between candidates once a slice has run its time.
    const slice = new TimeSlice()
    let ranked: Ranked[] = []
    const likelihoods: number[] = []
    for (const text of await this.textsIn(keys, slice)) {
      await slice.pause()
      const scale = Math.max(1, text.bodyLength / RERANK_BODY_CHARS)
      const {bm25f, likelihood} = scorer.scores({title: text.title, tags: tagsText(text.tags), body: text.body}, scale)
      ranked.push({text, relevance: bm25f, factor: 1})
      likelihoods.push(likelihood)
    }
    if (!lookup) {
      // BM25F and query likelihood fused (likelihood.ts); a lookup's caller scores its candidates itself.
      const fused = fuse(
        ranked.map((r) => r.relevance),
        likelihoods,
      )
      ranked = ranked.map((r, i) => ({...r, relevance: fused[i]!}))
    }
    ranked.sort(byScore)
    if (!lookup) ranked = await this.regularised(await this.feedback(ranked, terms, stats, slice), slice)
    const weigh = options.weigh
    let entries = new Map<number, EntryRow>()
    if (weigh) {
      // Confidence multiplies relevance before the cut (docs/search.md, "Freshness and confidence"): every candidate
      // re-ranked is weighed, so a stale hit gives way to a fresh one from further down.
      const all = await this.entriesIn(
        ranked.map((r) => r.text.key),
        slice,
      )
      entries = all
      const factors = await weigh(ranked.map((r) => all.get(r.text.key)!))
      ranked = ranked.map((r, i) => ({...r, factor: factors[i]!})).sort(byScore)
    }
    ranked = ranked.slice(0, options.limit)
    if (!weigh)
      entries = await this.entriesIn(
        ranked.map((r) => r.text.key),
        slice,
      )
    const hits: SearchHit[] = []
    for (const {text, relevance, factor} of ranked) {
      const hit: SearchHit = {entry: entries.get(text.key)!, score: Number((relevance * factor).toPrecision(6))}
      if (weigh && options.explain) hit.factors = {relevance: Number(relevance.toPrecision(6)), confidence: factor}
      if (options.explain) await slice.pause()
      hits.push(options.explain ? {...hit, ...explainHit(text, terms)} : hit)
    }
    return {hits, total}
  }

  /**
   * Pseudo-relevance feedback (feedback.ts): the best few candidates' shared words join the query at a fraction of a
   * word's weight and every candidate is scored again. Only for queries of a few words; a query of one or two words
   * or identifiers keeps its ranking.
   */
  private async feedback(ranked: Ranked[], terms: IndexTerm[], stats: CollectionStats, slice: TimeSlice): Promise<Ranked[]> {
    const p = FEEDBACK
    const words = terms.filter((t) => !t.phrase && t.weight >= 1).length
    if (p.terms === 0 || words < p.minQueryWords || ranked.length <= p.docs) return ranked
    const docs = ranked.slice(0, p.docs).map((r) => ({
      text: `${r.text.title}\n${tagsText(r.text.tags)}\n${r.text.body}`,
      relevance: r.relevance,
    }))
    const candidates = relevanceModel(docs, terms, p.minDocs)
    if (candidates.length === 0) return ranked
    const dfs = await this.index.documentFrequencies(candidates.map((c) => c.term))
    const expansion = expansionTerms(candidates, dfs, stats.docs, p)
    if (expansion.length === 0) return ranked
    // BM25F saturates each term on its own, so the expanded query's score is the first one plus the expansion
    // terms' (none of which is a query term): only their words need stemming on this second reading.
    const scorer = new Bm25fScorer(expansion, stats)
    const out: Ranked[] = []
    for (const r of ranked) {
      await slice.pause()
      const scale = Math.max(1, r.text.bodyLength / RERANK_BODY_CHARS)
      out.push({...r, relevance: r.relevance + scorer.score({title: r.text.title, tags: tagsText(r.text.tags), body: r.text.body}, scale)})
    }
    return out.sort(byScore)
  }

  /**
   * Score regularisation (regularise.ts): the best candidates' scores smoothed towards those of the candidates most like
   * them; the rest keep theirs and stay below.
   */
  private async regularised(ranked: Ranked[], slice: TimeSlice): Promise<Ranked[]> {
    const top = ranked.slice(0, REGULARISATION.top)
    const counts: Array<Map<string, number>> = []
    for (const r of top) {
      await slice.pause()
      counts.push(wordCounts(`${r.text.title}\n${tagsText(r.text.tags)}\n${r.text.body}`))
    }
    const scores = regularise(
      top.map((r) => r.relevance),
      counts,
    )
    return [...top.map((r, i) => ({...r, relevance: scores[i]!})), ...ranked.slice(top.length)].sort(byScore)
  }

  /** The candidates' texts (bodies cut to RERANK_BODY_CHARS), read ENTRIES_READ at a time with a pause between reads. */
  private async textsIn(keys: number[], slice: TimeSlice): Promise<CandidateText[]> {
    const out: CandidateText[] = []
    for (let at = 0; at < keys.length; at += ENTRIES_READ) {
      await slice.pause()
      out.push(...(await this.index.texts(keys.slice(at, at + ENTRIES_READ), RERANK_BODY_CHARS)))
    }
    return out
  }

  /**
   * The entries of these keys, read ENTRIES_READ at a time with a pause between reads: a candidate's row may
   * hold 100,000 characters, and 200 of them read at once held the loop for tens of milliseconds.
   */
  private async entriesIn(keys: number[], slice: TimeSlice): Promise<Map<number, EntryRow>> {
    const out = new Map<number, EntryRow>()
    for (let at = 0; at < keys.length; at += ENTRIES_READ) {
      await slice.pause()
      for (const [k, e] of await this.index.entries(keys.slice(at, at + ENTRIES_READ))) out.set(k, e)
    }
    return out
  }

  /**
   * The query's terms (query.ts) resolved against the index, with their document frequencies, without those
   * that match nothing. A word that matches nothing brings instead the indexed terms one edit away (typo
   * tolerance; the vocabulary holds stems, so a few trailing characters may be dropped first). A prefix
   * brings the shortest indexed terms it begins. Each index term counts once, for the first query term that
   * brings it. The index is read in a few batches (every term's statistics, every phrase's, every typo probe,
   * every completion, then the statistics of what those brought), each one call, so that a networked driver
   * answers each group in one round trip.
   */
  private async expandTerms(query: QueryTerm[], exact = false): Promise<IndexTerm[]> {
    const df = new Map<string, number>()
    await this.frequencies(
      query.flatMap((q) => (q.kind === 'term' ? q.terms : [])),
      df,
    )
    const dfOf = (terms: string[]): number => Math.max(0, ...terms.map((t) => df.get(t) ?? 0))
    const phrases = new Map<string, string[]>()
    for (const q of query) if (q.kind === 'phrase') phrases.set(q.terms.join(' '), q.terms)
    const counts = await this.index.phraseFrequencies([...phrases.values()])
    const phraseDf = new Map([...phrases.keys()].map((key, i) => [key, counts[i]!]))

    // Typo tolerance for the first few longer words that match nothing.
    const typoWords: string[] = []
    for (const q of query) {
      if (exact || q.kind !== 'term' || q.typo === null || dfOf(q.terms) > 0 || Array.from(q.typo).length < TYPO_WORD_MIN) continue
      if (typoWords.length < TYPO_LOOKUPS_MAX && !typoWords.includes(q.typo)) typoWords.push(q.typo)
    }
    const near = await this.near(typoWords)
    const corrections = new Map(typoWords.map((w, i) => [w, typoCandidates(w, near[i]!)]))
    const prefixes = query.flatMap((q) => (q.kind === 'prefix' ? [q] : []))
    const completions = await this.completions(prefixes.map((p) => p.word))
    await this.frequencies([...[...corrections.values()].flat(), ...completions.flat()], df)

    const out = new Map<string, IndexTerm>()
    const add = (terms: string[], weight: number): number => {
      const known = out.get(terms[0]!)
      if (known) return known.df
      const n = dfOf(terms)
      if (n > 0) out.set(terms[0]!, {terms, phrase: false, df: n, weight})
      return n
    }
    for (const q of query) {
      if (q.kind === 'prefix') continue
      if (q.kind === 'phrase') {
        const key = `\u0000${q.terms.join(' ')}`
        const n = phraseDf.get(q.terms.join(' '))!
        if (!out.has(key) && n > 0) out.set(key, {terms: q.terms, phrase: true, df: n, weight: q.weight})
        continue
      }
      if (add(q.terms, q.weight) > 0 || q.typo === null) continue
      for (const candidate of corrections.get(q.typo) ?? []) add([candidate], q.weight)
    }
    // Completions last, so that a word typed in full keeps its full weight.
    prefixes.forEach((p, i) => {
      for (const completion of completions[i]!) add([completion], p.weight)
    })
    return [...out.values()]
  }

  /** Document frequencies of the index terms not in `df` yet, read in one call into `df`. */
  private async frequencies(terms: string[], df: Map<string, number>): Promise<void> {
    const todo = [...new Set(terms)].filter((t) => !df.has(t))
    const counts = await this.index.documentFrequencies(todo)
    todo.forEach((t, i) => df.set(t, counts[i]!))
  }

  /** For each word, the vocabulary terms that may be one edit from a form of it (vocabulary.ts typoProbes), in vocabulary order. */
  private async near(words: string[]): Promise<string[][]> {
    const probes = words.map(typoProbes)
    const found = await this.index.vocabulary(probes.flat(), PROBE_LIMIT)
    let at = 0
    return probes.map((list) => [...new Set(found.slice(at, (at += list.length)).flat())].sort(byVocabularyOrder))
  }

  /** For each prefix, the shortest indexed terms (at most COMPLETIONS_MAX) that begin with it: one vocabulary read per length. */
  private async completions(prefixes: string[]): Promise<string[][]> {
    const probes = prefixes.map((prefix): VocabularyProbe[] => {
      const length = Array.from(prefix).length
      const lengths: VocabularyProbe[] = []
      for (let len = Math.max(VOCABULARY_MIN_LENGTH, length + 1); len <= length + COMPLETION_EXTRA_MAX; len++) {
        lengths.push({head: headOf(prefix), length: len, prefix})
      }
      return lengths
    })
    // Each length read as deep as all of them may need: the first COMPLETIONS_MAX in length order are what
    // reading length by length until that many are found gives.
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
