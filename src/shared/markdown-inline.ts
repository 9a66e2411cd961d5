/**
 * @module Inline Markdown stripped from a paragraph (docs/api.md, "Summary form"), in linear time. Each
 * pass does what one global `replace` with a regular expression did before (the expression is quoted
 * above each one, and test/shared/markdown.test.ts checks the two agree on any input), but finds the
 * closing delimiter through a cursor that only moves forward: the expressions rescanned the rest of the
 * text from every opening `[`, `<`, `**`… that had no match, quadratic on 99,999 `[` or 24,999 `**a `.
 */
import {asciiAlnumAt, asciiLetterAt, codePointStartBefore, isLineTerminator, isSpace, spaceAt, wordCodePointAt} from './chars.js'

/** A paragraph's text without block quotes, list markers, images, link targets, HTML tags, emphasis and code marks. */
export function stripInline(text: string): string {
  let s = text
  s = quoteMarkers(s)
  s = listMarkers(s)
  s = bracketed(s, '!', '(', false) // images
  s = bracketed(s, '!', '[', false)
  s = bracketed(s, '', '(', true) // inline links: keep the text
  s = bracketed(s, '', '[', true) // reference links
  s = autolinks(s)
  s = htmlTags(s)
  // Underscores inside a word are not emphasis (CommonMark), so snake_case names like max_idle_conns
  // and <|im_start|> survive; asterisks may emphasise inside a word.
  s = delimited(s, '**', false) // strong
  s = delimited(s, '__', true)
  s = delimited(s, '*', false) // emphasis
  s = delimited(s, '_', true)
  s = delimited(s, '~~', false) // strike-through
  s = inlineCode(s)
  return collapse(s)
}

/** Runs of white space as one space, trimmed. (One greedy class and nothing after it: linear.) */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/**
 * The first position at or after `from` that passes `test`, or -1; queries must not go backwards, so
 * that all of them together read the text once.
 */
class Cursor {
  private at = -2

  constructor(
    private readonly s: string,
    private readonly test: (i: number) => boolean,
  ) {}

  next(from: number): number {
    if (this.at === -1 || this.at >= from) return this.at
    let i = from
    while (i < this.s.length && !this.test(i)) i++
    this.at = i < this.s.length ? i : -1
    return this.at
  }
}

/** `/^\s{0,3}>\s?/gm` → '' (a `>` at the start of the text or after a line terminator). */
function quoteMarkers(s: string): string {
  let out = ''
  let copied = 0
  for (let p = 0; p < s.length; p++) {
    if (p < copied || (p > 0 && !isLineTerminator(s.charCodeAt(p - 1)))) continue
    let q = p
    while (q - p < 3 && spaceAt(s, q)) q++
    if (s[q] !== '>') continue
    q++
    if (spaceAt(s, q)) q++
    out += s.slice(copied, p)
    copied = q
  }
  return out + s.slice(copied)
}

/** `/(^|\s)(?:[-*+]|\d{1,9}[.)])\s+/g` → '$1'. */
function listMarkers(s: string): string {
  // The end of a marker (then white space) starting at q, or -1.
  const marker = (q: number): number => {
    let m: number
    if (s[q] === '-' || s[q] === '*' || s[q] === '+') m = q + 1
    else {
      let d = q
      while (d - q < 10 && s[d]! >= '0' && s[d]! <= '9') d++
      if (d === q || d - q > 9 || (s[d] !== '.' && s[d] !== ')')) return -1
      m = d + 1
    }
    if (!spaceAt(s, m)) return -1
    while (spaceAt(s, m)) m++
    return m
  }
  let out = ''
  let copied = 0
  for (let p = 0; p < s.length;) {
    let end = p === 0 ? marker(0) : -1
    let keep = ''
    if (end < 0 && spaceAt(s, p)) {
      end = marker(p + 1)
      keep = s[p]!
    }
    if (end < 0) {
      p++
      continue
    }
    out += s.slice(copied, p) + keep
    copied = p = end
  }
  return out + s.slice(copied)
}

/**
 * Links and images: `/!\[([^\]]*)\]\([^)]*\)/g` → '' (bang `!`, opener `(`), `/!\[([^\]]*)\]\[[^\]]*\]/g`
 * → '', and without the bang `/\[([^\]]*)\]\([^)]*\)/g` and `/\[([^\]]*)\]\[[^\]]*\]/g` → '$1'.
 */
