/**
 * @module Similar entries on write (docs/api.md, "Similar entries on write"; docs/search.md, "Similar entries"):
 * candidates from the search engine's own index under the caller's visibility (a search with the new entry's title
 * and its body's most telling terms, bounded), each scored by server/search/similarity.ts; those at or above the
 * threshold are reported, best first, or refuse the write with 409 possible_duplicate.
 */
import {SIMILAR_MAX, SIMILAR_THRESHOLD} from '../../src/shared/contract.js'
import {KbError} from '../../src/shared/errors.js'
import type {SimilarItem} from '../../src/shared/types.js'
import {candidateQuery, fingerprint, similarity, type SimilarityInput} from '../search/similarity.js'
import {nowIso} from '../lib/ids.js'
import type {Store, Viewer} from '../store/store.js'
import {type Caller, viewerOf} from './context.js'

/** Candidates scored per check: the search's best few; the measure is cheap, the search is what costs. */
const CANDIDATES = 10

export type OnSimilar = 'report' | 'refuse'

export class SimilarFinder {
  constructor(private readonly store: Store) {}

  /** The entries the caller can see that look like the same knowledge as `e`, best first; `exclude` are never reported. */
  async find(caller: Caller, e: SimilarityInput, exclude: readonly string[] = []): Promise<SimilarItem[]> {
    return this.findFor(viewerOf(caller), e, exclude)
  }

  /** `find` among what `viewer` can see: the backfill checks an old entry as its author would have (similar-backfill.ts). */
  async findFor(viewer: Viewer, e: SimilarityInput, exclude: readonly string[] = []): Promise<SimilarItem[]> {
    const query = candidateQuery(e)
    if (query.trim() === '') return []
    const outcome = await this.store.searchEntries(viewer, {}, {query, limit: CANDIDATES, explain: false, lookup: true})
    const mine = fingerprint(e)
    return outcome.hits
      .filter((h) => !exclude.includes(h.entry.id))
      .map((h) => ({id: h.entry.id, title: h.entry.title, similarity: similarity(mine, fingerprint(h.entry))}))
      .filter((s) => s.similarity >= SIMILAR_THRESHOLD)
      .sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1))
      .slice(0, SIMILAR_MAX)
  }

  /**
   * Keeps the pairs found when `entryId` was written, for the review queue (docs/api.md, "Review queue"): a curator
   * sees them there until one side is superseded or deleted, or a person says they are not the same.
   */
  async record(entryId: string, similar: SimilarItem[]): Promise<void> {
    await this.store.history.addSimilar(
      similar.map((s) => ({entryId, otherId: s.id, similarity: s.similarity})),
      nowIso(),
    )
  }

  /** `find`, then with `refuse` and anything found, the 409 possible_duplicate problem that lists them. */
  async check(caller: Caller, e: SimilarityInput, onSimilar: OnSimilar, exclude: readonly string[] = []): Promise<SimilarItem[]> {
    const similar = await this.find(caller, e, exclude)
    if (onSimilar === 'refuse' && similar.length > 0) {
      const first = similar[0]!
      throw new KbError(
        'possible_duplicate',
        `${similar.length} entr${similar.length === 1 ? 'y' : 'ies'} you can see look like the same knowledge (best: ${first.id} "${first.title}"); ` +
          'comment on it instead, or create without on_similar=refuse',
        {extra: {similar}},
      )
    }
    return similar
  }
}
