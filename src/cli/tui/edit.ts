/**
 * @module The edit key of `kb browse` (docs/tui.md, "Edit"): the entry in $EDITOR with the screen handed over
 * while it runs, then sent as `kb edit` sends it — merged with changes made meanwhile, per field; a true conflict
 * keeps the text in the draft file and is remembered, so the next `e` on that entry opens the editor on the
 * newest version starting from that text.
 */
import type {ApiClient} from '../../shared/client.js'
import {writeRequests} from '../../shared/client.js'
import type {PatchEntryBody} from '../../shared/schemas.js'
import type {EntryFull} from '../../shared/types.js'
import {editText} from '../input.js'
import {draftPath, dropDraft, saveDraft} from '../merge/draft.js'
import {editorText, patchFromText, withPatch} from '../merge/editor-text.js'
import {sendMerged} from '../merge/send.js'
import {baseOf, mergeEdit, type MergeField} from '../merge/three-way.js'

/** Hands the terminal to another program; returns the way back. */
export type Suspend = () => () => void

/** An edit stopped by a true conflict: what was typed, and the version it met. */
interface Pending {
  mine: PatchEntryBody
  conflicts: MergeField[]
}

/** Opens the editor on entry `id` and sends what is saved; the status line to show. Throws what the API refused. */
export function entryEditor(client: ApiClient, suspend: Suspend): (id: string) => Promise<string> {
  const pending = new Map<string, Pending>()
  const read = async (id: string): Promise<EntryFull> => (await client.getEntry(id, 'full')).entry as EntryFull
  return async (id) => {
    const base = await read(id)
    const was = pending.get(id)
    // After a conflict: the newest version, merged with what was typed, the typed text where both changed.
    const shown = was ? withPatch(base, {...mergeEdit({base: {}, mine: was.mine, theirs: base}).patch, ...was.mine}) : base
    const notes = was
      ? [`Merged onto version ${base.version}: ${was.conflicts.join(', ')} changed there too; saving sends what you leave here.`]
      : []
    const resume = suspend()
    let text: string
    try {
      text = editText(editorText(shown, notes))
    } finally {
      resume()
    }
    saveDraft(id, text)
    const mine = patchFromText(base, text)
    if (Object.keys(mine).length === 0) {
      pending.delete(id)
      dropDraft(id)
      return `No changes to "${base.title}"`
    }
    const outcome = await sendMerged({
      base: baseOf(base, mine),
      mine,
      version: base.version,
      read: () => read(id),
      send: async (patch, version) => (await client.write<EntryFull>(writeRequests.patchEntry(id, patch, `"${version}"`))).body,
    })
    if (outcome.kind === 'conflict') {
      pending.set(id, {mine, conflicts: outcome.conflicts})
      throw new Error(
        `Not saved: ${outcome.conflicts.join(', ')} changed meanwhile (now version ${outcome.theirs.version}); your text is in ${draftPath(id)}; e edits again on the newest version`,
      )
    }
    pending.delete(id)
    dropDraft(id)
    if (outcome.kind === 'unchanged') return `No changes: version ${outcome.entry.version} already says this`
    const e = outcome.result
    return `Saved "${e.title}" (version ${e.version}${outcome.merged_with === null ? '' : ', merged with changes made meanwhile'})`
  }
}
