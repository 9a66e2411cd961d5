/**
 * @module What `kb edit` asks for, as data: fields set outright plus tags to add and remove, turned into the
 * PATCH body against an entry's current tags — when the edit is made, or later when a queued edit is sent (to
 * the entry, or to a fork of it when the entry changed meanwhile).
 */
import type {PatchEntryBody} from '../../shared/schemas.js'
import type {EditIntent} from './state.js'

/** The PATCH body of `intent` for an entry that has `current.tags`. */
export function patchFor(current: {tags: string[]}, intent: EditIntent): PatchEntryBody {
  const patch: PatchEntryBody = {...intent.set}
  if (intent.add_tags || intent.remove_tags) {
    const tags = [...(intent.set.tags ?? current.tags)]
    for (const t of intent.add_tags ?? []) if (!tags.some((x) => x.toLowerCase() === t.toLowerCase())) tags.push(t)
    const remove = new Set((intent.remove_tags ?? []).map((t) => t.toLowerCase()))
    patch.tags = tags.filter((t) => !remove.has(t.toLowerCase()))
  }
  return patch
}
