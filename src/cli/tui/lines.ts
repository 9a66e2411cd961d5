/**
 * @module The text of entries as the TUI shows them: the columns of a result row, the detail pane (the
 * entry at `standard`) and the full view (the entry at `full`, with the entries it links to: the one it
 * was forked from and its branches). Entry text arrives here already made safe (`load.ts`); bodies,
 * comments, thoughts and resolution notes are Markdown, rendered (`src/cli/render/`) as styled lines that
 * fit the pane, and cached per entry and width: a frame is drawn on every key.
 */
import type {EntryFull, EntryStandard, Project} from '../../shared/types.js'
import type {ReviewedEntry} from './load.js'
import type {State} from './state.js'
import {time} from '../output/format.js'
import {renderMarkdown, themeFromEnv, type Theme} from '../render/markdown.js'
import {lineText, plain, seg, type Line} from './styled.js'
import {ago, age, cut, fit, pad, width, wrap} from './text.js'
import {badge, BADGE_WIDTH, fullTrustMeta, fullTrustSections, standardTrustLines} from './trust-lines.js'
import {shortId} from '../../shared/short-id.js'

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

let theme: Theme | undefined
const rendered = new WeakMap<object, Map<string, Line[]>>()

/** Markdown `text` of `owner` (an entry, a comment, a thought) rendered `columns` wide, once per width. */
function markdown(owner: object, field: string, text: string, columns: number): Line[] {
  const key = `${field}\u0000${columns}`
  const hit = rendered.get(owner)?.get(key)
  if (hit) return hit
  theme ??= themeFromEnv()
  const lines = text.trim() === '' ? [] : renderMarkdown(text.trimEnd(), {width: columns, theme})
  if (!rendered.has(owner)) rendered.set(owner, new Map())
  rendered.get(owner)!.set(key, lines)
  return lines
}

/**
 * The start of a body, more than enough to fill `rows` lines `columns` wide (Markdown's marks hide a few
 * characters; what they hide is far less than this margin): the pane shows no more, so a 100 KB body is not
 * laid out when it is selected. Cut at a line break where there is one near.
 */
function preview(text: string, rows: number, columns: number): string {
  const room = Number.isFinite(rows) ? rows * columns * 4 : Infinity
  if (text.length <= room) return text
  const nl = text.indexOf('\n', room)
  return text.slice(0, nl === -1 || nl > room + 1000 ? room : nl)
}

const plains = (ls: string[], style: Parameters<typeof seg>[1] = {}): Line[] => ls.map((l) => [seg(l, style)])

/** The selected entry at `standard`, as the detail pane shows it (its first `rows` lines): title in bold, body rendered. */
export function standardLines(e: EntryStandard, columns: number, ctx: Context, now = Date.now(), rows = Infinity): Line[] {
  const meta = [
    e.status,
    e.scope,
    `by ${e.author.name}`,
    ago('updated', e.updated_at, now),
    `${e.comment_count} comment${e.comment_count === 1 ? '' : 's'}`,
  ]
    .filter((x): x is string => Boolean(x))
    .join(' · ')
  const lines = [...plains(wrap(e.title, columns), {bold: true}), ...plains(wrap(meta, columns)), ...plains(standardTrustLines(e, columns))]
  if (e.forked_from) lines.push(...plains(wrap(`fork of ${nameOf(e.forked_from, ctx)}`, columns)))
  // In the review queue, the entries it was found alike with (docs/tui.md, "Review").
  for (const o of (e as ReviewedEntry).similar_to ?? [])
    lines.push(...plains(wrap(`similar to "${o.title}" (${shortId(o.id)})`, columns), {color: 'yellow'}))
  if (e.project_id) lines.push(...plains(wrap(`project ${projectText(e.project_id, ctx)}`, columns)))
  if (e.tags.length > 0) lines.push(...plains(wrap(e.tags.map((t) => `#${t}`).join(' '), columns)))
  if (e.url) lines.push(...plains(wrap(e.url, columns)))
  const body = preview(e.body, rows, columns)
  lines.push(
    ...plains(wrap(`id ${shortId(e.id)}  (${e.id})`, columns), {dim: true}),
    plain(''),
    ...markdown(e, `body:${body.length}`, body, columns),
  )
  return lines.slice(0, rows)
}

