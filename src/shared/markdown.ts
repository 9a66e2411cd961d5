/**
 * @module The first paragraph of a Markdown body as plain text (docs/api.md, "Summary form"), found line
 * by line with scanners of linear time: a body is client text of up to 100,000 characters, and the
 * regular expressions this replaced backtracked (`# a` + 20,000 spaces + `b` took minutes).
 */
import {isLineTerminator, isSpace, spaceAt} from './chars.js'
import {collapse, stripInline} from './markdown-inline.js'

type Kind = 'text' | 'heading' | 'code'

/**
 * The first paragraph of text in a Markdown body, as plain text: code blocks, images, link URLs,
 * heading marks, emphasis and HTML tags removed. A body of only headings or code gives its first one.
 */
export function firstParagraph(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n')
  const paragraphs: Array<{text: string; kind: Kind}> = []
  let current: string[] = []
  let fence: string | null = null
  let code: string[] = []
  const flush = (): void => {
    if (current.length > 0) paragraphs.push({text: current.join(' '), kind: 'text'})
    current = []
  }
  for (const line of lines) {
    if (fence !== null) {
      if (line.trim().startsWith(fence)) {
        paragraphs.push({text: code.join(' '), kind: 'code'})
        fence = null
        code = []
      } else code.push(line)
      continue
    }
    const open = fenceOpening(line)
    if (open !== null) {
      flush()
      fence = open
      continue
    }
    if (line.trim() === '' || isThematicBreak(line)) {
      flush()
      continue
    }
    const heading = atxHeading(line)
    if (heading !== null) {
      flush()
      paragraphs.push({text: heading, kind: 'heading'})
      continue
    }
    if (current.length > 0 && isSetextUnderline(line)) {
      // The lines so far were a heading.
      paragraphs.push({text: current.join(' '), kind: 'heading'})
      current = []
      continue
    }
    // Quote markers go per line: once the lines are joined, a `>` inside the text is just text.
    current.push(withoutQuoteMarkers(line))
  }
  flush()
  if (fence !== null && code.length > 0) paragraphs.push({text: code.join(' '), kind: 'code'})
  for (const kind of ['text', 'heading', 'code'] as const) {
    for (const p of paragraphs) {
      if (p.kind !== kind) continue
      const plain = kind === 'code' ? collapse(p.text) : stripInline(p.text)
      if (plain !== '') return plain
    }
  }
  return collapse(markdown)
}

/** Where a line's content starts after an indentation of at most 3 white-space characters, or -1 (`^\s{0,3}` before a non-space). */
function indentEnd(line: string): number {
  let i = 0
  while (spaceAt(line, i)) if (++i > 3) return -1
  return i
}

/** The length of the run of `ch` starting at `from`. */
function runLength(line: string, from: number, ch: string): number {
  let i = from
  while (line[i] === ch) i++
  return i - from
}

/** The fence that opens a code block (3+ backticks or tildes after at most 3 spaces), or null. */
function fenceOpening(line: string): string | null {
  const i = indentEnd(line)
  if (i < 0 || (line[i] !== '`' && line[i] !== '~')) return null
  const n = runLength(line, i, line[i]!)
  return n >= 3 ? line.slice(i, i + n) : null
}

/** `---`, `***` or `___`, with spaces anywhere but at most 3 before. */
function isThematicBreak(line: string): boolean {
  const i = indentEnd(line)
  const c = line[i]
  if (i < 0 || (c !== '-' && c !== '*' && c !== '_')) return false
  let count = 0
  for (let j = i; j < line.length; j++) {
    if (line[j] === c) count++
    else if (!isSpace(line.charCodeAt(j))) return false
  }
  return count >= 3
}

/** A setext underline: a run of `=` or of `-`, then only white space. */
function isSetextUnderline(line: string): boolean {
  const i = indentEnd(line)
  const c = line[i]
  if (i < 0 || (c !== '=' && c !== '-')) return false
  for (let j = i + runLength(line, i, c); j < line.length; j++) if (!isSpace(line.charCodeAt(j))) return false
  return true
}

/**
 * The text of an ATX heading (`## Title ##`), or null: 1–6 `#` after at most 3 spaces, white space, then
 * the text without the closing `#`s and the white space around them. The text may not hold a line
 * terminator (`.` does not match one), so `# a\u2028b` is no heading.
 */
function atxHeading(line: string): string | null {
  const i = indentEnd(line)
  if (i < 0) return null
  const hashes = runLength(line, i, '#')
  if (hashes < 1 || hashes > 6 || !spaceAt(line, i + hashes)) return null
  let start = i + hashes
  while (spaceAt(line, start)) start++
  // The closing sequence: trailing white space, before it a run of `#`, before that white space.
  let end = line.length
  while (end > start && isSpace(line.charCodeAt(end - 1))) end--
  while (end > start && line[end - 1] === '#') end--
  while (end > start && isSpace(line.charCodeAt(end - 1))) end--
  for (let j = start; j < end; j++) if (isLineTerminator(line.charCodeAt(j))) return null
  return line.slice(start, end)
}

/** The line without its leading quote markers (`> > `), each with one white-space character after it. */
function withoutQuoteMarkers(line: string): string {
  const i = indentEnd(line)
  if (i < 0 || line[i] !== '>') return line
  let j = i
  while (line[j] === '>') {
    j++
    if (spaceAt(line, j)) j++
  }
  return line.slice(j)
}
