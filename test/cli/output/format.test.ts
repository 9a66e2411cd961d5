/**
 * @module Tables fitted by display width: wide CJK and emoji take two columns, combining marks none, so rows
 * of such titles stay aligned and within the terminal, and a cut never splits a character.
 */
import {describe, expect, it} from 'vitest'
import {displayWidth, fitWidth, renderTable, type OutputMode} from '../../../src/cli/output/format.js'

const tty = (width: number): OutputMode => ({tty: true, color: false, width})

const TITLES = [
  'Plain ASCII title',
  '数据库被锁定：两个进程同时打开了存储', // CJK: two columns each
  'Deploy 🚀 failed 👍🏽 again 👨‍👩‍👧', // emoji, a skin tone, a ZWJ family
  'Café crème brûlée', // combining acute, grave and circumflex (e + U+0301 …)
  'ｆｕｌｌｗｉｄｔｈ and ﾊﾝｶｸ', // fullwidth Latin and halfwidth katakana
]

describe('displayWidth', () => {
  it.each([
    ['abc', 3],
    ['漢字', 4],
    ['👍🏽', 2],
    ['👨‍👩‍👧', 2],
    ['e\u0301', 1],
    ['\u001B[1mbold\u001B[22m', 4],
    ['ﾊﾝｶｸ', 4],
    // Rendered Markdown (kb show measures it to decide whether to page): kb's colours and drawing characters.
    ['\u001B[90m│ \u001B[0m\u001B[95mconst\u001B[0m x', 9],
    ['\u001B[36m• \u001B[0m─┼─ … → 漢', 12],
  ])('%j is %d columns', (s, w) => {
    expect(displayWidth(s)).toBe(w)
  })
})

describe('fitWidth', () => {
  it('cuts to the width with "…", never inside a wide character, an emoji sequence or a combining mark', () => {
    expect(fitWidth('漢字漢字', 5)).toBe('漢字…')
    expect(fitWidth('漢字漢字', 4)).toBe('漢…')
    expect(fitWidth('a👨‍👩‍👧b', 3)).toBe('a…')
    expect(fitWidth('ae\u0301e\u0301x', 3)).toBe('ae\u0301…')
    expect(fitWidth('short', 10)).toBe('short')
    for (const t of TITLES) for (let w = 1; w <= 30; w++) expect(displayWidth(fitWidth(t, w)), `${t} in ${w}`).toBeLessThanOrEqual(w)
  })
})

describe('renderTable on a terminal', () => {
  it.each([40, 60, 100])('keeps columns aligned and every line within %d columns', (width) => {
    const out = renderTable(
      [{header: 'ID'}, {header: 'TITLE', flex: true}, {header: 'STATUS'}],
      TITLES.map((t, i) => [`id-${i}`, t, i % 2 ? 'resolved' : 'open']),
      tty(width),
    )
    const lines = out.trimEnd().split('\n')
    expect(lines).toHaveLength(TITLES.length + 1)
    // STATUS starts at the same display column on every line.
    const statusAt = (l: string): number => displayWidth(l.slice(0, l.search(/(open|resolved|STATUS)$/)))
    const first = statusAt(lines[0]!)
    for (const l of lines) {
      expect(displayWidth(l), l).toBeLessThanOrEqual(width)
      expect(statusAt(l), l).toBe(first)
    }
  })

  it('pads by display width when nothing is cut', () => {
    const out = renderTable(
      [{header: 'TITLE'}, {header: 'N'}],
      [['漢字'], ['ab']].map(([t], i) => [t, String(i)]),
      tty(80),
    )
    expect(out).toBe('TITLE  N\n漢字   0\nab     1\n')
  })
})
