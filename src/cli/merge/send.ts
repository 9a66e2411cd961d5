/**
 * @module Sending an edit that may meet changes made meanwhile (docs/cli.md, "Edits that meet other changes"):
 * on a stale version (412) the newest version is read and the edit merged into it (three-way, per field), then sent
 * again against that version; a field changed on both sides stops it as a conflict, nothing sent.
 */
import {KbError} from '../../shared/errors.js'
import type {PatchEntryBody} from '../../shared/schemas.js'
import type {EntryFull} from '../../shared/types.js'
import {mergeEdit, type EditBase, type MergeField} from './three-way.js'

export type MergedSend<T> =
  /** Sent; `merged_with` is the newer version it was merged into, when it met one. */
  | {kind: 'sent'; result: T; merged_with: number | null}
  /** The newest version already says everything the edit says. */
  | {kind: 'unchanged'; entry: EntryFull}
  /** A field the edit changes was changed meanwhile to something else: nothing was sent. */
  | {kind: 'conflict'; theirs: EntryFull; conflicts: MergeField[]; merged: PatchEntryBody}

export interface MergedSendInput<T> {
  base: EditBase
  mine: PatchEntryBody
  /** The version the edit was made on. */
  version: number
  /** The newest version of the entry. */
  read: () => Promise<EntryFull>
  /** Sends `patch` with `If-Match: "<version>"`; a stale version throws `precondition_failed`. */
  send: (patch: PatchEntryBody, version: number) => Promise<T>
}

/** Others writing at the same moment, again and again: after this many merges the edit stops as a conflict would. */
const MAX_ROUNDS = 5

export async function sendMerged<T>(o: MergedSendInput<T>): Promise<MergedSend<T>> {
  let patch = o.mine
  let version = o.version
  let mergedWith: number | null = null
  for (let round = 0; ; round++) {
    try {
      return {kind: 'sent', result: await o.send(patch, version), merged_with: mergedWith}
    } catch (e) {
      if (!(e instanceof KbError && e.code === 'precondition_failed') || round === MAX_ROUNDS) throw e
    }
    const theirs = await o.read()
    const merged = mergeEdit({base: o.base, mine: o.mine, theirs})
    if (merged.conflicts.length > 0) return {kind: 'conflict', theirs, conflicts: merged.conflicts, merged: merged.patch}
    if (Object.keys(merged.patch).every((k) => k === 'redact' || k === 'acknowledge')) return {kind: 'unchanged', entry: theirs}
    patch = merged.patch
    version = theirs.version
    mergedWith = theirs.version
  }
}
