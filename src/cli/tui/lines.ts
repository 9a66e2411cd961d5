/**
 * @module The text of entries as the TUI shows them: the columns of a result row, the detail pane (the
 * entry at `standard`) and the full view (the entry at `full`, with the entries it links to: the one it
 * was forked from and its branches). Entry text arrives here already made safe (`load.ts`).
 */
import type {EntryFull, EntryStandard, Project} from '../../shared/types.js'
import type {State} from './state.js'
import {time} from '../output/format.js'
import {ago, age, cut, fit, pad, width, wrap} from './text.js'
import {badge, BADGE_WIDTH, fullTrustMeta, fullTrustSections, standardTrustLines} from './trust-lines.js'

/** Marks a fork in the list, so it can be told from its original whatever the width. */
const FORK_MARK = '↳ '

/** What the lines of an entry may name besides the entry: project names and the titles of other entries. */
export interface Context {
  projects: Record<string, Project>
  /** The title of an entry kb has seen (results, full views), if any. */
  titleOf: (id: string) => string | undefined
}

/** What the state knows to name other entries and projects: titles from the results and full views. */
export function contextOf(s: State): Context {
  return {
    projects: s.projects,
    titleOf: (id) => {
      const hit = s.results.items.find((e) => e.id === id)
      if (hit) return hit.title
      for (let v = s.full; v; v = v.prev) {
        if (v.entry?.id === id) return v.entry.title
        const b = v.entry?.branches.find((x) => x.id === id)
        if (b) return b.title
      }
      return undefined
    },
  }
}

/**
 * An id short enough for a line that still tells entries apart: its end. (kb's ids are UUIDv7, whose
 * first characters are a timestamp, so entries made in the same minute share them; the end is random.)
 */
const shortId = (id: string): string => `…${id.slice(-8)}`

/** `"Title" (0199aaaa)` or, for an entry not seen, its id. */
export function nameOf(id: string, ctx: Context): string {
  const t = ctx.titleOf(id)
  return t === undefined ? id : `"${t}" (${shortId(id)})`
}

function projectText(id: string, ctx: Context): string {
  const p = ctx.projects[id]
  return p ? `${p.name} · ${p.remote}` : id
}

export interface RowParts {
  title: string
  tags: string
  /** `stale ` or blank (docs/tui.md, "Freshness"). */
  badge: string
  status: string
  scope: string
  age: string
}

/** The columns of one result row for a list `width` wide (2 columns go to the selection marker). */
export function rowParts(e: EntryStandard, columns: number, now = Date.now()): RowParts {
  const fixed = 2 + BADGE_WIDTH + 9 + 8 + 4
  const tagsW = columns - fixed >= 48 ? 18 : 0
  // One column between title and tags; a row must never reach the last column (terminals wrap there).
  const titleW = Math.max(8, columns - fixed - tagsW - 2)
  return {
    title: fit((e.forked_from ? FORK_MARK : '') + e.title, titleW),
    tags: tagsW > 0 ? fit(e.tags.map((t) => `#${t}`).join(' '), tagsW - 1) + ' ' : '',
    badge: badge(e),
    status: fit(e.status, 8) + ' ',
    scope: fit(e.scope, 7) + ' ',
    age: fit(age(e.updated_at, now), 4),
  }
}

/** The selected entry at `standard`, as the detail pane shows it (its first `rows` lines). */
export function standardLines(e: EntryStandard, columns: number, ctx: Context, now = Date.now(), rows = Infinity): string[] {
  const meta = [
    e.status,
    e.scope,
    `by ${e.author.name}`,
    ago('updated', e.updated_at, now),
    `${e.comment_count} comment${e.comment_count === 1 ? '' : 's'}`,
  ]
    .filter((x): x is string => Boolean(x))
    .join(' · ')
  const lines = [...wrap(e.title, columns), ...wrap(meta, columns), ...standardTrustLines(e, columns)]
  if (e.forked_from) lines.push(...wrap(`fork of ${nameOf(e.forked_from, ctx)}`, columns))
  if (e.project_id) lines.push(...wrap(`project ${projectText(e.project_id, ctx)}`, columns))
  if (e.tags.length > 0) lines.push(...wrap(e.tags.map((t) => `#${t}`).join(' '), columns))
  if (e.url) lines.push(...wrap(e.url, columns))
  lines.push(...wrap(`id ${e.id}`, columns), '', ...wrap(e.body.trimEnd(), columns, Math.max(0, rows - lines.length - 2)))
  return lines.slice(0, rows)
}

