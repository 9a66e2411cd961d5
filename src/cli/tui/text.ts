/**
 * @module Plain-text layout for the TUI, in terminal columns (`string-width`: a CJK character or an emoji
 * takes two, a combining mark none): cutting and padding to a width, wrapping paragraphs, ages ("3h").
 * Done by hand rather than by Ink's wrapping so that every pane knows exactly how many terminal lines it
 * fills (the screen must never scroll) and scrolling moves by lines. Text is cut between graphemes, never
 * inside one (an accent stays on its letter, a flag and a family emoji stay whole).
 */
import {createRequire} from 'node:module'

const PRINTABLE_ASCII = /^[\u0020-\u007E]*$/
const MARK = /^\p{M}$/u

/**
 * Whether code point `cp` continues the grapheme before it: combining marks, variation selectors, skin
 * tones, emoji tags, the joiner and what it joins, the second of a pair of regional indicators (a flag).
 * Enough to measure and cut text the way terminals draw it, and linear — Intl.Segmenter costs tens of
 * microseconds a grapheme, far too much for a whole body on every key.
 */
function continues(cp: number, prev: number, regionalRun: number): boolean {
  if (prev === 0x200d || cp === 0x200d) return true
  if (
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0x1f3fb && cp <= 0x1f3ff) ||
    (cp >= 0xe0020 && cp <= 0xe007f) ||
    (cp >= 0xe0100 && cp <= 0xe01ef)
  )
    return true
  if (cp >= 0x1f1e6 && cp <= 0x1f1ff) return regionalRun % 2 === 1
  return cp >= 0x300 && isMark(cp)
}

const marks = new Map<number, boolean>()
function isMark(cp: number): boolean {
  let m = marks.get(cp)
  if (m === undefined) {
    if (marks.size > 50_000) marks.clear()
    m = MARK.test(String.fromCodePoint(cp))
    marks.set(cp, m)
  }
  return m
}

/** The graphemes of `s` (what a terminal draws as one character). */
export function graphemes(s: string): string[] {
  if (PRINTABLE_ASCII.test(s)) return s.split('')
  const out: string[] = []
  let start = 0
  let prev = -1
  let regionalRun = 0
  for (let i = 0; i < s.length;) {
    const cp = s.codePointAt(i)!
    if (i > start && !continues(cp, prev, regionalRun)) {
      out.push(s.slice(start, i))
      start = i
      regionalRun = 0
    }
    if (cp >= 0x1f1e6 && cp <= 0x1f1ff) regionalRun++
    prev = cp
    i += cp > 0xffff ? 2 : 1
  }
  if (start < s.length) out.push(s.slice(start))
  return out
}

/**
 * What kb draws itself (bullets, ellipsis, dashes, arrows, and box drawing below): one column each, known
 * without string-width, which costs tens of ms to load and to compile its emoji pattern on first use — so
 * an ASCII entry rendered with bullets, gutters and table rules (`kb show`) never loads it.
 */
const NARROW = new Set([0x00b7, 0x2013, 0x2014, 0x2022, 0x2026, 0x2039, 0x203a, 0x2192, 0x25aa, 0x25e6])

let stringWidth: ((s: string) => number) | undefined
const require = createRequire(import.meta.url)

// string-width decides a grapheme's width with Unicode-property regular expressions (~30 µs a call): each
// distinct grapheme is measured once.
const known = new Map<string, number>()
function graphemeWidth(g: string): number {
  if (g.length === 1) {
    if (g >= ' ' && g <= '~') return 1
    const c = g.charCodeAt(0)
    if ((c >= 0x2500 && c <= 0x257f) || NARROW.has(c)) return 1
  }
  let w = known.get(g)
  if (w === undefined) {
    if (known.size > 50_000) known.clear()
    stringWidth ??= (require('string-width') as {default: (s: string) => number}).default
    w = stringWidth(g)
    known.set(g, w)
  }
  return w
}

/** Columns `s` takes on a terminal. */
export function width(s: string): number {
  if (PRINTABLE_ASCII.test(s)) return s.length
  let w = 0
  for (const g of graphemes(s)) w += graphemeWidth(g)
  return w
}

const flat = (s: string): string => s.replace(/[\t\r\n]+/g, ' ')

