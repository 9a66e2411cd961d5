/**
 * @module Safe publish (docs/api.md, "Safe publish"; docs/security.md): an entry's fields as a wider audience
 * would read them, scanned for secrets and personal data; the findings as the API reports them (stable ids,
 * masked excerpts — never the secret), the redacted text and its line diff, the refusal, and the comment
 * that records an acknowledgement.
 */
import {createHash} from 'node:crypto'
import {KbError} from '../../src/shared/errors.js'
import {SIGNATURE_HEAD, SIGNATURE_LINE_LENGTH} from './ack-signature.js'
import {BODY_MAX, COMMENT_MAX, FINDINGS_MAX, NOTE_MAX, TITLE_MAX} from '../../src/shared/contract.js'
import type {Comment, Finding, RedactionLine, Resolution, SensitiveReport, ThoughtStep} from '../../src/shared/types.js'
import {scanAside} from '../scan/off-thread.js'
import {KINDS} from '../scan/scanner.js'

/** One text of an entry, by its path in the entry (`body`, `tags/2`, `comments/<id>/body`). */
export interface ScanField {
  field: string
  text: string
}

/** A finding with the text it found: kept on the server, never sent. */
export interface Hit extends Finding {
  secret: string
}

/** What the request chose to do about findings. */
export interface SensitiveChoice {
  redact?: boolean
  acknowledge?: string[]
}

/** The parts of an entry a scan reads; any may be absent (a create has no comments). */
export interface ScannableEntry {
  title: string
  body: string
  url: string | null
  tags: string[]
  thought_chain: ThoughtStep[]
  resolution?: Resolution | null
  comments?: Comment[]
}

const FIELD_MAX: Record<string, number> = {
  title: TITLE_MAX,
  body: BODY_MAX,
  thought_chain: NOTE_MAX,
  resolution: NOTE_MAX,
  comments: COMMENT_MAX,
  comment: COMMENT_MAX,
}
/** Fields that hold a URL: redacted only while the result is still one, else removed. */
const isUrlField = (field: string): boolean => field === 'url' || field === 'resolution/url'
const DIFF_MAX = 200
const LINE_SHOWN = 400
const CONTEXT = 24
/** Scanned characters between yields to the event loop, so one large entry cannot hold up other requests. */
const YIELD_EVERY = 256 * 1024
/**
 * What one finding costs to report (hash, excerpt), in scanned characters: a text dense with findings yields
 * too, every 1,024 findings (~2 ms; at 4,096 a turn held the loop ~10 ms of CPU, far more on a loaded machine).
 */
const HIT_WEIGHT = 256
const yieldNow = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** Everything of the entry a reader of a wider scope would see, in a fixed order. */
export function fieldsOf(e: ScannableEntry): ScanField[] {
  const fields: ScanField[] = [
    {field: 'title', text: e.title},
    {field: 'body', text: e.body},
  ]
  if (e.url) fields.push({field: 'url', text: e.url})
  e.tags.forEach((t, i) => fields.push({field: `tags/${i}`, text: t}))
  e.thought_chain.forEach((t, i) => fields.push({field: `thought_chain/${i}/thought`, text: t.thought}))
  if (e.resolution?.note) fields.push({field: 'resolution/note', text: e.resolution.note})
  if (e.resolution?.url) fields.push({field: 'resolution/url', text: e.resolution.url})
  for (const c of e.comments ?? []) fields.push({field: `comments/${c.id}/body`, text: c.body})
  return fields
}

