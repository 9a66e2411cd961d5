/**
 * @module Freshness and confidence of an entry, decided from its row alone (docs/search.md, "Freshness and
 * confidence"): pure and deterministic, so every daemon of a team server, every detail level and the ranking
 * give the same answer for the same row and clock.
 */
import {CONFIDENCE_AGE_FLOOR, STALE_FLAG_REASONS, VERIFY_AFTER_DAYS_DEFAULT} from '../../src/shared/contract.js'
import type {Freshness, FreshnessReason} from '../../src/shared/types.js'
import type {EntryRow} from '../store/store.js'

const DAY_MS = 86_400_000
/** A verification's weight halves every `verify_after_days`, or this many days where the project never asks. */
const VERIFICATION_HALF_LIFE_DAYS = 180
/** What each other distinct verifier adds to the newest one's vouching, at full weight. */
const OTHER_VERIFIER_WEIGHT = 0.25
/** Factors of the things that make an entry stale: each alone puts it below the age floor, so below any fresh twin. */
const ANCHOR_CHANGED_FACTOR = 0.6
const ANCHOR_DELETED_FACTOR = 0.5
const FLAG_FACTOR = 0.5
const FLAG_FACTOR_MIN = 0.25
/** A `duplicate` flag says nothing about truth: a light touch. */
const DUPLICATE_FACTOR = 0.95
/** Each `correction` comment since the last verification or edit: a soft signal, bounded. */
const CORRECTION_FACTOR = 0.95
const CORRECTIONS_COUNTED = 3

/** The fields freshness and confidence read; an `EntryRow` has them all. */
export type TrustFields = Pick<
  EntryRow,
  'anchors' | 'flags' | 'flagged_at' | 'verified_at' | 'verified_by' | 'verifications' | 'corrections' | 'updated_at'
>

/** What the project says: `verify_after_days` (0 = never unverified); entries outside a project use the default. */
export interface TrustContext {
  now: number
  verifyAfterDays?: number
}

const days = (from: string, now: number): number => Math.max(0, (now - Date.parse(from)) / DAY_MS)
const staleFlags = (e: TrustFields): number => STALE_FLAG_REASONS.reduce((n, r) => n + e.flags[r], 0)
/** The last time somebody vouched for the content: a verification, else its last change. */
const vouchedAt = (e: TrustFields): string => (e.verified_at && e.verified_at > e.updated_at ? e.verified_at : e.updated_at)

/** The reasons an entry is stale, in a fixed order (anchors as listed, flags, age); none means fresh. */
export function freshnessReasons(e: TrustFields, ctx: TrustContext): FreshnessReason[] {
  const reasons: FreshnessReason[] = []
  for (const a of e.anchors) {
    if (a.state !== 'changed' && a.state !== 'deleted') continue
    const where = a.lines ? `${a.path}:${a.lines}` : a.symbol ? `${a.path}#${a.symbol}` : a.path
    const at = a.checked_commit ? ` in ${a.checked_commit.slice(0, 7)}` : ''
    reasons.push(
      a.state === 'changed'
        ? {kind: 'anchor_changed', detail: `anchor ${where} changed${at}`, since: a.checked_at}
        : {kind: 'anchor_deleted', detail: `anchor ${where} was deleted${at}`, since: a.checked_at},
    )
  }
  const flags = staleFlags(e)
  if (flags > 0) {
    const named = STALE_FLAG_REASONS.filter((r) => e.flags[r] > 0).map((r) => `${e.flags[r]} ${r}`)
    reasons.push({
      kind: 'flagged',
      detail: `${flags === 1 ? '1 open flag' : `${flags} open flags`}: ${named.join(', ')}`,
      since: e.flagged_at,
    })
  }
  const after = ctx.verifyAfterDays ?? VERIFY_AFTER_DAYS_DEFAULT
  const vouched = vouchedAt(e)
  if (after > 0 && days(vouched, ctx.now) > after) {
    const since = new Date(Date.parse(vouched) + after * DAY_MS).toISOString()
    reasons.push({
      kind: 'unverified',
      detail: `not verified in ${Math.floor(days(vouched, ctx.now))} days (the project asks every ${after})`,
      since,
    })
  }
  return reasons
}

export function freshness(e: TrustFields, ctx: TrustContext): Freshness {
  const reasons = freshnessReasons(e, ctx)
  return {state: reasons.length > 0 ? 'stale' : 'fresh', reasons, verified_at: e.verified_at, verified_by: e.verified_by}
}

/**
 * Confidence in [0, 1] (docs/search.md, "Confidence"): `trust × anchors × flags × corrections`, rounded to three
 * places. `trust` = FLOOR + (1 − FLOOR) × r with r = age × people, capped at 1: `age` halves every
 * `verify_after_days` since the content was last vouched for (verified or edited), `people` adds a quarter for
 * each other distinct verifier, weighted the same way (recent ones weigh more). An unverified entry keeps r ≤ ½,
 * so it ranks below an equally relevant fresh one, while age alone never goes below the floor.
 */
export function confidence(e: TrustFields, ctx: TrustContext): number {
  const after = ctx.verifyAfterDays ?? VERIFY_AFTER_DAYS_DEFAULT
  const halfLife = after > 0 ? after : VERIFICATION_HALF_LIFE_DAYS
  const since = days(vouchedAt(e), ctx.now)
  const age = after > 0 ? 0.5 ** (since / after) : 1
  let others = 0
  for (const v of e.verifications.slice(1)) others += 0.5 ** (days(v.at, ctx.now) / halfLife)
  let r = Math.min(1, age * (1 + OTHER_VERIFIER_WEIGHT * others))
  if (after > 0 && since > after) r = Math.min(r, 0.5)
  const trust = CONFIDENCE_AGE_FLOOR + (1 - CONFIDENCE_AGE_FLOOR) * r
  let anchors = 1
  for (const a of e.anchors) {
    if (a.state === 'deleted') anchors = Math.min(anchors, ANCHOR_DELETED_FACTOR)
    else if (a.state === 'changed') anchors = Math.min(anchors, ANCHOR_CHANGED_FACTOR)
  }
  const flags = Math.max(FLAG_FACTOR_MIN, FLAG_FACTOR ** staleFlags(e)) * (e.flags.duplicate > 0 ? DUPLICATE_FACTOR : 1)
  const corrections = CORRECTION_FACTOR ** Math.min(CORRECTIONS_COUNTED, e.corrections)
  return Math.round(trust * anchors * flags * corrections * 1000) / 1000
}
