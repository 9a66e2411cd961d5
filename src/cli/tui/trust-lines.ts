/**
 * @module Freshness and anchors as `kb browse` shows them (docs/tui.md, "Freshness"): the list's `stale`
 * badge (a word, so it reads without colour), the reasons in the detail pane, and the full view's
 * `freshness` row with its "Freshness" and "Anchors" sections. An entry at `summary` carries only the state
 * word, one at `standard` or `full` the whole object; both are read here. Text arrives made safe (`load.ts`).
 */
import type {Anchor, EntryFull, EntryStandard, Freshness, FlagCounts} from '../../shared/types.js'
import {FLAG_REASONS} from '../../shared/contract.js'
import {ago, wrap} from './text.js'

/** The freshness object, or null where the entry has only the word (or none: an older server). */
function freshnessOf(e: EntryStandard): Freshness | null {
  const f = (e as {freshness?: Freshness | string}).freshness
  return f && typeof f !== 'string' ? f : null
}

export function isStale(e: EntryStandard): boolean {
  const f = (e as {freshness?: Freshness | string}).freshness
  return (typeof f === 'string' ? f : f?.state) === 'stale'
}

/** The list's badge column: `stale` or blank, `width` wide. */
export const BADGE_WIDTH = 6
export const badge = (e: EntryStandard): string => (isStale(e) ? 'stale ' : ' '.repeat(BADGE_WIDTH))

/** `src/db/pool.ts:40-62`, `src/db/pool.ts#acquire` or the path alone. */
const anchorName = (a: Pick<Anchor, 'path' | 'lines' | 'symbol'>): string =>
  `${a.path}${a.lines ? `:${a.lines}` : ''}${a.symbol ? `#${a.symbol}` : ''}`

const verified = (f: Freshness, now: number): string | undefined =>
  f.verified_at ? `${ago('verified', f.verified_at, now)}${f.verified_by ? ` by ${f.verified_by.name}` : ''}` : undefined

/** The detail pane's lines: one per reason a stale entry has (`stale: anchor … changed in a1b2c3d`). */
export function standardTrustLines(e: EntryStandard, columns: number): string[] {
  const f = freshnessOf(e)
  if (!f) return isStale(e) ? ['stale'] : []
  return f.reasons.flatMap((r) => wrap(`stale: ${r.detail}`, columns))
}

/** Open flags in words, e.g. `1 incorrect, 2 stale`; empty when none. */
function flagsText(flags: FlagCounts | undefined): string {
  if (!flags) return ''
  return FLAG_REASONS.filter((r) => flags[r] > 0)
    .map((r) => `${flags[r]} ${r}`)
    .join(', ')
}

/** The full view's metadata rows: freshness (with who verified it) and open flags. */
export function fullTrustMeta(e: EntryFull, now = Date.now()): [string, string][] {
  const f = freshnessOf(e)
  if (!f) return []
  const n = f.reasons.length
  const rows: [string, string][] = [
    [
      'freshness',
      [f.state === 'stale' ? `stale (${n} reason${n === 1 ? '' : 's'} below)` : 'fresh', verified(f, now)].filter(Boolean).join(' · '),
    ],
  ]
  const flags = flagsText(e.flags)
  if (flags !== '') rows.push(['flags', `${flags} (F flags or withdraws yours)`])
  return rows
}

/** The full view's "Freshness" section (the reasons, with since when) and "Anchors" (each with its state). */
export function fullTrustSections(e: EntryFull, columns: number, now = Date.now()): string[] {
  const lines: string[] = []
  const f = freshnessOf(e)
  if (f && f.reasons.length > 0) {
    lines.push('', 'Freshness')
    for (const r of f.reasons) {
      const since = r.since ? ago('since', r.since, now) : undefined
      lines.push(...wrap(`- ${r.detail}${since ? ` (${since})` : ''}`, columns))
    }
  }
  const anchors = e.anchors ?? []
  if (anchors.length > 0) {
    lines.push('', `Anchors (${anchors.length})`)
    for (const a of anchors)
      lines.push(...wrap(`${a.state.padEnd(8)}${anchorName(a)}${a.checked_at ? ` · ${ago('checked', a.checked_at, now)}` : ''}`, columns))
  }
  return lines
}
