/**
 * @module How `kb history` and `kb review` print (docs/cli.md, "Curation"): an entry's history as a table that fits
 * 80 columns, and one review item as a curator reads it (why it is there, then the entry's head). Every piece of
 * text from others passes through `safeText` (tables through `cell`).
 */
import type {HistoryItem, ReviewCounts, ReviewPage} from '../../shared/curation-schemas.js'
import {bold, dim, fitWidth, idCell, oneLine, renderTable, time, yellow, type OutputMode} from './format.js'
import {safeText} from './safe-text.js'
import {shortId} from '../../shared/short-id.js'

/** One history record's changes as a line: `body +3/−1 lines, tags +db` (the note after them). */
function changesText(h: HistoryItem): string {
  const parts = Object.entries(h.changes).map(([k, v]) => `${k} ${v}`)
  if (h.note) parts.push(`“${h.note}”`)
  return parts.join(', ')
}

export function historyRows(items: HistoryItem[], mode: OutputMode): string {
  return renderTable(
    [
      {header: 'WHEN'},
      {header: 'ACTION'},
      {header: 'BY', cut: true},
      {header: 'VIA', color: dim, cut: true, drop: 1},
      {header: 'CHANGES', flex: true},
    ],
    items.map((h) => [
      time(h.at, mode),
      h.action,
      h.actor.name,
      h.actor.client ? `${h.actor.via}:${h.actor.client}` : h.actor.via,
      changesText(h),
    ]),
    mode,
  )
}

/**
 * `stale 3 · flagged 1 · …`, the queue's counts on one line; on a terminal, broken before a `·` where the line
 * would be wider than the terminal (docs/cli.md, "Tables").
 */
export function countsLine(c: ReviewCounts, mode?: OutputMode): string {
  const parts = Object.entries(c).map(([k, n]) => `${k.replace('_', ' ')} ${n}`)
  if (!mode?.tty) return parts.join(' · ')
  const out = [parts[0] ?? '']
  for (const p of parts.slice(1)) {
    const next = `${out.at(-1)!} · ${p}`
    if (next.length <= mode.width) out[out.length - 1] = next
    else out.push(p)
  }
  return out.join('\n')
}

/** The queue as a table (piped or not interactive): most used first. */
export function reviewRows(page: ReviewPage, mode: OutputMode): string {
  return renderTable(
    [
      {header: 'ID', color: dim},
      {header: 'USED', drop: 1},
      {header: 'WHY', cut: true},
      {header: 'TITLE', flex: true},
    ],
    page.items.map((i) => [
      idCell(i.entry.id, mode),
      i.entry.usage.retrieved,
      [...new Set(i.reasons.map((r) => r.kind))].join(','),
      i.entry.title,
    ]),
    mode,
  )
}

/** One item as the interactive walk shows it: position, title, id and use, then each reason. */
export function reviewItem(item: ReviewPage['items'][number], n: number, of: number, mode: OutputMode): string {
  const e = item.entry
  const used = e.usage.retrieved === 0 ? 'never retrieved' : `retrieved ${e.usage.retrieved}×`
  const out = [
    `${dim(mode, `(${n}/${of})`)} ${bold(mode, oneLine(e.title))}`,
    dim(mode, `${shortId(e.id)} · ${e.scope} · ${oneLine(e.author.name)} · ${used}`),
    // A pair's reason names the other entry's title: cut to the terminal's width, as every line of the walk.
    ...item.reasons.map(
      (r) =>
        `  ${yellow(mode, r.kind.replace('_', ' '))}: ${mode.tty ? fitWidth(oneLine(r.detail), mode.width - r.kind.length - 4) : oneLine(r.detail)}`,
    ),
  ]
  const body = safeText(e.body.trimEnd()).split('\n').slice(0, 6)
  // A preview (kb show has the rest): on a terminal each line cut to its width, so the terminal never wraps it.
  out.push('', ...body.map((l) => `  ${mode.tty ? fitWidth(l, mode.width - 2) : l}`), '')
  return out.join('\n')
}
