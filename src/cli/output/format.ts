/**
 * @module Terminal output: aligned, coloured tables for people on a TTY, tab-separated rows for pipes
 * (first column the id, no header, no colour), and the document view of one entry. Plain ANSI escapes:
 * a colour library would cost start-up time on every command. Columns are fitted by display width. Text that
 * came from the server passes through safeText on every path, terminal or pipe; only kb's own colours remain.
 */
import {createRequire} from 'node:module'
import {safeText} from './safe-text.js'
import {layoutColumns} from './table-layout.js'
import {freshnessWord, trustRows} from './trust.js'
import {shortId} from '../../shared/short-id.js'
import type {ApiKeyRecord, Comment, EntryFull, EntryStandard, EntryView, Grant, Project} from '../../shared/types.js'

export interface OutputMode {
  /** stdout is a terminal: tables with headers. */
  tty: boolean
  /** ANSI colour: a TTY, without NO_COLOR or CI. */
  color: boolean
  /** Terminal width in columns (80 when unknown). */
  width: number
}

export function outputMode(stream: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env): OutputMode {
  const tty = Boolean(stream.isTTY)
  const color = tty && !('NO_COLOR' in env && env.NO_COLOR !== '') && !env.CI && env.TERM !== 'dumb'
  return {tty, color, width: stream.columns && stream.columns > 20 ? stream.columns : 80}
}

const ESC = '\u001B['
const wrap =
  (open: number, close: number) =>
  (mode: OutputMode, s: string): string =>
    mode.color ? `${ESC}${open}m${s}${ESC}${close}m` : s
export const bold = wrap(1, 22)
export const dim = wrap(2, 22)
export const red = wrap(31, 39)
export const green = wrap(32, 39)
export const yellow = wrap(33, 39)
const cyan = wrap(36, 39)

let stringWidth: ((s: string) => number) | undefined
const SGR = /\u001b\[[0-9;]*m/g
/** Printable ASCII and the one-column characters kb draws itself (box drawing, bullets, dashes, arrows, ellipsis). */
const DRAWN = /^[\x20-\x7e\u00b7\u2013\u2014\u2022\u2026\u2039\u203a\u2192\u2500-\u257f\u25aa\u25e6]*$/

/**
 * Columns a string takes on a terminal: wide CJK and emoji count two, combining marks and ANSI colours zero.
 * Printable ASCII (nearly every id, status and date) is its length; anything else is measured by
 * string-width, loaded on first need because loading it and compiling its emoji pattern costs tens of ms
 * (docs/performance.md).
 */
export function displayWidth(s: string): number {
  if (/^[\x20-\x7e]*$/.test(s)) return s.length
  // kb's own colours and what it draws (rules, bullets, gutters of rendered Markdown) need no string-width
  // either: a rendered `kb show` deciding whether to page would otherwise load it for every line.
  const text = s.includes('\u001b') ? s.replace(SGR, '') : s
  if (DRAWN.test(text)) return text.length
  stringWidth ??= (createRequire(import.meta.url)('string-width') as {default: (s: string) => number}).default
  return stringWidth(text)
}

/** `s` cut to at most `width` columns, whole characters only, ending in "…" when cut. */
export function fitWidth(s: string, width: number): string {
  if (displayWidth(s) <= width) return s
  if (/^[\x20-\x7e]*$/.test(s)) return `${s.slice(0, Math.max(0, width - 1))}…`
  let out = ''
  let used = 0
  for (const {segment} of new Intl.Segmenter().segment(s)) {
    const w = displayWidth(segment)
    if (used + w > width - 1) break
    out += segment
    used += w
  }
  return `${out}…`
}

/** `s` followed by spaces up to `width` columns. */
function padWidth(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - displayWidth(s)))
}

/**
 * Text from elsewhere (a title, a name, a note) made safe for the terminal on one line: escape sequences
 * removed, other controls shown as U+FFFD, line breaks and tabs as spaces (safe-text.ts, docs/security.md).
 */