/** `s` on one line, at most `w` columns, ending in "…" when cut. */
export function cut(s: string, w: number): string {
  if (w <= 0) return ''
  const line = flat(s)
  if (width(line) <= w) return line
  let out = ''
  let used = 0
  for (const g of graphemes(line)) {
    const gw = graphemeWidth(g)
    if (used + gw > w - 1) break
    out += g
    used += gw
  }
  return `${out}…`
}

/** `s` padded with spaces to `w` columns (never cut). */
export function pad(s: string, w: number): string {
  const n = w - width(s)
  return n > 0 ? s + ' '.repeat(n) : s
}

/** `s` cut with "…" or padded with spaces to exactly `w` columns. */
export function fit(s: string, w: number): string {
  const c = cut(s, w)
  // A wide character that did not fit may leave one column short.
  return pad(c, w)
}

/** The end of `s` in at most `w` columns, starting with "…" when cut (an input field's tail). */
export function tail(s: string, w: number): string {
  if (w <= 0) return ''
  if (width(s) <= w) return s
  const gs = graphemes(s)
  let out = ''
  let used = 0
  for (let i = gs.length - 1; i >= 0; i--) {
    const gw = graphemeWidth(gs[i]!)
    if (used + gw > w - 1) break
    out = gs[i]! + out
    used += gw
  }
  return `…${out}`
}

/** Hard-breaks one word longer than `w` columns into pieces of at most `w`. */
function breakWord(word: string, w: number): string[] {
  const out: string[] = []
  let piece = ''
  let used = 0
  for (const g of graphemes(word)) {
    const gw = graphemeWidth(g)
    if (used + gw > w && piece !== '') {
      out.push(piece)
      piece = ''
      used = 0
    }
    piece += g
    used += gw
  }
  if (piece !== '') out.push(piece)
  return out
}

/**
 * Wraps text to `columns` at spaces (hard-breaking longer words); keeps blank lines. Stops once it has
 * `max` lines (a pane that shows the first few need not lay out a whole body).
 */
export function wrap(text: string, columns: number, max = Infinity): string[] {
  const w = Math.max(2, columns)
  const out: string[] = []
  for (const raw of text.replace(/\t/g, '  ').split(/\r?\n/)) {
    if (out.length >= max) break
    if (raw.trim() === '') {
      out.push('')
      continue
    }
    // A line that fits keeps its spacing (aligned metadata columns). One of more than four UTF-16 units per
    // column is not measured whole (a 100 KB body on every key): it is wrapped word by word, which for the
    // rare line of long emoji sequences that would have fit only loses runs of spaces.
    if (raw.length <= 4 * w && width(raw) <= w) {
      out.push(raw.trimEnd())
      continue
    }
    let line = ''
    let used = 0
    for (const word of raw.split(/ +/)) {
      if (out.length >= max) break
      const ww = width(word)
      if (line !== '' && used + 1 + ww <= w) {
        line += ` ${word}`
        used += 1 + ww
        continue
      }
      if (line !== '') out.push(line)
      const pieces = ww > w ? breakWord(word, w) : [word]
      out.push(...pieces.slice(0, -1))
      line = pieces[pieces.length - 1] ?? ''
      used = width(line)
    }
    out.push(line)
  }
  return out.length > max ? out.slice(0, max) : out
}

/** How long ago: "now", "5m", "3h", "2d", "4mo", "1y". */
export function age(iso: string | undefined, now = Date.now()): string {
  if (!iso) return ''
  const t = Date.parse(iso)
  if (Number.isNaN(t)) return ''
  const s = Math.max(0, (now - t) / 1000)
  if (s < 60) return 'now'
  if (s < 3600) return `${Math.floor(s / 60)}m`
  if (s < 86_400) return `${Math.floor(s / 3600)}h`
  if (s < 30 * 86_400) return `${Math.floor(s / 86_400)}d`
  if (s < 365 * 86_400) return `${Math.floor(s / (30 * 86_400))}mo`
  return `${Math.floor(s / (365 * 86_400))}y`
}

/** "updated 3h ago", "updated just now". */
export function ago(verb: string, iso: string | undefined, now = Date.now()): string | undefined {
  const a = age(iso, now)
  if (a === '') return undefined
  return a === 'now' ? `${verb} just now` : `${verb} ${a} ago`
}
