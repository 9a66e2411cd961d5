/**
 * The table layout (docs/cli.md, "Tables"): whatever the cells, the shown columns and their gaps fit the width; the
 * flex column gives way first, cuttable ones next, optional ones are left out before anything else is cut.
 */
import {describe, expect, it} from 'vitest'
import {GAP, layoutColumns, type LayoutColumn} from '../../../src/cli/output/table-layout.js'

const used = (widths: number[], shown: boolean[]): number => {
  const w = widths.filter((_, i) => shown[i])
  return w.reduce((a, b) => a + b, 0) + GAP * Math.max(0, w.length - 1)
}

describe('layoutColumns', () => {
  it('keeps natural widths when they fit', () => {
    const cols: LayoutColumn[] = [
      {natural: 10, header: 2},
      {natural: 30, header: 5, flex: true},
    ]
    expect(layoutColumns(cols, 80)).toEqual({widths: [10, 30], shown: [true, true]})
  })

  it('shrinks the flex column first, then cuttable ones, then drops optional ones', () => {
    const id = {natural: 36, header: 2}
    const cols: LayoutColumn[] = [
      id,
      {natural: 90, header: 5, flex: true},
      {natural: 40, header: 10, cut: true},
      {natural: 16, header: 7, drop: 1},
    ]
    const a = layoutColumns(cols, 120)
    expect(a.widths[0]).toBe(36)
    expect(a.widths[2]).toBe(40)
    expect(used(a.widths, a.shown)).toBe(120)
    const b = layoutColumns(cols, 100)
    expect(b.widths[1]).toBe(12)
    expect(b.widths[2]).toBe(100 - 36 - 12 - 16 - 3 * GAP)
    const c = layoutColumns(cols, 75)
    expect(c.shown).toEqual([true, true, true, false])
    expect(used(c.widths, c.shown)).toBeLessThanOrEqual(75)
  })

  it('fits any random table at any width where one column each can fit', () => {
    let seed = 7
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n)
    for (let t = 0; t < 2000; t++) {
      const n = 1 + rnd(7)
      const cols: LayoutColumn[] = Array.from({length: n}, (_, i) => ({
        natural: 1 + rnd(120),
        header: 1 + rnd(10),
        ...(i === 1 ? {flex: true} : {}),
        ...(rnd(3) === 0 ? {cut: true} : {}),
        ...(rnd(3) === 0 ? {drop: rnd(4)} : {}),
      }))
      for (const c of cols) c.natural = Math.max(c.natural, c.header)
      const width = n + GAP * (n - 1) + rnd(100)
      const {widths, shown} = layoutColumns(cols, width)
      expect(used(widths, shown)).toBeLessThanOrEqual(width)
      widths.forEach((w, i) => expect(shown[i] ? w >= 1 && w <= cols[i]!.natural : w === 0).toBe(true))
    }
  })

  it('a 100,000-column cell is cut to the width like a short one', () => {
    const {widths} = layoutColumns(
      [
        {natural: 36, header: 2},
        {natural: 100_000, header: 5, flex: true},
        {natural: 100_000, header: 5, cut: true},
      ],
      80,
    )
    expect(widths[0]! + widths[1]! + widths[2]! + 2 * GAP).toBeLessThanOrEqual(80)
  })
})
