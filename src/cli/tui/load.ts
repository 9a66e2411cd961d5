/**
 * @module What `kb browse` reads from the API: a page of results (a search, or the latest entries when
 * the query is empty), an entry in full, the caller's projects — and errors as one line for people.
 * Everything other people wrote (titles, bodies, comments, thought chains, resolution notes, names,
 * project names and remotes, the excerpts of safe publish's findings) is made safe for the terminal here,
 * as it arrives, so no escape sequence in an entry reaches the screen whatever view shows it.
 */
import {KbError} from '../../shared/errors.js'
import {hintFor, withHint} from '../../shared/hints.js'
import type {ApiClient} from '../../shared/client.js'
import {LIMIT_MAX} from '../../shared/contract.js'
import type {AuthorRef, EntryFull, EntryStandard, Project, PublishPreview, Scope, SensitiveReport} from '../../shared/types.js'
import {safeText} from '../output/safe-text.js'
import type {LoadRequest, ResultsPage} from './state.js'
import type {HistoryItem} from '../../shared/curation-schemas.js'

/** The history view reads at most this many changes of one entry. */
const HISTORY_SHOWN_MAX = 1000

/** One line (a title, a name): line breaks and tabs become spaces. */
const line = (s: string): string => safeText(s, {newlines: false, tabs: false})
const block = (s: string): string => safeText(s)
const who = (a: AuthorRef): AuthorRef => ({...a, name: line(a.name)})
const maybe = (s: string | null): string | null => (s === null ? null : line(s))

/** Freshness reasons and anchors name paths and people: made safe too (docs/tui.md, "Freshness"). */
function cleanTrust(e: EntryStandard): Partial<EntryStandard> {
  const f = e.freshness as EntryStandard['freshness'] | string | undefined
  return {
    ...(f && typeof f !== 'string'
      ? {
          freshness: {
            ...f,
            reasons: f.reasons.map((r) => ({...r, detail: line(r.detail)})),
            verified_by: f.verified_by ? who(f.verified_by) : null,
          },
        }
      : {}),
    ...(e.anchors ? {anchors: e.anchors.map((a) => ({...a, path: line(a.path), lines: maybe(a.lines), symbol: maybe(a.symbol)}))} : {}),
  }
}

/** An entry as the review queue lists it: with the other entries of its similar pairs, titles made safe. */
export type ReviewedEntry = EntryStandard & {similar_to?: Array<{id: string; title: string}>}

export function cleanEntry<E extends EntryStandard>(e: E): E {
  const out: EntryStandard = {
    ...e,
    title: line(e.title),
    body: block(e.body),
    tags: e.tags.map(line),
    url: maybe(e.url),
    author: who(e.author),
    ...cleanTrust(e),
  }
  const f = e as Partial<EntryFull>
  if (!f.comments) return out as E
  const full: EntryFull = {
    ...(out as EntryFull),
    comments: f.comments.map((c) => ({...c, body: block(c.body), author: who(c.author)})),
    thought_chain: (f.thought_chain ?? []).map((t) => ({...t, thought: block(t.thought)})),
    branches: (f.branches ?? []).map((b) => ({...b, title: line(b.title), author: who(b.author)})),
    resolution: f.resolution
      ? {
          ...f.resolution,
          note: f.resolution.note === null ? null : block(f.resolution.note),
          url: maybe(f.resolution.url),
          resolved_by: who(f.resolution.resolved_by),
        }
      : null,
  }
  return full as unknown as E
}

/** An error as one line for people: the message and what to do, never a stack trace. */
export function describeError(e: unknown): string {
  let text: string
  if (e instanceof KbError) {
    // Unreachable errors already name their fix (`kb daemon start`, --base-url).
    text = withHint(e.message, hintFor(e.code, 'tui'), ' — ')
  } else text = e instanceof Error ? e.message : String(e)
  // A server's message may quote what it was sent.
  return line(text)
}