function bracketed(s: string, bang: '!' | '', opener: '(' | '[', keepText: boolean): string {
  const closer = opener === '(' ? ')' : ']'
  const brackets = new Cursor(s, (i) => s[i] === ']')
  const closers = new Cursor(s, (i) => s[i] === closer)
  const start = bang + '['
  let out = ''
  let copied = 0
  for (let p = s.indexOf(start); p >= 0; p = s.indexOf(start, p + 1)) {
    if (p < copied) continue
    const textEnd = brackets.next(p + start.length)
    if (textEnd < 0) break
    if (s[textEnd + 1] !== opener) continue
    const end = closers.next(textEnd + 2)
    if (end < 0) continue
    out += s.slice(copied, p) + (keepText ? s.slice(p + start.length, textEnd) : '')
    copied = end + 1
  }
  return out + s.slice(copied)
}

/** `/<(https?:\/\/[^>\s]+)>/g` → '$1'. */
function autolinks(s: string): string {
  const stops = new Cursor(s, (i) => s[i] === '>' || isSpace(s.charCodeAt(i)))
  let out = ''
  let copied = 0
  for (let p = s.indexOf('<http'); p >= 0; p = s.indexOf('<http', p + 1)) {
    if (p < copied) continue
    let q = p + 5
    if (s[q] === 's') q++
    if (!s.startsWith('://', q)) continue
    const stop = stops.next(q + 3)
    if (stop <= q + 3 || s[stop] !== '>') continue
    out += s.slice(copied, p) + s.slice(p + 1, stop)
    copied = stop + 1
  }
  return out + s.slice(copied)
}

/** `/<\/?[A-Za-z][^>]*>/g` → ''. */
function htmlTags(s: string): string {
  const ends = new Cursor(s, (i) => s[i] === '>')
  let out = ''
  let copied = 0
  for (let p = s.indexOf('<'); p >= 0; p = s.indexOf('<', p + 1)) {
    if (p < copied) continue
    const name = s[p + 1] === '/' ? p + 2 : p + 1
    if (!asciiLetterAt(s, name)) continue
    const end = ends.next(name + 1)
    if (end < 0) break
    out += s.slice(copied, p)
    copied = end + 1
  }
  return out + s.slice(copied)
}

/**
 * Emphasis, strong and strike-through: `mark`, a non-space, the shortest text ending in a non-space,
 * `mark` again. For `*`, `**` and `~~` (no flag): `/\*(?=\S)([\s\S]*?\S)\*(?![A-Za-z0-9])/g` → '$1',
 * `/\*\*(?=\S)([\s\S]*?\S)\*\* /g` (without the space) and `/~~(?=\S)([\s\S]*?\S)~~/g` likewise.
 * For `_` and `__`, outside words only (u flag): `/(^|[^\p{L}\p{N}_])__(?=\S)([\s\S]*?\S)__(?![\p{L}\p{N}_])/gu`
 * → '$1$2', `_` likewise.
 */
function delimited(s: string, mark: string, wordBounded: boolean): string {
  const n = mark.length
  const closeOk = (k: number): boolean =>
    wordBounded ? !wordCodePointAt(s, k + n) : n === 1 && mark === '*' ? !asciiAlnumAt(s, k + n) : true
  // Whether a match closes at k does not depend on where it opened, so one cursor finds every closer.
  const closers = new Cursor(s, (k) => s.startsWith(mark, k) && !isSpace(s.charCodeAt(k - 1)) && closeOk(k))
  let out = ''
  let copied = 0
  // A match can only open where the mark is, so the expression's attempts elsewhere are skipped.
  for (let o = s.indexOf(mark); o >= 0; o = s.indexOf(mark, o + 1)) {
    if (o < copied || o + n >= s.length || isSpace(s.charCodeAt(o + n))) continue
    if (wordBounded && o > 0) {
      // `(^|[^\p{L}\p{N}_])`: the very start of the text, or one non-word code point where the expression tried.
      const before = codePointStartBefore(s, o)
      if (before < copied || wordCodePointAt(s, before)) continue
    }
    const close = closers.next(o + n + 1)
    if (close < 0) continue
    out += s.slice(copied, o) + s.slice(o + n, close)
    copied = close + n
  }
  return out + s.slice(copied)
}

/** `/`+([^`]*)`+/g` → '$1': a run of backticks, the code, the next run; a run of 2+ with no other after it goes. */
function inlineCode(s: string): string {
  let out = ''
  let copied = 0
  for (let p = s.indexOf('`'); p >= 0; p = s.indexOf('`', p + 1)) {
    if (p < copied) continue
    let open = p
    while (s[open] === '`') open++
    const close = s.indexOf('`', open)
    if (close < 0) {
      if (open - p >= 2) {
        out += s.slice(copied, p)
        copied = open
      }
      break
    }
    let end = close
    while (s[end] === '`') end++
    out += s.slice(copied, p) + s.slice(open, close)
    copied = end
    p = end - 1
  }
  return out + s.slice(copied)
}
