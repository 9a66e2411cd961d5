/**
 * @module The gate every widening passes (docs/api.md, "Safe publish"): publish, create and edit in a
 * shared scope, fork into a wider one, import into one. It scans what the wider audience would read and
 * either clears the change — with the redactions to store and the acknowledgement to record — or
 * refuses it with the findings.
 */
import {KbError} from '../../src/shared/errors.js'
import {summarize} from '../../src/shared/summary.js'
import type {Comment, Resolution, ThoughtStep} from '../../src/shared/types.js'
import {nowIso, uuidv7} from '../lib/ids.js'
import type {CommentRow, Store} from '../store/store.js'
import {ackSigner, type AckSigner, SIGNATURE_HEAD, signatureHolds, signIds} from './ack-signature.js'
import type {EntryExport} from '../store/transfer-store.js'
import type {Caller} from './context.js'
import {
  ACKNOWLEDGEMENT_HEAD,
  acknowledgementNotes,
  fieldsOf,
  type Hit,
  redactFields,
  refusal,
  scanFields,
  type ScanField,
  type ScannableEntry,
  type SensitiveChoice,
  unacknowledged,
} from './sensitive.js'

/** The entry's scannable fields after redaction (the fields no finding touched are as they were). */
interface Redacted {
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
  /** The comments that record what was acknowledged (more than one when one would be over the comment limit). */
  notes: CommentRow[]
  /** Findings redacted per field, and how many were acknowledged: what history records (never the text). */
  tally: Tally
}

/** What a clearance did, by count only (docs/api.md, "History": a redaction's record never holds the secret). */
export interface Tally {
  redacted: Record<string, number>
  acknowledged: number
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
  /** Signs the acknowledgement records for the entry and the audience they are given for (ack-signature.ts). */
  signer?: AckSigner
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
  const {values, notes, tally} = await clearFields(fieldsOf(e), choice, o)
  return {redacted: apply(e, values), changed: values.size > 0, notes, tally}
}

/**
 * Clears texts on their own — a comment or a resolution added to an entry a wider audience already reads:
 * the redacted value of every field a finding is in, and the records of what was acknowledged; or the refusal.
 */
export async function clearFields(
  fields: ScanField[],
  choice: SensitiveChoice,
  o: GateOptions,
): Promise<{values: Map<string, string | null>; notes: CommentRow[]; tally: Tally}> {
  const all = await scanFields(fields)
  const hits = o.only ? all.filter(o.only) : all
  const open = unacknowledged(hits, choice)
  if (open.length > 0 && !choice.redact) throw refusal(fields, open, o.action, o.status, all)
  const openIds = new Set(open.map((h) => h.id))
  const acknowledged = hits.filter((h) => !openIds.has(h.id))
  const at = nowIso()
  const signer = o.signer
  const notes = acknowledgementNotes(acknowledged, o.action, signer ? (ids) => signIds(signer, ids) : undefined).map(
    (body): CommentRow => ({
      id: uuidv7(),
      entry_id: o.entryId,
      body,
      type: 'note',
      author_id: o.caller.principal.id,
      created_at: at,
    }),
  )
  const redacted: Record<string, number> = {}
  for (const h of open) redacted[h.field] = (redacted[h.field] ?? 0) + 1
  return {values: redactFields(fields, open), notes, tally: {redacted, acknowledged: acknowledged.length}}
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
  const resolution = e.resolution
    ? {
        ...e.resolution,
        ...(values.has('resolution/note') ? {note: values.get('resolution/note')!} : {}),
        ...(values.has('resolution/url') ? {url: values.get('resolution/url')!} : {}),
      }
    : null
  const comments = (e.comments ?? [])
    .filter((c: Comment) => values.has(`comments/${c.id}/body`))
    .map((c) => ({id: c.id, body: values.get(`comments/${c.id}/body`)!}))
  return {title: at('title', e.title), body: at('body', e.body), url, tags, thought_chain, resolution, comments}
}

/** A key for "the same secret in the same field", whatever its position: an edit counts only findings it brings. */
export function sameSecret(h: Hit): string {
  return `${h.field.split('/')[0]}\u0000${h.kind}\u0000${h.secret}`
}

/** The finding ids an entry's own acknowledgement records name, from the records whose signature holds for `signer`. */
function acknowledgedIn(comments: Comment[], signer: AckSigner): Set<string> {
  const ids = new Set<string>()
  for (const c of comments) {
    if (!c.body.startsWith(ACKNOWLEDGEMENT_HEAD)) continue
    const lines = c.body.split('\n')
    const last = lines.at(-1)!
    if (!last.startsWith(SIGNATURE_HEAD)) continue
    const named = lines.filter((line) => /^- [0-9a-f]{16} /.test(line)).map((line) => line.slice(2, 18))
    if (signatureHolds(signer, named, last.slice(SIGNATURE_HEAD.length))) for (const id of named) ids.add(id)
  }
  return ids
}

type ImportedEntry = EntryExport & {summary: string; summary_title: string}

/**
 * An imported entry bound for a shared scope, cleared as a create would be; findings its own records
 * already acknowledge (it was published so before, and exported) count as acknowledged. Returns the entry
 * to store — redacted, with a new record appended — or, refused, the reason its line is rejected.
 */
export async function clearImported(
  e: ImportedEntry,
  choice: SensitiveChoice,
  caller: Caller,
  store: Pick<Store, 'serverSecret'>,
): Promise<ImportedEntry | string> {
  if (e.scope === 'private') return e
  const signer = await ackSigner(store, e.id, e.scope, e.project_id)
  const prior = acknowledgedIn(e.comments, signer)
  let c: Clearance
  try {
    c = await gate(e, choice, {
      action: `importing into ${e.scope} scope`,
      status: 422,
      entryId: e.id,
      caller,
      only: (h) => !prior.has(h.id),
      signer,
    })
  } catch (err) {
    if (!(err instanceof KbError) || err.code !== 'sensitive_content') throw err
    const findings = (err.extra?.findings ?? []) as Hit[]
    const shown = findings
      .slice(0, 3)
      .map((h) => `${h.label} in ${h.field}, line ${h.line} (${h.excerpt})`)
      .join('; ')
    const ids = findings
      .slice(0, 20)
      .map((h) => h.id)
      .join(',')
    return (
      `sensitive content for ${e.scope} scope: ${shown}${findings.length > 3 ? `; and ${findings.length - 3} more` : ''}. ` +
      `Import with redact=true (kb import --redact) to redact it, or acknowledge=${ids}${findings.length > 20 ? ',…' : ''} ` +
      '(kb import --acknowledge <ids>) to keep it as written (recorded on the entry)'
    )
  }
  const r = c.redacted
  const bodies = new Map(r.comments.map((x) => [x.id, x.body]))
  const comments = e.comments.map((x) => (bodies.has(x.id) ? {...x, body: bodies.get(x.id)!} : x))
  const me = {id: caller.principal.id, name: caller.principal.name}
  for (const n of c.notes) comments.push({id: n.id, body: n.body, type: n.type, author: me, created_at: n.created_at})
  const s =
    r.title === e.title && r.body === e.body ? {title: e.summary_title, body: e.summary} : summarize(e.id, r.title, r.body, e.superseded_by)
  return {
    ...e,
    title: r.title,
    body: r.body,
    url: r.url,
    tags: r.tags,
    thought_chain: r.thought_chain,
    resolution: r.resolution,
    comments,
    summary: s.body,
    summary_title: s.title,
  }
}
