/**
 * @module The three-way merge of an edit with changes made meanwhile (docs/cli.md, "Edits that meet other
 * changes"): field by field, tags as sets. A field only one side changed takes that side's value; the same field
 * changed on both sides to different values is a true conflict.
 */
import type {AnchorIn, PatchEntryBody} from '../../shared/schemas.js'
import type {EntryFull} from '../../shared/types.js'

/** The fields an edit may change, in the order they are reported. */
const MERGE_FIELDS = ['title', 'body', 'tags', 'url', 'thought_chain', 'status', 'anchors'] as const
export type MergeField = (typeof MERGE_FIELDS)[number]

/** An entry's editable fields as they were when the edit began (only those the edit changes are needed). */
export type EditBase = Partial<Pick<EntryFull, MergeField>>

export interface MergeInput {
  /** The fields as the edit saw them; a field missing here is judged by `changedMeanwhile`. */
  base: EditBase
  /** What the edit sets (fields left out are not changed by it). */
  mine: PatchEntryBody
  /** The entry now. */
  theirs: EntryFull
  /** Fields changed since the edit began when their base is unknown (an offline edit made without reading: from history). */
  changedMeanwhile?: ReadonlySet<string>
}

export interface MergeOutcome {
  /** The PATCH body for `theirs`: what the edit still changes (empty when the newest version already says it). */
  patch: PatchEntryBody
  /** Fields changed on both sides to different values: nothing is sent while any remain. */
  conflicts: MergeField[]
}

/** A field's value in the form two sides are compared in (a body's trailing blank lines are no change). */
function canon(field: MergeField, v: unknown): string {
  if (v === undefined || v === null) return field === 'url' ? '' : JSON.stringify(v ?? null)
  if (field === 'body' || field === 'title') return String(v).trimEnd()
  if (field === 'thought_chain')
    return JSON.stringify((v as {thought: string; kind?: string}[]).map((s) => [s.thought, s.kind ?? 'observation']))
  if (field === 'anchors')
    return JSON.stringify(
      (v as AnchorIn[])
        .map((a) => [a.path, a.lines ?? null, a.symbol ?? null])
        .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
    )
  if (field === 'tags') return JSON.stringify([...new Set((v as string[]).map((t) => t.toLowerCase()))].sort())
  return JSON.stringify(v)
}

/** Tags as sets: what the edit added and removed, applied to the newest tags (their order kept, additions last). */
function mergeTags(base: string[], mine: string[], theirs: string[]): string[] {
  const low = (xs: string[]): Set<string> => new Set(xs.map((t) => t.toLowerCase()))
  const b = low(base)
  const m = low(mine)
  const removed = new Set([...b].filter((t) => !m.has(t)))
  const out = theirs.filter((t) => !removed.has(t.toLowerCase()))
  const have = low(out)
  for (const t of mine) if (!b.has(t.toLowerCase()) && !have.has(t.toLowerCase())) out.push(t.toLowerCase())
  return out
}

/** Merges `mine` (made on `base`) into `theirs`; see the module doc. */
export function mergeEdit(input: MergeInput): MergeOutcome {
  const {base, mine, theirs} = input
  const patch: PatchEntryBody = {}
  const conflicts: MergeField[] = []
  const set = patch as Record<string, unknown>
  for (const [key, value] of Object.entries(mine)) {
    if (!(MERGE_FIELDS as readonly string[]).includes(key)) {
      set[key] = value // redact / acknowledge choices travel with the edit
      continue
    }
    const field = key as MergeField
    const now = theirs[field]
    if (canon(field, value) === canon(field, now)) continue // the newest version already says it
    const known = field in base
    if (field === 'tags' && known) {
      const tags = mergeTags(base.tags ?? [], value as string[], theirs.tags)
      if (canon('tags', tags) !== canon('tags', theirs.tags)) set.tags = tags
      continue
    }
    const untouched = known ? canon(field, base[field]) === canon(field, now) : !input.changedMeanwhile?.has(field)
    if (untouched) set[field] = value
    else conflicts.push(field)
  }
  return {patch, conflicts}
}

/** The fields `patch` changes, in report order. */
function fieldsOf(patch: PatchEntryBody): MergeField[] {
  return MERGE_FIELDS.filter((f) => f in patch)
}

/** What the edit was made on, for the fields it changes. */
export function baseOf(entry: EntryFull, patch: PatchEntryBody): EditBase {
  const base: Record<string, unknown> = {}
  for (const f of fieldsOf(patch)) base[f] = entry[f]
  return base as EditBase
}