/** The findings of every field, in field and text order. Yields to the event loop between large stretches. */
export async function scanFields(fields: ScanField[]): Promise<Hit[]> {
  const hits: Hit[] = []
  let since = 0
  for (const {field, text} of fields) {
    if (since > YIELD_EVERY) {
      await yieldNow()
      since = 0
    }
    since += text.length
    // A long text is scanned on a worker thread: other requests go on meanwhile (server/scan/off-thread.ts).
    const matches = await scanAside(text)
    if (matches.length === 0) continue
    const masked = maskedText(text, matches)
    let line = 1
    let lineStart = 0
    let scanned = 0
    for (const m of matches) {
      since += HIT_WEIGHT
      if (since > YIELD_EVERY) {
        await yieldNow()
        since = 0
      }
      for (; scanned < m.start; scanned++) {
        if (text.charCodeAt(scanned) === 10) {
          line++
          lineStart = scanned + 1
        }
      }
      const secret = text.slice(m.start, m.end)
      const id = createHash('sha256')
        .update(`${field}\u0000${m.kind}\u0000${m.start}\u0000${m.end}\u0000${secret}`)
        .digest('hex')
        .slice(0, 16)
      const {label, category} = KINDS[m.kind]!
      const column = m.start - lineStart + 1
      hits.push({id, field, kind: m.kind, label, category, start: m.start, end: m.end, line, column, excerpt: excerpt(masked, m), secret})
    }
  }
  return hits
}

/** How a finding shows when it must not: its first few characters (never more than a quarter of it), then an ellipsis. */
function mask(secret: string): string {
  return `${secret.slice(0, Math.min(4, Math.floor(secret.length / 4)))}…`
}

/** The text with every match masked, and where each match now sits in it. */
interface Masked {
  text: string
  at: Map<number, {start: number; end: number}>
}

function maskedText(text: string, matches: Array<{start: number; end: number}>): Masked {
  let out = ''
  let from = 0
  const at = new Map<number, {start: number; end: number}>()
  for (const m of matches) {
    out += text.slice(from, m.start)
    const shown = mask(text.slice(m.start, m.end))
    at.set(m.start, {start: out.length, end: out.length + shown.length})
    out += shown
    from = m.end
  }
  return {text: out + text.slice(from), at}
}

/** The masked finding with a little of its line on either side, on one line. */
function excerpt(masked: Masked, m: {start: number}): string {
  const pos = masked.at.get(m.start)!
  let from = pos.start
  let to = pos.end
  while (from > 0 && pos.start - from < CONTEXT && masked.text.charCodeAt(from - 1) !== 10) from--
  while (to < masked.text.length && to - pos.end < CONTEXT && masked.text.charCodeAt(to) !== 10) to++
  const s = masked.text.slice(from, to).replace(/[\t\r]/g, ' ')
  return `${from > 0 && masked.text.charCodeAt(from - 1) !== 10 ? '…' : ''}${s}${to < masked.text.length && masked.text.charCodeAt(to) !== 10 ? '…' : ''}`
}

function publicFinding(h: Hit): Finding {
  const {secret: _secret, ...finding} = h
  return finding
}

const marker = (kind: string): string => `[REDACTED:${kind}]`

/** A text with the given hits (all of one field, in order) replaced by markers. */
function redactText(text: string, hits: Hit[]): string {
  let out = ''
  let from = 0
  for (const h of hits) {
    out += text.slice(from, h.start) + marker(h.kind)
    from = h.end
  }
  return out + text.slice(from)
}

/** A text cut to `max` characters (code points, as the API counts them), should markers have lengthened it past. */
function fit(text: string, max: number): string {
  if (text.length <= max) return text
  // Code points counted in place (an array of them was 240,000 strings for a body of redacted addresses).
  let points = 0
  let cut = 0
  for (let i = 0; i < text.length;) {
    if (points === max - 1) cut = i
    const c = text.charCodeAt(i)
    i += c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1
    if (++points > max) return `${text.slice(0, cut)}…`
  }
  return text
}

function validUrl(url: string): boolean {
  try {
    const u = new URL(url)
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== ''
  } catch {
    return false
  }
}

