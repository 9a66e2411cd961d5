/**
 * @module What both drivers do alike for trust (docs/api.md, "Anchors, freshness, verify and flags"): the kept
 * list of verifications, open-flag counts from the `flags` table's rows, and the freshness filter's pieces.
 */
import {STALE_FLAG_REASONS} from '../../src/shared/contract.js'
import type {FlagCounts, FlagReason} from '../../src/shared/types.js'
import type {EntryRow} from './store.js'

/** Verifications kept on an entry's row: the latest of each distinct principal, newest first. */
export const VERIFICATIONS_KEPT = 20

export const NO_FLAGS: FlagCounts = {stale: 0, incorrect: 0, duplicate: 0, obsolete: 0}

/** The trust fields of an entry nobody has checked, verified or flagged yet (a create, a fork). */
export const UNTRUSTED = {
  anchors: [],
  flags: NO_FLAGS,
  flagged_at: null,
  verified_at: null,
  verified_by: null,
  verifications: [],
  corrections: 0,
  superseded_by: null,
  retrieved: 0,
  last_retrieved_at: null,
} satisfies Partial<EntryRow>

/** The kept verifications after `principalId` verifies at `at`. */
export function withVerification(list: EntryRow['verifications'], principalId: string, at: string): EntryRow['verifications'] {
  return [{principal_id: principalId, at}, ...list.filter((v) => v.principal_id !== principalId)].slice(0, VERIFICATIONS_KEPT)
}

/** Open-flag counts and `flagged_at` (the newest open flag of a stale-making reason) from `SELECT reason, count(*) n, max(created_at) newest … GROUP BY reason`. */
export function flagSummary(rows: Array<{reason: string; n: number | string; newest: string}>): {
  flags: FlagCounts
  flagged_at: string | null
} {
  const flags = {...NO_FLAGS}
  let flaggedAt: string | null = null
  for (const r of rows) {
    flags[r.reason as FlagReason] = Number(r.n)
    if ((STALE_FLAG_REASONS as readonly string[]).includes(r.reason) && (flaggedAt === null || r.newest > flaggedAt)) flaggedAt = r.newest
  }
  return {flags, flagged_at: flaggedAt}
}

/** The same from flags at hand (an import's). */
export function flagSummaryOf(flags: Array<{reason: string; created_at: string}>): {flags: FlagCounts; flagged_at: string | null} {
  const rows = new Map<string, {reason: string; n: number; newest: string}>()
  for (const f of flags) {
    const r = rows.get(f.reason) ?? {reason: f.reason, n: 0, newest: f.created_at}
    r.n++
    if (f.created_at > r.newest) r.newest = f.created_at
    rows.set(f.reason, r)
  }
  return flagSummary([...rows.values()])
}

/**
 * An anchor's JSON holds `"state":"changed"` only as that key and value: inside a JSON string every `"` is
 * escaped, so a path or symbol cannot spell it. Both drivers match the stored text with these patterns.
 */
export const ANCHOR_STALE_PATTERNS = ['%"state":"changed"%', '%"state":"deleted"%'] as const
