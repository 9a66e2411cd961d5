/**
 * @module Table layout: the width of every column of a human table so that no row is wider than the terminal
 * (docs/cli.md, "Tables"). The flex column (a title) shrinks first, then the columns that may be cut (names,
 * errors, remotes), then optional columns are left out, and only then anything else — never a wrapped row.
 */

/** Columns between two cells. */
export const GAP = 2
/** A flex column keeps at least this many columns while others can give way. */
const FLEX_MIN = 12
/** A cuttable column keeps at least this many (or its header's width, if wider) while optional ones can go. */
const CUT_MIN = 8

export interface LayoutColumn {
  /** The widest cell, header included. */
  natural: number
  /** The header's width: a cut column keeps it while anything else can give way. */
  header: number
  /** Shrinks first (at most one per table). */
  flex?: boolean
  /** May be cut with "…" once the flex column is at its minimum. */
  cut?: boolean
  /** The width this column keeps before optional columns are left out (default: 12 for flex, 8 for cut). */
  min?: number
  /** Left out when the table does not fit otherwise, lowest first. */
  drop?: number
}

export interface Layout {
  /** The width of each column; 0 for a column left out. */
  widths: number[]
  /** Whether each column is shown. */
  shown: boolean[]
}

/** Shrinks the columns of `order` by one column at a time, widest first, none below its floor, until `over` is 0. */
function shrink(widths: number[], order: number[], floor: (i: number) => number, over: number): number {
  let left = over
  while (left > 0) {
    let widest = -1
    for (const i of order) if (widths[i]! > floor(i) && (widest === -1 || widths[i]! > widths[widest]!)) widest = i
    if (widest === -1) break
    // Down to the next-widest column's width (or the floor) in one step: a 100,000-column cell costs no more.
    // A tie shrinks one column at a time, so columns of equal width give way evenly.
    let next = floor(widest)
    for (const i of order) if (i !== widest && widths[i]! <= widths[widest]! && widths[i]! > next) next = widths[i]!
    const step = Math.min(left, Math.max(1, widths[widest]! - next))
    widths[widest] = widths[widest]! - step
    left -= step
  }
  return left
}

/**
 * Column widths for a terminal `width` columns wide: natural widths when they fit; else the flex column down
 * to its minimum, the cuttable ones down to theirs, optional columns left out, then every column down to
 * one character. The sum of the shown widths and gaps is at most `width` whenever the shown columns can fit.
 */
export function layoutColumns(columns: LayoutColumn[], width: number): Layout {
  const widths = columns.map((c) => c.natural)
  const shown = columns.map(() => true)
  const total = (): number => {
    let sum = 0
    let n = 0
    widths.forEach((w, i) => {
      if (shown[i]) {
        sum += w
        n++
      }
    })
    return sum + GAP * Math.max(0, n - 1)
  }
  const all = columns.map((_, i) => i)
  const live = (pred: (c: LayoutColumn) => boolean): number[] => all.filter((i) => shown[i] && pred(columns[i]!))
  const floorOf =
    (fallback: number, header: boolean) =>
    (i: number): number => {
      const c = columns[i]!
      return Math.min(c.natural, Math.max(header ? c.header : 0, c.min ?? fallback))
    }
  let over = total() - width
  if (over <= 0) return {widths, shown}
  over = shrink(
    widths,
    live((c) => Boolean(c.flex)),
    floorOf(FLEX_MIN, false),
    over,
  )
  over = shrink(
    widths,
    live((c) => Boolean(c.cut) && !c.flex),
    floorOf(CUT_MIN, true),
    over,
  )
  const droppable = live((c) => c.drop !== undefined).sort((a, b) => columns[a]!.drop! - columns[b]!.drop!)
  for (const i of droppable) {
    if (over <= 0) break
    shown[i] = false
    over = total() - width
  }
  if (over <= 0) return {widths: widths.map((w, i) => (shown[i] ? w : 0)), shown}
  // Last resort: the flex column, then the cuttable ones, then the rest, each down to one character.
  over = shrink(
    widths,
    live((c) => Boolean(c.flex)),
    () => 1,
    over,
  )
  over = shrink(
    widths,
    live((c) => Boolean(c.cut)),
    () => 1,
    over,
  )
  shrink(
    widths,
    live(() => true),
    () => 1,
    over,
  )
  return {widths: widths.map((w, i) => (shown[i] ? w : 0)), shown}
}
