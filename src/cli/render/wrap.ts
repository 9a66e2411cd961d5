/**
 * @module Lines of styled spans fitted to a width, measured in terminal columns (`tui/text.ts`: wide
 * characters take two, marks none): prose wrapped at spaces with a prefix on the first line and another on
 * the rest (a list marker and its hanging indent, a quote's bar) keeping the spaces between words that share
 * a line, code cut between graphemes keeping every
 * space. Styles live in spans, not in escape sequences, so a wrap never splits one. Linear in the text.
 */
import {graphemes, width} from '../tui/text.js'
import {sameStyle, type Line, type Span, type Style} from './style.js'

/** Adds `text` in `style` to the end of `line`, merged into the last span when it looks alike. */
export function push(line: Line, text: string, style: Style): void {
  if (text === '') return
  const last = line[line.length - 1]
  if (last && sameStyle(last, style)) last.text += text
  else line.push({...style, text})
}

/** Columns a line takes. */
export function lineWidth(line: Line): number {
  let w = 0
  for (const s of line) w += width(s.text)
  return w
}

const copy = (line: Line): Line => line.map((s) => ({...s}))

/**
 * `spans` wrapped at spaces to lines of at most `columns` (prefix included), `first` before the first line
 * and `rest` before the others; a `\n` in a span is a hard break. Spaces between words stay as written unless
 * the line breaks there; a word longer than a line is cut between graphemes.
 */
export function wrapSpans(spans: Span[], columns: number, first: Line = [], rest: Line = first): Line[] {
  const out: Line[] = []
  let line = copy(first)
  let room = Math.max(1, columns - lineWidth(first))
  const restRoom = Math.max(1, columns - lineWidth(rest))
  let used = 0
  let word: Span[] = []
  let wordW = 0
  // Spaces since the last word: kept between words on a line (the author's spacing), dropped at a wrap.
  let gap = 0
  const newLine = (): void => {
    out.push(line)
    line = copy(rest)
    room = restRoom
    used = 0
  }
  const place = (): void => {
    if (word.length === 0) return
    const spaces = Math.max(1, gap)
    if (used > 0 && used + spaces + wordW <= room) {
      // A space inside one style (a link's text, a bold phrase) takes that style: no gap in an underline.
      const before = line[line.length - 1]
      push(line, ' '.repeat(spaces), before && sameStyle(before, word[0]!) ? before : {})
      used += spaces
    } else if (used > 0) newLine()
    if (wordW <= room - used) {
      for (const p of word) push(line, p.text, p)
      used += wordW
    } else {
      for (const p of word)
        for (const g of graphemes(p.text)) {
          const gw = width(g)
          if (used + gw > room && used > 0) newLine()
          push(line, g, p)
          used += gw
        }
    }
    word = []
    wordW = 0
    gap = 0
  }
  for (const s of spans) {
    const rows = s.text.split('\n')
    for (let j = 0; j < rows.length; j++) {
      if (j > 0) {
        place()
        newLine()
        gap = 0
      }
      const parts = rows[j]!.split(' ')
      for (let k = 0; k < parts.length; k++) {
        if (k > 0) {
          place()
          gap++
        }
        const p = parts[k]!
        if (p === '') continue
        word.push({...s, text: p})
        wordW += width(p)
      }
    }
  }
  place()
  out.push(line)
  return out
}

/** `spans` (one line of code) cut into lines of at most `columns`, between graphemes, every space kept. */
export function hardWrap(spans: Line, columns: number): Line[] {
  const w = Math.max(1, columns)
  const out: Line[] = []
  let line: Line = []
  let used = 0
  for (const s of spans) {
    const sw = width(s.text)
    if (used + sw <= w) {
      push(line, s.text, s)
      used += sw
      continue
    }
    for (const g of graphemes(s.text)) {
      const gw = width(g)
      if (used + gw > w && used > 0) {
        out.push(line)
        line = []
        used = 0
      }
      push(line, g, s)
      used += gw
    }
  }
  out.push(line)
  return out
}

/** `line` followed by spaces up to `columns`. */
export function padLine(line: Line, columns: number): Line {
  const n = columns - lineWidth(line)
  return n > 0 ? [...line, {text: ' '.repeat(n)}] : line
}