export async function loadResults(client: ApiClient, r: LoadRequest): Promise<ResultsPage> {
  const filters = {
    ...(r.filters.scope ? {scope: r.filters.scope} : {}),
    ...(r.filters.status ? {status: r.filters.status} : {}),
    ...(r.projectId ? {project_id: r.projectId} : {}),
    detail: 'standard' as const,
    limit: r.limit,
  }
  if (r.filters.review) {
    // The review queue (docs/tui.md, "Review"): its own order, most used first; the query does not apply.
    const page = await client.review({...(r.projectId ? {project_id: r.projectId} : {}), limit: r.limit})
    // An entry of a similar pair carries the other entries, for the detail pane (docs/tui.md, "Review").
    const items = page.items.map((i): ReviewedEntry => {
      const others = i.reasons.flatMap((r) => (r.other ? [{id: r.other.id, title: line(r.other.title)}] : []))
      return others.length > 0 ? {...cleanEntry(i.entry), similar_to: others} : cleanEntry(i.entry)
    })
    return {items, total: items.length, more: false, cursor: null}
  }
  if (r.query === '') {
    const p = await client.listEntries({...filters, ...(r.cursor ? {cursor: r.cursor} : {})})
    const items = (p.items as EntryStandard[]).map(cleanEntry)
    return {items, total: items.length, more: p.next_cursor !== null, cursor: p.next_cursor}
  }
  // A search has no cursor: more of it is one larger page, up to the largest the API serves.
  const res = await client.search({...filters, q: r.query})
  const items = (res.items as EntryStandard[]).map(cleanEntry)
  return {items, total: res.total, more: items.length < res.total && r.limit < LIMIT_MAX, cursor: null}
}

export async function loadEntry(client: ApiClient, id: string): Promise<EntryFull> {
  return cleanEntry((await client.getEntry(id, 'full')).entry as EntryFull)
}

/** An entry's whole history (docs/api.md, "History"), names, notes and changes made safe for the terminal. */
export async function loadHistory(client: ApiClient, id: string): Promise<HistoryItem[]> {
  const items: HistoryItem[] = []
  let cursor: string | null = null
  do {
    const page = await client.history(id, cursor)
    items.push(...page.items)
    cursor = page.next_cursor
  } while (cursor && items.length < HISTORY_SHOWN_MAX)
  return items.map((h) => ({
    ...h,
    actor: {...h.actor, name: line(h.actor.name), client: maybe(h.actor.client)},
    changes: Object.fromEntries(Object.entries(h.changes).map(([k, v]) => [line(k), line(v)])),
    note: maybe(h.note),
  }))
}

export async function loadProjects(client: ApiClient): Promise<Project[]> {
  return (await client.listProjects()).map((p) => ({...p, name: line(p.name), remote: line(p.remote)}))
}

/** Findings and a redaction diff, their text (excerpts of the entry) made safe for the terminal. */
function cleanReport(r: SensitiveReport): SensitiveReport {
  return {
    findings: r.findings.map((f) => ({...f, field: line(f.field), label: line(f.label), excerpt: line(f.excerpt)})),
    findings_total: r.findings_total,
    diff: r.diff.map((d) => ({...d, field: line(d.field), before: line(d.before), after: maybe(d.after)})),
  }
}

/** What publishing to `scope` would expose (docs/api.md, "Safe publish"); changes nothing. */
export async function loadPreview(client: ApiClient, id: string, scope: Scope): Promise<PublishPreview> {
  const p = await client.publishPreview(id, scope)
  return {...p, ...cleanReport(p)}
}

/** The findings of a sensitive_content refusal, or undefined for any other error. */
export function refusalReport(e: unknown): SensitiveReport | undefined {
  if (!(e instanceof KbError) || e.code !== 'sensitive_content' || !Array.isArray(e.extra?.findings)) return undefined
  const x = e.extra
  return cleanReport({
    findings: x.findings as SensitiveReport['findings'],
    findings_total: typeof x.findings_total === 'number' ? x.findings_total : (x.findings as unknown[]).length,
    diff: Array.isArray(x.diff) ? (x.diff as SensitiveReport['diff']) : [],
  })
}
