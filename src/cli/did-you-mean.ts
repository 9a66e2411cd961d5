/**
 * @module "Did you mean": the known word closest to a mistyped command or flag (`kb serch` → `search`, `--limti` →
 * `--limit`), by edit distance with a swap of two neighbours counting as one edit (docs/cli.md, "Exit codes").
 */

/** Words longer than this are not compared: a typo of a command or flag is short, and the work stays small. */
const LONGEST = 64

/** Edits between `a` and `b`: insertions, deletions, substitutions and swaps of neighbours (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({length: b.length + 1}, (_, j) => j)]
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1)
      row.push(d)
    }
    rows.push(row)
  }
  return rows[a.length]![b.length]!
}

/** The candidate closest to `word`, when it is close enough to be a typo of it (a third of its length, at least 1). */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  if (word.length === 0 || word.length > LONGEST) return undefined
  const allowed = Math.max(1, Math.floor(word.length / 3))
  let best: string | undefined
  let bestDistance = allowed + 1
  for (const c of candidates) {
    if (c.length > LONGEST || Math.abs(c.length - word.length) > allowed) continue
    const d = editDistance(word, c)
    if (d < bestDistance) {
      best = c
      bestDistance = d
    }
  }
  return best
}
