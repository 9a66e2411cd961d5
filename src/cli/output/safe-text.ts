/**
 * @module Text from other people made safe for a terminal (docs/security.md): every escape sequence (CSI, OSC
 * ending in BEL or ST, DCS/SOS/PM/APC strings, two-byte ESC sequences, and their 8-bit C1 forms) is removed,
 * every other control character and bidirectional override is shown as U+FFFD, so an entry can neither
 * recolour nor redraw the screen, plant a link (OSC 8), set the clipboard (OSC 52) nor reorder what is read.
 * One pass, no regular expressions: linear in the text's length whatever it holds.
 */

export interface SafeTextOptions {
  /** Keep line breaks (a body shown as a block); otherwise each becomes a space (a table cell, a title). */
  newlines?: boolean
  /** Keep tabs; otherwise each becomes a space. */
  tabs?: boolean
}

const REPLACEMENT = '\uFFFD'
const ESC = 0x1b
const BEL = 0x07

/** Bidirectional embeddings, overrides and isolates ("Trojan Source"): they reorder what the reader sees. */
function isBidiControl(c: number): boolean {
  return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)
}

/** Index just past a string-type sequence body (OSC, DCS, SOS, PM, APC) started at `i`: ends at BEL, ESC \ or 8-bit ST. */
function skipString(s: string, i: number, belEnds: boolean): number {
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x9c || (belEnds && c === BEL)) return i + 1
    if (c === ESC) return s.charCodeAt(i + 1) === 0x5c ? i + 2 : i
  }
  return i
}

/** Index just past a CSI sequence's parameters and final byte, started at `i` (after ESC [ or 0x9b). */
function skipCsi(s: string, i: number): number {
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x40 && c <= 0x7e) return i + 1
    if (c < 0x20 || c > 0x3f) return i // malformed: stop before the stray byte, which is handled on its own
  }
  return i
}

/** `text` with escape sequences removed and other controls made visible; see the module doc. */
export function safeText(text: string, o: SafeTextOptions = {}): string {
  const keepNewlines = o.newlines ?? true
  const keepTabs = o.tabs ?? true
  let out = ''
  let from = 0
  let i = 0
  const flush = (to: number, add: string): void => {
    out += text.slice(from, to) + add
  }
  while (i < text.length) {
    const c = text.charCodeAt(i)
    const printable = (c >= 0x20 && c < 0x7f) || (c > 0x9f && !isBidiControl(c))
    if (printable) {
      i++
      continue
    }
    let next = i + 1
    let add = REPLACEMENT
    if (c === 0x0a) add = keepNewlines ? '\n' : ' '
    else if (c === 0x09) add = keepTabs ? '\t' : ' '
    else if (c === 0x0d) {
      // CRLF is a line break; a lone CR would return the cursor and let the rest overwrite the line.
      if (text.charCodeAt(i + 1) === 0x0a) {
        next = i + 2
        add = keepNewlines ? '\n' : ' '
      }
    } else if (c === ESC) {
      const k = text.charCodeAt(i + 1)
      add = ''
      if (k === 0x5b) next = skipCsi(text, i + 2)
      else if (k === 0x5d) next = skipString(text, i + 2, true)
      else if (k === 0x50 || k === 0x58 || k === 0x5e || k === 0x5f) next = skipString(text, i + 2, false)
      else if (k >= 0x20 && k <= 0x7e) next = i + 2
      else add = REPLACEMENT
    } else if (c === 0x9b) {
      next = skipCsi(text, i + 1)
      add = ''
    } else if (c === 0x9d) {
      next = skipString(text, i + 1, true)
      add = ''
    } else if (c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) {
      next = skipString(text, i + 1, false)
      add = ''
    }
    flush(i, add)
    i = from = next
  }
  return from === 0 ? text : out + text.slice(from)
}
