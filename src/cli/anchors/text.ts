/**
 * @module The anchored text of a file and its SHA-256 (docs/cli.md, "Anchors"): line endings normalised
 * (CRLF and CR → LF); lines `a-b` joined by `\n`; a symbol's definition block (the line that defines it to
 * the end of its block, by braces or else by indentation), else the whole file. Every scan here is one
 * pass over the lines: no pattern can backtrack over a file.
 */
import {createHash} from 'node:crypto'

/** A file's text with CRLF and lone CR turned into LF, so a checkout on Windows hashes the same. */
function normalise(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

/** The file's lines (a final newline does not start another line). */
export function splitLines(text: string): string[] {
  const lines = normalise(text).split('\n')
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop()
  return lines
}

/** `"40-62"` → [40, 62]. */
export function parseLines(lines: string): [number, number] {
  const [a, b] = lines.split('-').map(Number)
  return [a!, b ?? a!]
}

const MODIFIERS = new Set([
  'export',
  'default',
  'async',
  'public',
  'private',
  'protected',
  'static',
  'abstract',
  'override',
  'readonly',
  'declare',
  'pub',
  'pub(crate)',
  'unsafe',
  'extern',
  'inline',
  'final',
  'open',
  'internal',
  'virtual',
  'get',
  'set',
])
const KEYWORDS = new Set([
  'function',
  'function*',
  'class',
  'def',
  'func',
  'fn',
  'interface',
  'type',
  'enum',
  'struct',
  'trait',
  'impl',
  'const',
  'let',
  'var',
  'val',
  'module',
  'namespace',
  'object',
  'sub',
  'proc',
  'macro',
])
const MAX_LINE = 2000

/**
 * How surely `line` defines `name`: 2 with a definition keyword (`function`, `class`, `def`, `func`, `const` …,
 * after optional modifiers such as `export async`; a Go receiver `(r *T)` is skipped), 1 for a bare `name(` or
 * `name =`/`name:` that does not end like a call (`;`), 0 when it does not. Words are read one by one: linear
 * in the line.
 */
export function definition(line: string, name: string): 0 | 1 | 2 {
  if (line.length > MAX_LINE || !line.includes(name)) return 0
  let rest = line.trimStart()
  let keyword = false
  for (;;) {
    const word = /^[^\s(<=:{]+/.exec(rest)?.[0]
    if (word === undefined) return 0
    if (word === name) {
      const after = rest.slice(name.length).trimStart()
      if (keyword) return 2
      return /^[(<=:{]/.test(after) && !/;\s*$/.test(after) ? 1 : 0
    }
    if (MODIFIERS.has(word)) rest = rest.slice(word.length).trimStart()
    else if (KEYWORDS.has(word) && !keyword) {
      keyword = true
      rest = rest.slice(word.length).trimStart()
      if (word === 'func' && rest.startsWith('(')) {
        const close = rest.indexOf(')')
        if (close === -1) return 0
        rest = rest.slice(close + 1).trimStart()
      }
    } else return 0
  }
}

const indentOf = (line: string): number => line.length - line.trimStart().length

/** The last line (0-based) of the block that starts at line `start`: by braces when the definition opens one, else by indentation. */
function blockEnd(lines: string[], start: number): number {
  const head = lines[start]!
  // Braces: the definition opens `{` on its line or within the next few lines (a wrapped signature).
  let opener = -1
  if (!head.trimEnd().endsWith(':')) {
    for (let i = start; i < Math.min(lines.length, start + 10); i++) {
      const t = lines[i]!
      if (t.includes('{')) {
        opener = i
        break
      }
      if (i > start && indentOf(t) <= indentOf(head) && t.trim() !== '') break
      if (/[;]\s*$/.test(t)) break
    }
  }
  if (opener !== -1) {
    let depth = 0
    for (let i = opener; i < lines.length; i++) {
      for (const c of lines[i]!) {
        if (c === '{') depth++
        else if (c === '}' && --depth === 0) return i
      }
    }
    return lines.length - 1
  }
  // Indentation (Python, YAML-like, a one-line constant): the lines indented deeper than the definition.
  const base = indentOf(head)
  let end = start
  for (let i = start + 1; i < lines.length; i++) {
    const t = lines[i]!
    if (t.trim() === '') continue
    if (indentOf(t) <= base) break
    end = i
  }
  return end
}

/** The 1-based lines of the first definition of `symbol` (a keyword one first) (its last `.`-separated part) in `lines`, or null. */
export function symbolBlock(lines: string[], symbol: string): [number, number] | null {
  const name = symbol.slice(symbol.lastIndexOf('.') + 1)
  if (name === '') return null
  let weak = -1
  for (let i = 0; i < lines.length; i++) {
    const d = definition(lines[i]!, name)
    if (d === 2) return [i + 1, blockEnd(lines, i) + 1]
    if (d === 1 && weak === -1) weak = i
  }
  return weak === -1 ? null : [weak + 1, blockEnd(lines, weak) + 1]
}

/** What an anchor covers in a file: its text, and the lines it spans (null: the whole file). */
export interface Anchored {
  text: string
  lines: [number, number] | null
}

/** The anchored text of `content` for lines `a-b`, a symbol, or the whole file. */
export function anchoredText(content: string, place: {lines?: string | null; symbol?: string | null}): Anchored {
  const lines = splitLines(content)
  let range: [number, number] | null = null
  if (place.lines) range = parseLines(place.lines)
  else if (place.symbol) range = symbolBlock(lines, place.symbol)
  if (range === null) return {text: normalise(content), lines: null}
  return {text: lines.slice(range[0] - 1, range[1]).join('\n'), lines: range}
}

/**
 * Where `n` lines hashing to `hash` are in `lines` (1-based `[a, b]`), the ones nearest `near` first; null
 * when nowhere. `first`, the first of those lines when known, skips the windows that cannot match.
 */
export function findLines(lines: string[], n: number, hash: string, near: number, first?: string): [number, number] | null {
  let best: number | null = null
  for (let i = 0; i + n <= lines.length; i++) {
    if (first !== undefined && lines[i] !== first) continue
    if (sha256(lines.slice(i, i + n).join('\n')) !== hash) continue
    if (best === null || Math.abs(i + 1 - near) < Math.abs(best + 1 - near)) best = i
  }
  return best === null ? null : [best + 1, best + n]
}