export function oneLine(text: string): string {
  return safeText(text, {newlines: false, tabs: false})
}

/**
 * `--json` text: pretty JSON in which DEL, the C1 controls and the bidirectional controls, which
 * JSON.stringify leaves raw and some terminals obey, are written as `\\u` escapes: inert on a terminal, the
 * same text once parsed.
 */
export function jsonText(value: unknown): string {
  return (JSON.stringify(value, null, 2) ?? 'null').replace(
    /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/** One cell of a table, on a terminal or piped: tabs and newlines would break the row format, so they become spaces. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return ''
  const s = Array.isArray(value) ? value.join(',') : String(value)
  return oneLine(s.replace(/[\t\r\n]+/g, ' '))
}

export interface Column {
  header: string
  /** Grows or shrinks to fill the terminal, shrinking first; at most one column should flex. */
  flex?: boolean
  /** May be cut with "…" once the flex column is at its minimum (names, errors, remotes; never ids). */
  cut?: boolean
  /** Left out on a terminal too narrow for the table, lowest first (never piped). */
  drop?: number
  color?: (mode: OutputMode, s: string) => string
}

export interface TableOptions {
  /** Print the bold header row (default true). */
  header?: boolean
  /** Spaces before every row on a terminal. */
  indent?: number
}

/**
 * A table: on a TTY, a bold header and space-aligned columns fitted to the width by table-layout.ts (no row
 * wider than the terminal, docs/cli.md "Tables"); piped, tab-separated rows without a header, every cell whole.
 */
export function renderTable(columns: Column[], rows: unknown[][], mode: OutputMode, options: TableOptions = {}): string {
  const cells = rows.map((r) => columns.map((_, i) => cell(r[i])))
  if (!mode.tty) return cells.map((r) => r.join('\t')).join('\n') + (cells.length > 0 ? '\n' : '')
  const header = options.header ?? true
  const pad = ' '.repeat(options.indent ?? 0)
  const {widths, shown} = layoutColumns(
    columns.map((c, i) => {
      const h = header ? displayWidth(c.header) : 0
      return {natural: Math.max(h, ...cells.map((r) => displayWidth(r[i]!))), header: h, flex: c.flex, cut: c.cut, drop: c.drop}
    }),
    mode.width - pad.length,
  )
  const last = shown.lastIndexOf(true)
  const line = (values: string[], style: (i: number, s: string) => string): string =>
    pad +
    values
      .flatMap((v, i) => {
        if (!shown[i]) return []
        const w = widths[i]!
        const text = fitWidth(v, w)
        return [style(i, i === last ? text : padWidth(text, w))]
      })
      .join('  ')
      .trimEnd()
  const out = header
    ? [
        line(
          columns.map((c) => c.header),
          (_, s) => bold(mode, s),
        ),
      ]
    : []
  for (const r of cells) out.push(line(r, (i, s) => (columns[i]!.color ? columns[i]!.color!(mode, s) : s)))
  return out.join('\n') + '\n'
}

const statusColor = (mode: OutputMode, s: string): string => (s.trim() === 'resolved' ? green(mode, s) : yellow(mode, s))
/** The freshness badge: a word first (`stale`), colour only on top of it. */
const freshColor = (mode: OutputMode, s: string): string => (s.trim() === 'stale' ? red(mode, s) : s)

/** `2026-11-21 20:00` on a terminal (local readers), the exact RFC 3339 time in pipes. */
export function time(value: string | null | undefined, mode: OutputMode): string {
  if (!value) return ''
  if (!mode.tty) return value
  const d = new Date(value)
  if (Number.isNaN(d.getTime())) return value
  const p = (n: number): string => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`
}

/**
 * The freshness column goes after STATUS on a terminal; piped, it is the last column, so scripts that cut
 * the columns they knew keep working (docs/cli.md, "Freshness").
 */
function withFreshness(columns: Column[], rows: unknown[][], items: EntryView[], mode: OutputMode, after: number): string {
  const word = items.map(freshnessWord)
  if (!mode.tty)
    return renderTable(
      [...columns, {header: 'FRESH'}],
      rows.map((r, i) => [...r, word[i]]),
      mode,
    )
  const cols = [...columns.slice(0, after + 1), {header: 'FRESH', color: freshColor, drop: 3}, ...columns.slice(after + 1)]
  return renderTable(
    cols,
    rows.map((r, i) => [...r.slice(0, after + 1), word[i], ...r.slice(after + 1)]),
    mode,
  )
}

/** A superseded entry (listed with --include-superseded) says so before its title (docs/cli.md, "Supersede and merge"). */
const titleOf = (e: EntryView): string => (e.superseded_by ? `[superseded] ${e.title}` : e.title)

/** Narrower than this, `kb list` folds the freshness badge into the title and shows only the date: it fits 80 columns. */
const LIST_WIDE = 100

/**
 * An entry id in a table: its short form on a terminal (docs/cli.md, "Short ids"), which every command accepts back;
 * the whole id when piped, which a script may keep and which no later entry makes ambiguous.
 */
export function idCell(id: string, mode: OutputMode): string {
  return mode.tty ? shortId(id) : id
}

export function entryRows(items: EntryView[], mode: OutputMode): string {
  const std = (e: EntryView): Partial<EntryStandard> => e as Partial<EntryStandard>
  if (mode.tty && mode.width < LIST_WIDE)
    return renderTable(
      [
        {header: 'ID', color: dim},
        {header: 'STATUS', color: statusColor},
        {header: 'SCOPE'},
        {header: 'TITLE', flex: true},
        {header: 'UPDATED', drop: 1},
      ],
      items.map((e) => [
        idCell(e.id, mode),
        e.status,
        std(e).scope ?? '',
        `${freshnessWord(e) === 'stale' ? '[stale] ' : ''}${titleOf(e)}`,
        time(std(e).updated_at, mode).slice(0, 10),
      ]),
      mode,
    )
  return withFreshness(
    [
      {header: 'ID', color: dim},
      {header: 'STATUS', color: statusColor},
      {header: 'SCOPE'},
      {header: 'TITLE', flex: true},
      {header: 'UPDATED', drop: 1},
    ],
    items.map((e) => [idCell(e.id, mode), e.status, std(e).scope ?? '', titleOf(e), time(std(e).updated_at, mode)]),
    items,
    mode,
    1,
  )
}

export function searchRows(items: EntryView[], mode: OutputMode): string {
  return withFreshness(
    [
      {header: 'ID', color: dim},
      {header: 'SCORE', drop: 2},
      {header: 'STATUS', color: statusColor},
      {header: 'TITLE', flex: true},
    ],
    items.map((e) => [idCell(e.id, mode), e.score === undefined ? '' : e.score.toFixed(2), e.status, titleOf(e)]),
    items,
    mode,
    2,
  )
}

export function projectRows(items: Project[], mode: OutputMode, current?: string | null): string {
  return renderTable(
    [{header: 'ID', color: dim}, {header: 'NAME', cut: true}, {header: 'REMOTE', flex: true}, {header: 'ROLE'}, {header: ''}],
    items.map((p) => [p.id, p.name, p.remote, p.role, p.id === current ? '*' : '']),
    mode,
  )
}

export function apiKeyRows(items: ApiKeyRecord[], mode: OutputMode): string {
  return renderTable(
    [
      {header: 'ID', color: dim},
      {header: 'NAME', flex: true},
      {header: 'PREFIX'},
      {header: 'CREATED', drop: 1},
      {header: 'EXPIRES'},
      {header: 'LAST USED', drop: 2},
    ],
    items.map((k) => [
      k.id,
      k.name,
      k.prefix,
      time(k.created_at, mode),
      time(k.expires_at, mode) || 'never',
      time(k.last_used_at, mode) || 'never',
    ]),
    mode,
  )
}

/** OAuth grants; the application's name is whatever it registered (cells pass through safeText). */
export function grantRows(items: Grant[], mode: OutputMode): string {
  return renderTable(
    [
      {header: 'ID', color: dim},
      {header: 'APPLICATION', flex: true},
      {header: 'CREATED', drop: 1},
      {header: 'LAST USED', drop: 2},
      {header: 'ENDS'},
    ],
    items.map((g) => [
      g.id,
      g.client_name ?? `(unnamed) ${g.client_id}`,
      time(g.created_at, mode),
      time(g.last_used_at, mode) || 'never',
      time(g.expires_at, mode),
    ]),
    mode,
  )
}

/**
 * Markdown (a body, a comment, a thought, a resolution note) rendered for a terminal `width` columns wide,
 * as lines with kb's own SGR styles (src/cli/render/, loaded by `kb show` only when it renders).
 */
export type MarkdownRenderer = (markdown: string, width: number) => string

/**
 * One entry as a document. On a TTY: a bold title, coloured metadata, the body, then comments, the
 * thought chain and branches; with `markdown`, the body, comments, thoughts and resolution note rendered
 * by it, else printed as stored. Piped: `field:\tvalue` lines, `--`, then the body (as `gh issue view`
 * does), so `grep`/`cut` work without JSON.
 */
export function renderEntry(
  e: EntryView,
  mode: OutputMode,
  markdown?: MarkdownRenderer,
  replacement?: {title: string},
  context: {project?: string} = {},
): string {
  const md = mode.tty ? markdown : undefined
  const s = e as Partial<EntryFull>
  const meta = metaRows(e, mode, Boolean(md), replacement, context)
  const out: string[] = []
  if (mode.tty) {
    out.push(bold(mode, oneLine(e.title)))
    const w = Math.max(...meta.map(([k]) => k.length))
    const color = (k: string, v: string): string =>
      k === 'status' ? statusColor(mode, v) : k === 'freshness' ? freshColor(mode, v) : k === 'stale' ? red(mode, v) : v
    for (const [k, v] of meta) out.push(`${dim(mode, k.padEnd(w))}  ${color(k, oneLine(v))}`)
    out.push('', md ? md(e.body.trimEnd(), mode.width) : safeText(e.body.trimEnd()))
    if (md && s.resolution?.note) out.push('', bold(mode, 'Resolution note'), md(s.resolution.note.trimEnd(), mode.width))
  } else {
    out.push(`title:\t${cell(e.title)}`)
    for (const [k, v] of meta) out.push(`${k}:\t${cell(v)}`)
    out.push('--', safeText(e.body.trimEnd()))
  }
  if (s.thought_chain && s.thought_chain.length > 0) {
    out.push('', mode.tty ? bold(mode, 'Thought chain') : '-- thought chain')
    for (const t of s.thought_chain) {
      const head = `${t.step}. [${oneLine(t.kind)}]`
      const thought = md ? md(t.thought.trimEnd(), mode.width - 3) : ''
      // Rendered, a one-line thought stays on its step's line; a longer one goes under it.
      if (!md) out.push(`${head} ${safeText(t.thought)}`)
      else if (!thought.includes('\n') && displayWidth(head) + 1 + displayWidth(thought) <= mode.width) out.push(`${head} ${thought}`)
      else out.push(`${head}\n${indent(thought, 3)}`)
    }
  }
  if (s.comments && s.comments.length > 0) {
    // The newest comments only (docs/api.md, docs/cli.md "kb show"); say so when there are more, and how to see them.
    const more = s.comments_truncated ? ` (newest ${s.comments.length} of ${s.comment_count})` : ''
    out.push(
      '',
      mode.tty
        ? `${bold(mode, `Comments (${more ? more.slice(2, -1) : s.comments.length})`)}${more ? dim(mode, ' — `--comments all` shows every one') : ''}`
        : `-- comments${more}`,
    )
    for (const c of s.comments) out.push(renderComment(c, mode, md))
  }
  if (s.branches && s.branches.length > 0) {
    out.push('', mode.tty ? bold(mode, 'Branches') : '-- branches')
    for (const b of s.branches) {
      out.push(
        mode.tty
          ? `${dim(mode, shortId(b.id))}  ${oneLine(b.title)} (${oneLine(b.scope)}, ${oneLine(b.author.name)})`
          : [b.id, b.title, b.scope, b.author.name].map(cell).join('\t'),
      )
    }
  }
  return out.join('\n') + '\n'
}

/** The metadata rows of `renderEntry`, in order; `rendered`: the resolution note is rendered below, not a row. */
function metaRows(
  e: EntryView,
  mode: OutputMode,
  rendered: boolean,
  replacement: {title: string} | undefined,
  context: {project?: string},
): [string, string][] {
  const s = e as Partial<EntryFull>
  const meta: [string, string][] = [
    ['id', mode.tty ? `${shortId(e.id)}  (${e.id})` : e.id],
    ['status', e.status],
  ]
  // docs/cli.md, "Supersede and merge": the entry that replaced this one, with its title when the caller could read it.
  if (s.superseded_by) {
    const by = idCell(s.superseded_by, mode)
    meta.push(['superseded by', replacement ? `${by} ${replacement.title}` : by])
  }
  if (s.scope) meta.push(['scope', s.scope])
  if (s.tags && s.tags.length > 0) meta.push(['tags', s.tags.join(', ')])
  if (s.url) meta.push(['url', s.url])
  if (s.author) meta.push(['author', s.author.name])
  // The project by name when the caller may read it (`kb show`); piped, the id stays where scripts read it.
  if (s.project_id && mode.tty) meta.push(['project', context.project ?? s.project_id])
  else if (s.project_id)
    meta.push(['project', s.project_id], ...(context.project ? [['project name', context.project] as [string, string]] : []))
  if (s.forked_from) meta.push(['forked from', idCell(s.forked_from, mode)])
  if (s.created_at) meta.push(['created', time(s.created_at, mode)])
  if (s.updated_at) meta.push(['updated', time(s.updated_at, mode)])
  if (s.version !== undefined) meta.push(['version', String(s.version)])
  if (s.comment_count !== undefined && !s.comments) meta.push(['comments', String(s.comment_count)])
  meta.push(...trustRows(e))
  if (s.usage) {
    const last = s.usage.last_retrieved_at ? `, last ${time(s.usage.last_retrieved_at, mode)}` : ''
    meta.push(['retrieved', `${s.usage.retrieved} time${s.usage.retrieved === 1 ? '' : 's'}${last}`])
  }
  if (s.resolution) {
    meta.push(['resolved', `${time(s.resolution.resolved_at, mode)} by ${s.resolution.resolved_by.name}`])
    if (s.resolution.note && !rendered) meta.push(['resolution', s.resolution.note])
    if (s.resolution.url) meta.push(['resolution url', s.resolution.url])
  }
  return meta
}

/** Every line of `text` after `n` spaces. */
const indent = (text: string, n: number): string =>
  text
    .split('\n')
    .map((l) => (l === '' ? l : ' '.repeat(n) + l))
    .join('\n')

function renderComment(c: Comment, mode: OutputMode, md?: MarkdownRenderer): string {
  const head = `${oneLine(c.author.name)} · ${oneLine(c.type)} · ${oneLine(time(c.created_at, mode))}`
  const body = md ? md(c.body.trimEnd(), mode.width) : safeText(c.body.trimEnd())
  return mode.tty ? `${cyan(mode, head)}\n${body}\n` : `${head}\n${body}\n`
}
