/**
 * @module Plain-text layout for the TUI: cutting and padding to a column width, wrapping paragraphs, ages
 * ("3h"), and the lines of an entry. Done by hand rather than by Ink's wrapping so that every pane knows
 * exactly how many terminal lines it fills (the screen must never scroll) and scrolling moves by lines.
 */
import type {EntryFull, EntryStandard, EntryView} from '../../shared/types.js'
import {renderEntry} from '../output/format.js'

/** `s` cut with "…" or padded with spaces to exactly `w` columns. */
export function fit(s: string, w: number): string {
  if (w <= 0) return ''
  const flat = s.replace(/[\t\r\n]+/g, ' ')
  return flat.length > w ? `${flat.slice(0, Math.max(0, w - 1))}…` : flat.padEnd(w)
}

/** Wraps text to `width` columns at spaces (hard-breaking longer words); keeps blank lines. */
export function wrap(text: string, width: number): string[] {
  const w = Math.max(1, width)
  const out: string[] = []
  for (const raw of text.replace(/\t/g, '  ').split(/\r?\n/)) {
    if (raw.trim() === '') {
      out.push('')
      continue
    }
    // A line that fits keeps its spacing (aligned metadata columns).
    if (raw.length <= w) {
      out.push(raw.trimEnd())
      continue
    }
    let line = ''
    for (const word of raw.split(/ +/)) {
      let rest = word
      while (rest.length > w) {
        if (line !== '') {
          out.push(line)
          line = ''
        }
        out.push(rest.slice(0, w))
        rest = rest.slice(w)
      }
      if (line === '') line = rest
      else if (line.length + 1 + rest.length <= w) line += ` ${rest}`
      else {
        out.push(line)
        line = rest
      }
    }
    out.push(line)
  }
  return out
}

/** How long ago: "now", "5m", "3h", "2d", "4mo", "1y". */
export function age(iso: string | undefined, now = Date.now()): string {
  if (!iso) return ''
  const t = Date.parse(iso)
  if (Number.isNaN(t)) return ''
  const s = Math.max(0, (now - t) / 1000)
  if (s < 60) return 'now'
  if (s < 3600) return `${Math.floor(s / 60)}m`
  if (s < 86_400) return `${Math.floor(s / 3600)}h`
  if (s < 30 * 86_400) return `${Math.floor(s / 86_400)}d`
  if (s < 365 * 86_400) return `${Math.floor(s / (30 * 86_400))}mo`
  return `${Math.floor(s / (365 * 86_400))}y`
}

export interface RowParts {
  title: string
  tags: string
  status: string
  scope: string
  age: string
}

/** The columns of one result row for a list `width` wide (2 columns go to the selection marker). */
export function rowParts(e: EntryView, width: number, now = Date.now()): RowParts {
  const s = e as Partial<EntryStandard>
  const fixed = 2 + 9 + 8 + 4
  const tagsW = width - fixed >= 48 ? 18 : 0
  // One column between title and tags; a row must never reach the last column (terminals wrap there).
  const titleW = Math.max(8, width - fixed - tagsW - 2)
  return {
    title: fit(e.title, titleW),
    tags: tagsW > 0 ? fit((s.tags ?? []).map((t) => `#${t}`).join(' '), tagsW - 1) + ' ' : '',
    status: fit(e.status, 8) + ' ',
    scope: fit(s.scope ?? '', 7) + ' ',
    age: fit(age(s.updated_at, now), 4),
  }
}

/** The selected entry at `standard`, as the detail pane shows it: title, one metadata line, url, body. */
export function standardLines(e: EntryView, width: number, now = Date.now()): string[] {
  const s = e as Partial<EntryStandard>
  const meta = [e.status, s.scope, s.author ? `by ${s.author.name}` : undefined, s.updated_at ? `updated ${age(s.updated_at, now)} ago` : undefined, s.comment_count !== undefined ? `${s.comment_count} comment${s.comment_count === 1 ? '' : 's'}` : undefined]
    .filter((x): x is string => Boolean(x))
    .join(' · ')
  const lines = [...wrap(e.title, width), ...wrap(meta, width)]
  if (s.tags && s.tags.length > 0) lines.push(...wrap(s.tags.map((t) => `#${t}`).join(' '), width))
  if (s.url) lines.push(...wrap(s.url, width))
  lines.push(...wrap(`id ${e.id}`, width), '', ...wrap(e.body.trimEnd(), width))
  return lines
}

/** The entry at `full` (body, comments with their types, thought chain, branches, resolution), wrapped. */
export function fullLines(e: EntryFull, width: number): string[] {
  const text = renderEntry(e, {tty: true, color: false, width})
  return wrap(text.trimEnd(), width)
}