/** The new value of every field the hits are in: redacted and fitted to its limit, or null when the field must go. */
export function redactFields(fields: ScanField[], hits: Hit[]): Map<string, string | null> {
  const byField = groupByField(hits)
  const out = new Map<string, string | null>()
  for (const {field, text} of fields) {
    const mine = byField.get(field)
    if (!mine) continue
    // A tag holds only [A-Za-z0-9._-]: no marker fits, so the tag goes.
    if (field.startsWith('tags/')) out.set(field, null)
    else if (isUrlField(field)) out.set(field, validUrl(redactText(text, mine)) ? redactText(text, mine) : null)
    else out.set(field, fit(redactText(text, mine), FIELD_MAX[field.split('/')[0]!] ?? BODY_MAX))
  }
  return out
}

function groupByField(hits: Hit[]): Map<string, Hit[]> {
  const byField = new Map<string, Hit[]>()
  for (const h of hits) {
    const list = byField.get(h.field)
    if (list) list.push(h)
    else byField.set(h.field, [h])
  }
  return byField
}

/**
 * The lines redaction changes: before (masked) and after (redacted), long lines shown around their findings.
 * `kept` are findings that stay (acknowledged, or already there before an edit): masked on both sides, as no
 * answer carries a secret.
 */
function redactionDiff(fields: ScanField[], hits: Hit[], kept: Hit[]): RedactionLine[] {
  const byField = groupByField(hits)
  const keptByField = groupByField(kept)
  const diff: RedactionLine[] = []
  for (const {field, text} of fields) {
    const mine = byField.get(field)
    if (!mine) continue
    if (field.startsWith('tags/')) {
      diff.push({field, line: 1, before: maskedText(text, mine).text, after: null})
      continue
    }
    const url = isUrlField(field) && !validUrl(redactText(text, mine))
    const keptHere = keptByField.get(field) ?? []
    let k = 0
    let lineStart = 0
    let line = 1
    for (let i = 0; i < mine.length && diff.length < DIFF_MAX;) {
      const h = mine[i]!
      for (; lineStart < h.start;) {
        const nl = text.indexOf('\n', lineStart)
        if (nl === -1 || nl >= h.start) break
        lineStart = nl + 1
        line++
      }
      const nl = text.indexOf('\n', h.start)
      const lineEnd = nl === -1 ? text.length : nl
      const onLine: Hit[] = []
      for (; i < mine.length && mine[i]!.start < lineEnd; i++) onLine.push(mine[i]!)
      const from = lineStart
      // A kept finding may span lines (a key block): the part of it on this line is masked. They are in
      // text order, so one pointer walks them for the whole field.
      const keptOnLine: Hit[] = []
      while (k < keptHere.length && keptHere[k]!.end <= from) k++
      for (let j = k; j < keptHere.length && keptHere[j]!.start < lineEnd; j++) {
        const h = keptHere[j]!
        keptOnLine.push({...h, start: Math.max(h.start, from), end: Math.min(h.end, lineEnd)})
      }
      const shown = firstInOrder(onLine, keptOnLine, LINE_SHOWN)
      const all = shown.map((h): Hit => ({...h, start: h.start - from, end: h.end - from}))
      const original = text.slice(lineStart, lineEnd)
      const keptSet = new Set(keptOnLine)
      const redacted = new Set(shown.filter((h) => !keptSet.has(h)).map((h) => h.id))
      diff.push({
        field,
        line,
        before: shorten(maskedText(original, all).text),
        after: url ? null : shorten(maskKept(original, all, redacted)),
      })
    }
  }
  return diff
}

/**
 * The first `n` findings of two lists in text order, merged. Each finding shows as at least one character,
 * so a line cut to `n` characters never reaches past the n-th: the rest need not be masked, only cut.
 */
function firstInOrder(a: Hit[], b: Hit[], n: number): Hit[] {
  const out: Hit[] = []
  let i = 0
  let j = 0
  while (out.length < n && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && a[i]!.start < b[j]!.start)) out.push(a[i++]!)
    else out.push(b[j++]!)
  }
  return out
}