/** A line of the full view that opens another entry. */
interface Link {
  line: number
  id: string
}

export interface FullText {
  lines: string[]
  links: Link[]
}

const MODE = {tty: true, color: false, width: 80}

const cache = new WeakMap<EntryFull, Map<string, FullText>>()

/** The entry at `full` (metadata, resolution, body, thought chain, comments, branches), wrapped. */
export function fullLines(e: EntryFull, columns: number, ctx: Context): FullText {
  const by = e.superseded_by ?? null
  const key = `${columns}\u0000${e.forked_from ? nameOf(e.forked_from, ctx) : ''}\u0000${e.project_id ? projectText(e.project_id, ctx) : ''}\u0000${by ? nameOf(by, ctx) : ''}`
  const hit = cache.get(e)?.get(key)
  if (hit) return hit
  const lines: string[] = []
  const links: Link[] = []
  const meta: [string, string, string?][] = [
    ['id', e.id],
    ['status', e.status],
    ['scope', e.scope],
  ]
  // docs/tui.md: a superseded entry names its replacement first, as a link (Tab, Enter) to it.
  if (by) meta.splice(2, 0, ['superseded by', `→ ${nameOf(by, ctx)}`, by])
  if (e.tags.length > 0) meta.push(['tags', e.tags.join(', ')])
  if (e.url) meta.push(['url', e.url])
  meta.push(['author', e.author.name])
  if (e.project_id) meta.push(['project', projectText(e.project_id, ctx)])
  if (e.forked_from) meta.push(['forked from', `${FORK_MARK}${nameOf(e.forked_from, ctx)}`, e.forked_from])
  meta.push(['created', time(e.created_at, MODE)], ['updated', time(e.updated_at, MODE)], ['version', String(e.version)])
  meta.push(...fullTrustMeta(e))
  if (e.resolution) {
    meta.push(['resolved', `${time(e.resolution.resolved_at, MODE)} by ${e.resolution.resolved_by.name}`])
    if (e.resolution.note) meta.push(['resolution', e.resolution.note])
    if (e.resolution.url) meta.push(['resolution url', e.resolution.url])
  }
  lines.push(...wrap(e.title, columns))
  const kw = Math.max(...meta.map(([k]) => width(k))) + 2
  for (const [k, v, link] of meta) {
    if (link) {
      // A link is one line, so that highlighting it highlights all of it.
      links.push({line: lines.length, id: link})
      lines.push(pad(k, kw) + cut(v, columns - kw))
      continue
    }
    // The value wraps under itself, not under the key.
    wrap(v, Math.max(10, columns - kw)).forEach((l, i) => lines.push((i === 0 ? pad(k, kw) : ' '.repeat(kw)) + l))
  }
  lines.push('', ...wrap(e.body.trimEnd(), columns))
  if (e.thought_chain.length > 0) {
    lines.push('', 'Thought chain')
    for (const t of e.thought_chain) lines.push(...wrap(`${t.step}. [${t.kind}] ${t.thought}`, columns))
  }
  lines.push(...fullTrustSections(e, columns))
  if (e.comments.length > 0) {
    lines.push('', `Comments (${e.comments.length})`)
    for (const c of e.comments)
      lines.push(...wrap(`${c.author.name} · ${c.type} · ${time(c.created_at, MODE)}`, columns), ...wrap(c.body.trimEnd(), columns), '')
    if (lines[lines.length - 1] === '') lines.pop()
  }
  if (e.branches.length > 0) {
    lines.push('', 'Branches')
    for (const b of e.branches) {
      links.push({line: lines.length, id: b.id})
      lines.push(cut(`${FORK_MARK}"${b.title}" (${shortId(b.id)}) · ${b.scope} · ${b.author.name}`, columns))
    }
  }
  const out = {lines, links}
  if (!cache.has(e)) cache.set(e, new Map())
  cache.get(e)!.set(key, out)
  return out
}
