/**
 * @module Markdown tables fitted to the width: columns as wide as their widest cell while they fit, else
 * every column capped at one width (found by bisection) with its cells wrapped inside it; a table too wide
 * for even narrow columns is shown as one `header: value` block per row. No line is ever wider than the
 * width, so nothing wraps behind the renderer's back.
 */
import type {Line, Span, Theme} from './style.js'
import {lineWidth, padLine, wrapSpans} from './wrap.js'

export type Align = 'left' | 'center' | 'right'

export interface TableCells {
  head: Span[][]
  rows: Span[][][]
  align: Align[]
}

const SEP = ' │ '
/** Below this width per column a grid is unreadable: rows become blocks. */
const MIN_COLUMN = 4

/** The widest `cap` at which the columns, each at most its natural width or `cap`, fit in `room`. */
function capFor(natural: number[], room: number): number {
  let lo = 1
  let hi = natural.reduce((m, w) => Math.max(m, w), 1)
  const total = (c: number): number => natural.reduce((sum, w) => sum + Math.min(w, c), 0)
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (total(mid) <= room) lo = mid
    else hi = mid - 1
  }
  return lo
}

function aligned(line: Line, w: number, align: Align): Line {
  const gap = w - lineWidth(line)
  if (gap <= 0 || align === 'left') return padLine(line, w)
  const left = align === 'right' ? gap : Math.floor(gap / 2)
  return padLine([{text: ' '.repeat(left)}, ...line], w)
}

function gridRow(cells: Span[][], widths: number[], align: Align[], theme: Theme): Line[] {
  const wrapped = widths.map((w, i) => wrapSpans(cells[i] ?? [], w))
  const height = wrapped.reduce((m, c) => Math.max(m, c.length), 1)
  const out: Line[] = []
  for (let k = 0; k < height; k++) {
    const line: Line = []
    widths.forEach((w, i) => {
      if (i > 0) line.push({...theme.tableBorder, text: SEP})
      line.push(...aligned(wrapped[i]![k] ?? [], w, align[i] ?? 'left'))
    })
    // Trailing spaces of the last column are noise in a copied table.
    const last = line[line.length - 1]
    if (last && last.text.trim() === '') line.pop()
    else if (last) last.text = last.text.trimEnd()
    out.push(line)
  }
  return out
}

/** Each row as a block of `header: value` lines, for tables that cannot fit as a grid. */
function blocks(t: TableCells, columns: number, theme: Theme): Line[] {
  const out: Line[] = []
  t.rows.forEach((row, r) => {
    if (r > 0) out.push([{...theme.tableBorder, text: '─'.repeat(Math.min(columns, 20))}])
    t.head.forEach((h, i) => {
      const label: Span[] = [...h.map((s) => ({...s, ...theme.tableHead})), {text: ': '}]
      out.push(...wrapSpans([...label, ...(row[i] ?? [])], columns))
    })
  })
  return out
}

/** A table as lines of at most `columns`. */
export function renderTable(t: TableCells, columns: number, theme: Theme): Line[] {
  const n = t.head.length
  if (n === 0) return []
  const room = columns - SEP.length * (n - 1)
  if (room < n * MIN_COLUMN) return blocks(t, columns, theme)
  const natural = Array.from({length: n}, (_, i) => [t.head, ...t.rows].reduce((m, row) => Math.max(m, lineWidth(row[i] ?? [])), 1))
  const cap = capFor(natural, room)
  const widths = natural.map((w) => Math.min(w, cap))
  const head = t.head.map((cell) => cell.map((s) => ({...s, ...theme.tableHead})))
  const rule: Line = [{...theme.tableBorder, text: widths.map((w) => '─'.repeat(w)).join('─┼─')}]
  return [...gridRow(head, widths, t.align, theme), rule, ...t.rows.flatMap((row) => gridRow(row, widths, t.align, theme))]
}