/** A line with its redacted findings replaced by markers and the others masked. */
function maskKept(line: string, hits: Hit[], redacted: Set<string>): string {
  let out = ''
  let from = 0
  for (const h of hits) {
    out += line.slice(from, h.start) + (redacted.has(h.id) ? marker(h.kind) : mask(line.slice(h.start, h.end)))
    from = h.end
  }
  return out + line.slice(from)
}

function shorten(line: string): string {
  return line.length <= LINE_SHOWN ? line : `${line.slice(0, LINE_SHOWN - 1)}…`
}

/** The findings as the API reports them; `kept` (findings that stay as written) are only masked in the diff. */
export function report(fields: ScanField[], hits: Hit[], kept: Hit[] = []): SensitiveReport {
  const open = new Set(hits.map((h) => h.id))
  const stay = kept.filter((h) => !open.has(h.id))
  return {findings: hits.slice(0, FINDINGS_MAX).map(publicFinding), findings_total: hits.length, diff: redactionDiff(fields, hits, stay)}
}

/** The findings the request did not acknowledge, or a refusal when they remain and it did not ask to redact them. */
export function unacknowledged(hits: Hit[], choice: SensitiveChoice): Hit[] {
  const acked = new Set(choice.acknowledge ?? [])
  return hits.filter((h) => !acked.has(h.id))
}

/**
 * The sensitive_content problem: 409 when publishing an entry as it stands, 422 when the request brings
 * the content. Its detail names the first findings and both ways out, so a client that shows only the
 * detail (an agent's tool error) still says what to do.
 */
export function refusal(fields: ScanField[], hits: Hit[], what: string, status: 409 | 422, kept: Hit[] = []): KbError {
  const shown = hits.slice(0, 5).map((h) => `${h.label} in ${h.field} line ${h.line} (${h.excerpt}; id ${h.id})`)
  const more = hits.length > shown.length ? `, and ${hits.length - shown.length} more` : ''
  const ids = hits.length <= 5 ? hits.map((h) => `"${h.id}"`).join(', ') : '<the ids of the findings>'
  const it = hits.length === 1 ? 'it' : 'them'
  return new KbError(
    'sensitive_content',
    `${what} would expose ${hits.length === 1 ? 'a finding' : `${hits.length} findings`}: ${shown.join('; ')}${more}. ` +
      `Send redact: true to replace ${it} with [REDACTED:<kind>], or acknowledge: [${ids}] to keep ${it} as written (recorded on the entry)`,
    {status, extra: {...report(fields, hits, kept)}},
  )
}

/**
 * The comments that record an acknowledgement: who (their author) let which findings through, and where.
 * They name ids, kinds, fields and lines — nothing of the text — so they are themselves clean to publish;
 * split so that none is over the comment limit (an export must import again).
 */
export function acknowledgementNotes(hits: Hit[], action: string, sign?: (ids: string[]) => string): string[] {
  if (hits.length === 0) return []
  const count = hits.length === 1 ? 'one finding' : `${hits.length} findings`
  const head = `${ACKNOWLEDGEMENT_HEAD} ${action} with ${count} acknowledged as intended (not redacted).`
  const room = COMMENT_MAX - (sign ? SIGNATURE_LINE_LENGTH : 0)
  const notes: string[] = []
  let current = head
  let ids: string[] = []
  const close = (): void => {
    notes.push(sign ? `${current}\n${SIGNATURE_HEAD}${sign(ids)}` : current)
    ids = []
  }
  for (const h of hits) {
    const line = `\n- ${h.id} ${h.label} in ${h.field}, line ${h.line}`
    if (current.length + line.length > room) {
      close()
      current = `${ACKNOWLEDGEMENT_HEAD} ${action}, continued.`
    }
    current += line
    ids.push(h.id)
  }
  close()
  return notes
}

/** How an acknowledgement record begins: an import knows the entry's own records by it. */
export const ACKNOWLEDGEMENT_HEAD = 'Safe publish:'
