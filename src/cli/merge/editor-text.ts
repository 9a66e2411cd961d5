/**
 * @module An entry as one text for $EDITOR (`kb edit`, the browse edit key): `key: value` lines, a separator, then
 * the body; and the PATCH body that a saved text asks for.
 */
import {KbError} from '../../shared/errors.js'
import type {PatchEntryBody} from '../../shared/schemas.js'
import type {EntryFull} from '../../shared/types.js'

const HEADER_END = '--- body below ---'

type Editable = Pick<EntryFull, 'title' | 'tags' | 'url' | 'body'>

/** The text the editor opens on; `notes` become `# ` lines above the fields (ignored when read back). */
export function editorText(e: Editable, notes: string[] = []): string {
  const head = notes.map((n) => `# ${n.replace(/\n/g, ' ')}\n`).join('')
  return `${head}title: ${e.title}\ntags: ${e.tags.join(', ')}\nurl: ${e.url ?? ''}\n${HEADER_END}\n${e.body}`
}

/** What the saved `text` changes of `e` (only the fields that differ). */
export function patchFromText(e: Editable, text: string): PatchEntryBody {
  const sep = text.indexOf(`${HEADER_END}\n`)
  if (sep === -1) throw new KbError('usage', `the edited text lost its "${HEADER_END}" line; nothing was changed`)
  const head: Record<string, string> = {}
  for (const line of text.slice(0, sep).split('\n')) {
    const m = /^(\w+):\s?(.*)$/.exec(line)
    if (m) head[m[1]!.toLowerCase()] = m[2]!.trim()
  }
  const body = text.slice(sep + HEADER_END.length + 1)
  const patch: PatchEntryBody = {}
  if (head.title !== undefined && head.title !== e.title) patch.title = head.title
  if (body.trimEnd() !== e.body.trimEnd()) patch.body = body
  const tags = (head.tags ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
  if (tags.join(',') !== e.tags.join(',')) patch.tags = tags
  const url = head.url ?? ''
  if (url !== (e.url ?? '')) patch.url = url === '' ? null : url
  return patch
}

/** `e` with `patch`'s editable fields applied (what the editor reopens on after a conflict). */
export function withPatch(e: EntryFull, patch: PatchEntryBody): Editable {
  return {
    title: patch.title ?? e.title,
    tags: patch.tags ?? e.tags,
    url: patch.url !== undefined ? patch.url : e.url,
    body: patch.body ?? e.body,
  }
}
