/**
 * @module `max_tokens` on a search: the best hits packed into a token budget, each counted with the bounded
 * counter of src/shared/tokens.ts, with turns for other requests between hits.
 */
import {tokensWithin} from '../../src/shared/tokens.js'
import type {Detail, SearchResult} from '../../src/shared/types.js'
import {TimeSlice} from '../lib/time-slice.js'
import type {EntryRow} from '../store/store.js'
import type {ContextOf} from './trust-context.js'
import {standardView, summaryView} from './views.js'

/**
 * Packs the best hits into a token budget: each hit at the requested level if it fits, else stepped
 * down a level (full → standard → summary), else dropped; ranks are kept. Counting one item is bounded
 * (tokens.ts), and between hits the event loop serves other requests.
 */
export async function packIntoTokens(
  result: SearchResult,
  entries: EntryRow[],
  detail: Detail,
  budget: number,
  contextOf: ContextOf,
): Promise<SearchResult> {
  const levels: Detail[] =
    detail === 'full' ? ['full', 'standard', 'summary'] : detail === 'standard' ? ['standard', 'summary'] : ['summary']
  const packed: SearchResult['items'] = []
  let used = 0
  let truncated = false
  const slice = new TimeSlice()
  for (const [i, item] of result.items.entries()) {
    await slice.pause()
    const entry = entries[i]!
    const extras = {
      score: item.score,
      ...('matched' in item ? {matched: item.matched} : {}),
      ...('snippet' in item ? {snippet: item.snippet} : {}),
      ...('factors' in item ? {factors: item.factors} : {}),
    }
    let placed: Detail | null = null
    for (const level of levels) {
      const candidate =
        level === detail
          ? item
          : {...(level === 'summary' ? summaryView(entry, contextOf(entry)) : standardView(entry, contextOf(entry))), ...extras}
      const cost = tokensWithin(JSON.stringify(candidate), budget - used)
      if (cost === null) continue
      packed.push(candidate)
      used += cost
      placed = level
      break
    }
    if (placed !== detail) truncated = true
  }
  return {items: packed, next_cursor: null, total: result.total, tokens_used: used, truncated}
}
