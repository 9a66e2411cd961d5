/**
 * @module Freshness where a reader looks (docs/cli.md, "Freshness"): the `fresh`/`stale` word of a list or
 * search row (text, so it survives NO_COLOR and pipes), and in `kb show` a line per reason it is stale
 * ("stale: anchor src/db/pool.ts:40-62 changed in a1b2c3d, 3 days ago"), who verified it, and its anchors.
 */
import type {Anchor, EntryStandard, EntryView, FreshnessReason} from '../../shared/types.js'
import {anchorLabel} from '../anchors/spec.js'

/** `fresh` or `stale` at any detail level (the word at summary, the object above); '' from a server without it. */
export function freshnessWord(e: EntryView): string {
  const f = (e as {freshness?: unknown}).freshness
  if (typeof f === 'string') return f
  if (f && typeof f === 'object' && typeof (f as {state?: unknown}).state === 'string') return (f as {state: string}).state
  return ''
}

const UNITS: [number, string][] = [
  [365 * 86_400_000, 'year'],
  [30 * 86_400_000, 'month'],
  [7 * 86_400_000, 'week'],
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
]

/** `3 days ago`, `just now`. */
export function ago(at: string, now = Date.now()): string {
  const ms = now - Date.parse(at)
  if (!Number.isFinite(ms)) return ''
  for (const [size, unit] of UNITS) {
    const n = Math.floor(ms / size)
    if (n >= 1) return `${n} ${unit}${n === 1 ? '' : 's'} ago`
  }
  return 'just now'
}

/** One reason in words, with how long ago it began when the server says. */
function reasonLine(r: FreshnessReason, now = Date.now()): string {
  return r.since ? `${r.detail}, ${ago(r.since, now)}` : r.detail
}

/** An anchor in words: `src/db/pool.ts:40-62 (changed at a1b2c3d)`. */
function anchorLine(a: Anchor): string {
  const at = a.state === 'current' || a.state === 'unknown' ? '' : a.checked_commit ? ` at ${a.checked_commit.slice(0, 7)}` : ''
  return `${anchorLabel(a)} (${a.state}${at})`
}

/** The rows `kb show` adds to an entry's metadata: freshness, each reason, verification, anchors, open flags. */
export function trustRows(e: EntryView, now = Date.now()): [string, string][] {
  const s = e as Partial<EntryStandard>
  const rows: [string, string][] = []
  const word = freshnessWord(e)
  if (word) rows.push(['freshness', word])
  const f = typeof s.freshness === 'object' && s.freshness ? s.freshness : null
  if (f) {
    for (const r of f.reasons) rows.push(['stale', reasonLine(r, now)])
    if (f.verified_at) rows.push(['verified', `${ago(f.verified_at, now)}${f.verified_by ? ` by ${f.verified_by.name}` : ''}`])
  }
  if (s.flags) {
    const open = (['stale', 'incorrect', 'duplicate', 'obsolete'] as const).filter((k) => s.flags![k] > 0).map((k) => `${s.flags![k]} ${k}`)
    if (open.length > 0) rows.push(['flags', open.join(', ')])
  }
  for (const a of s.anchors ?? []) rows.push(['anchor', anchorLine(a)])
  return rows
}
