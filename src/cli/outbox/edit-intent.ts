/**
 * @module What `kb edit` asks for, as data: fields set outright plus tags to add and remove, turned into the
 * PATCH body against an entry's current tags — when the edit is made, or later when a queued edit is sent (to
 * the entry, or to a fork of it when the entry changed meanwhile).
 */
import type {AnchorIn, PatchEntryBody} from '../../shared/schemas.js'
import type {Anchor} from '../../shared/types.js'
import {samePlace} from '../anchors/spec.js'
import type {EditIntent} from './state.js'

/** The PATCH body of `intent` for an entry that has `current.tags` (and `current.anchors`: PATCH replaces the whole set). */
export function patchFor(current: {tags: string[]; anchors?: Anchor[]}, intent: EditIntent): PatchEntryBody {
  const patch: PatchEntryBody = {...intent.set}
  if (intent.add_tags || intent.remove_tags) {
    const tags = [...(intent.set.tags ?? current.tags)]
    for (const t of intent.add_tags ?? []) if (!tags.some((x) => x.toLowerCase() === t.toLowerCase())) tags.push(t)
    const remove = new Set((intent.remove_tags ?? []).map((t) => t.toLowerCase()))
    patch.tags = tags.filter((t) => !remove.has(t.toLowerCase()))
  }
  if (intent.add_anchors || intent.remove_anchors) {
    const kept: AnchorIn[] = (intent.set.anchors ?? current.anchors ?? []).map((a) => ({
      path: a.path,
      lines: a.lines ?? null,
      symbol: a.symbol ?? null,
      commit: a.commit ?? null,
      hash: a.hash ?? null,
    }))
    const remove = intent.remove_anchors ?? []
    const anchors = kept.filter((a) => !remove.some((r) => removes(r, a)))
    for (const a of intent.add_anchors ?? []) {
      const i = anchors.findIndex((x) => samePlace(x, a))
      if (i === -1) anchors.push(a)
      else anchors[i] = a
    }
    patch.anchors = anchors
  }
  return patch
}

/** `--remove-anchor path` removes every anchor on that file; `path:a-b` or `path#symbol` that one. */
export function removes(
  r: {path: string; lines: string | null; symbol: string | null},
  a: {path: string; lines?: string | null; symbol?: string | null},
): boolean {
  return r.lines === null && r.symbol === null ? a.path === r.path : samePlace(a, r)
}