/** A line of the full view that opens another entry. */
interface Link {
  line: number
  id: string
}

export interface FullText {
  lines: Line[]
  links: Link[]
}

const MODE = {tty: true, color: false, width: 80}

const cache = new WeakMap<EntryFull, Map<string, FullText>>()

/** `lines` behind `n` spaces (a thought under its step number). */
const indented = (lines: Line[], n: number): Line[] => lines.map((l) => [seg(' '.repeat(n)), ...l])

/** The entry at `full` (metadata, body, resolution note, thought chain, comments, branches), wrapped and rendered. */
export function fullLines(e: EntryFull, columns: number, ctx: Context): FullText {
  const by = e.superseded_by ?? null
  const key = `${columns}\u0000${e.forked_from ? nameOf(e.forked_from, ctx) : ''}\u0000${e.project_id ? projectText(e.project_id, ctx) : ''}\u0000${by ? nameOf(by, ctx) : ''}`
  const hit = cache.get(e)?.get(key)
  if (hit) return hit
  const lines: Line[] = []
  const links: Link[] = []
  const meta: [string, string, string?][] = [
    ['id', `${shortId(e.id)}  (${e.id})`],
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
    // The note is Markdown: rendered under the body, not squeezed into a value column.
    if (e.resolution.url) meta.push(['resolution url', e.resolution.url])
  }
  lines.push(...plains(wrap(e.title, columns), {bold: true}))
  const kw = Math.max(...meta.map(([k]) => width(k))) + 2
  for (const [k, v, link] of meta) {
    if (link) {
      // A link is one line, so that highlighting it highlights all of it.
      links.push({line: lines.length, id: link})
      lines.push([seg(pad(k, kw), {dim: true}), seg(cut(v, columns - kw))])
      continue
    }
    // The value wraps under itself, not under the key.
    wrap(v, Math.max(10, columns - kw)).forEach((l, i) => lines.push([seg(i === 0 ? pad(k, kw) : ' '.repeat(kw), {dim: true}), seg(l)]))
  }
  lines.push(plain(''), ...markdown(e, 'body', e.body, columns))
  const note = e.resolution?.note
  if (e.resolution && note) lines.push(plain(''), [seg('Resolution note', {bold: true})], ...markdown(e.resolution, 'note', note, columns))
  if (e.thought_chain.length > 0) {
    lines.push(plain(''), [seg('Thought chain', {bold: true})])
    for (const t of e.thought_chain) {
      const head: Line = [seg(`${t.step}. `), seg(`[${t.kind}]`, {dim: true})]
      const thought = markdown(t, 'thought', t.thought, columns - 3)
      // A one-line thought stays on its step's line; a longer one goes under it.
      if (thought.length === 1 && width(lineText(head)) + 1 + width(lineText(thought[0]!)) <= columns)
        lines.push([...head, seg(' '), ...thought[0]!])
      else lines.push(head, ...indented(thought, 3))
    }
  }
  lines.push(...plains(fullTrustSections(e, columns)))
  if (e.comments.length > 0) {
    lines.push(plain(''), [seg(`Comments (${e.comments.length})`, {bold: true})])
    for (const c of e.comments)
      lines.push(
        ...plains(wrap(`${c.author.name} · ${c.type} · ${time(c.created_at, MODE)}`, columns), {color: 'cyan'}),
        ...markdown(c, 'body', c.body, columns),
        plain(''),
      )
    lines.pop()
  }
  if (e.branches.length > 0) {
    lines.push(plain(''), [seg('Branches', {bold: true})])
    for (const b of e.branches) {
      links.push({line: lines.length, id: b.id})
      lines.push(plain(cut(`${FORK_MARK}"${b.title}" (${shortId(b.id)}) · ${b.scope} · ${b.author.name}`, columns)))
    }
  }
  const out = {lines, links}
  if (!cache.has(e)) cache.set(e, new Map())
  cache.get(e)!.set(key, out)
  return out
}
