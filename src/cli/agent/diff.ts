/**
 * @module The unified diff `kb agent install --dry-run` prints: the common head and tail are cut first
 * (linear), and the changed middle — a few lines for one MCP entry — is matched line by line with a
 * longest-common-subsequence table only while it stays small; past that it is shown as removed then added.
 */

const CONTEXT = 3
/** Cells of the LCS table at most: a middle bigger than this is shown whole as removed + added. */
const MAX_CELLS = 250_000

type Op = {kind: ' ' | '-' | '+'; line: string}

function lines(text: string | null): string[] {
  if (text === null || text === '') return []
  const l = text.split('\n')
  if (l[l.length - 1] === '') l.pop()
  return l
}

/** The edit script of the middle parts. */
function middle(a: string[], b: string[]): Op[] {
  if (a.length * b.length > MAX_CELLS)
    return [...a.map((line) => ({kind: '-' as const, line})), ...b.map((line) => ({kind: '+' as const, line}))]
  const w = b.length + 1
  const t = new Uint32Array((a.length + 1) * w)
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      t[i * w + j] = a[i] === b[j] ? t[(i + 1) * w + j + 1]! + 1 : Math.max(t[(i + 1) * w + j]!, t[i * w + j + 1]!)
  const ops: Op[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({kind: ' ', line: a[i]!})
      i++
      j++
    } else if (i < a.length && (j === b.length || t[(i + 1) * w + j]! >= t[i * w + j + 1]!)) ops.push({kind: '-', line: a[i++]!})
    else ops.push({kind: '+', line: b[j++]!})
  }
  return ops
}

/** `--- a/file` / `+++ b/file` and hunks with three lines of context; '' when the texts are equal. */
export function unifiedDiff(label: string, before: string | null, after: string | null): string {
  if (before === after) return ''
  const a = lines(before)
  const b = lines(after)
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  const ops: Op[] = [
    ...a.slice(0, head).map((line) => ({kind: ' ' as const, line})),
    ...middle(a.slice(head, a.length - tail), b.slice(head, b.length - tail)),
    ...a.slice(a.length - tail).map((line) => ({kind: ' ' as const, line})),
  ]
  // git's a/ and b/ for a path in the project; a path outside it (~/.codex/config.toml) as it is.
  const [a0, b0] = label.startsWith('/') || label.startsWith('~') ? ['', ''] : ['a/', 'b/']
  const out = [`--- ${before === null ? '/dev/null' : a0 + label}`, `+++ ${after === null ? '/dev/null' : b0 + label}`]
  // Hunks: changes less than 2 × CONTEXT unchanged lines apart share one, with CONTEXT lines around it.
  const changed = ops.flatMap((o, i) => (o.kind === ' ' ? [] : [i]))
  const groups: [number, number][] = []
  for (const i of changed) {
    const last = groups[groups.length - 1]
    if (last && i - last[1] - 1 <= 2 * CONTEXT) last[1] = i
    else groups.push([i, i])
  }
  for (const [first, last] of groups) {
    const from = Math.max(0, first - CONTEXT)
    const to = Math.min(ops.length, last + 1 + CONTEXT)
    const before_ = ops.slice(0, from)
    const o0 = before_.filter((o) => o.kind !== '+').length + 1
    const n0 = before_.filter((o) => o.kind !== '-').length + 1
    const hunk = ops.slice(from, to)
    const oc = hunk.filter((o) => o.kind !== '+').length
    const nc = hunk.filter((o) => o.kind !== '-').length
    out.push(`@@ -${oc === 0 ? o0 - 1 : o0},${oc} +${nc === 0 ? n0 - 1 : n0},${nc} @@`, ...hunk.map((o) => o.kind + o.line))
  }
  const noEol = (text: string | null): boolean => text !== null && text !== '' && !text.endsWith('\n')
  if (noEol(before) || noEol(after)) out.push('\\ No newline at end of file')
  return `${out.join('\n')}\n`
}
