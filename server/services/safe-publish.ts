/**
 * @module The gate every widening passes (docs/api.md, "Safe publish"): publish, create and edit in a
 * shared scope, fork into a wider one, import into one. It scans what the wider audience would read and
 * either clears the change — with the redactions to store and the acknowledgement to record — or
 * refuses it with the findings.
 */
import type {Comment, Resolution, ThoughtStep} from '../../src/shared/types.js'
import {nowIso, uuidv7} from '../lib/ids.js'
import type {CommentRow} from '../store/store.js'
import type {Caller} from './context.js'
import {
  acknowledgementNote, fieldsOf, type Hit, redactFields, refusal, scanFields, type ScannableEntry, type SensitiveChoice, unacknowledged,
} from './sensitive.js'

/** The entry's scannable fields after redaction (the fields no finding touched are as they were). */
export interface Redacted {
  title: string
  body: string
  url: string | null
  tags: string[]
  thought_chain: ThoughtStep[]
  resolution: Resolution | null
  /** Comments whose body changed. */
  comments: Array<{id: string; body: string}>
}

/** A change cleared to go ahead: the entry as it may be stored, and the comment that records what was acknowledged. */
export interface Clearance {
  redacted: Redacted
  /** Whether redaction changed anything. */
  changed: boolean
  note: CommentRow | null
}

export interface GateOptions {
  /** What is being done, for the refusal and the record ("publishing to global", "creating an entry in project scope"). */
  action: string
  /** 409 for the entry as it stands (publish), 422 for content the request brings (create, edit, fork). */
  status: 409 | 422
  entryId: string
  caller: Caller
  /** Only these findings count (an edit: those its new text brings); default all. */
  only?: (h: Hit) => boolean
}

/** The findings of the entry as its wider audience would read it. */
export async function findingsOf(e: ScannableEntry): Promise<{fields: ReturnType<typeof fieldsOf>; hits: Hit[]}> {
  const fields = fieldsOf(e)
  return {fields, hits: await scanFields(fields)}
}

/**
 * Scans the entry; clears it (redacting what the request asked to, recording what it acknowledged) or
 * throws the sensitive_content refusal listing what is neither redacted nor acknowledged.
 */
export async function gate(e: ScannableEntry, choice: SensitiveChoice, o: GateOptions): Promise<Clearance> {
  const {fields, hits: all} = await findingsOf(e)
  const hits = o.only ? all.filter(o.only) : all
  const open = unacknowledged(hits, choice)
  if (open.length > 0 && !choice.redact) throw refusal(fields, open, o.action, o.status)
  const openIds = new Set(open.map((h) => h.id))
  const acknowledged = hits.filter((h) => !openIds.has(h.id))
  const values = redactFields(fields, open)
  const note: CommentRow | null =
    acknowledged.length === 0
      ? null
      : {id: uuidv7(), entry_id: o.entryId, body: acknowledgementNote(acknowledged, o.action), type: 'note', author_id: o.caller.principal.id, created_at: nowIso()}
  return {redacted: apply(e, values), changed: values.size > 0, note}
}

/** The entry with the redacted field values put in their places (a null tag or url removed). */
function apply(e: ScannableEntry, values: Map<string, string | null>): Redacted {
  const at = (field: string, current: string): string => {
    const v = values.get(field)
    return v === undefined || v === null ? current : v
  }
  const url = values.has('url') ? values.get('url')! : e.url
  const tags = e.tags.flatMap((t, i) => (values.has(`tags/${i}`) ? [] : [t]))
  const thought_chain = e.thought_chain.map((t, i) => ({...t, thought: at(`thought_chain/${i}/thought`, t.thought)}))
  const resolution = e.resolution && values.has('resolution/note') ? {...e.resolution, note: values.get('resolution/note')!} : (e.resolution ?? null)
  const comments = (e.comments ?? []).filter((c: Comment) => values.has(`comments/${c.id}/body`)).map((c) => ({id: c.id, body: values.get(`comments/${c.id}/body`)!}))
  return {title: at('title', e.title), body: at('body', e.body), url, tags, thought_chain, resolution, comments}
}

/** A key for "the same secret in the same field", whatever its position: an edit counts only findings it brings. */
export function sameSecret(h: Hit): string {
  return `${h.field.split('/')[0]}\u0000${h.kind}\u0000${h.secret}`
}
