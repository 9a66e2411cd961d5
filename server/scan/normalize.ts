/**
 * @module What a reader sees, for the scanner (docs/security.md, "What is found"): a secret written with a
 * zero-width space or a soft hyphen inside, in fullwidth or other compatibility letters, with Markdown
 * escapes (`ghp\_…` renders as `ghp_…`), as HTML entities or percent-encoded is still the secret. One pass
 * over the text builds the normalised text and, for each of its characters, where it came from in the
 * original, so that findings in the normalised text point at (and redact) the original characters.
 * Linear: each step reads a bounded stretch (an entity is at most ENTITY_MAX characters), nothing is decoded
 * twice (`&amp;#65;` is `&#65;`, not `A`).
 */

/** Characters a reader does not see: zero-width spaces and joiners, marks of direction, soft hyphen, BOM, word joiner. */
const INVISIBLE = new Set([0x00ad, 0x034f, 0x061c, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x180e, 0x3164, 0xfeff, 0xffa0])
const invisible = (c: number): boolean =>
  INVISIBLE.has(c) ||
  (c >= 0x200b && c <= 0x200f) ||
  (c >= 0x202a && c <= 0x202e) ||
  (c >= 0x2060 && c <= 0x206f) ||
  (c >= 0xfe00 && c <= 0xfe0f)

/** The longest HTML entity read (`&#x0001F600;` and the named ones below fit). */
const ENTITY_MAX = 12
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  lowbar: '_',
  UnderBar: '_',
  period: '.',
  colon: ':',
  sol: '/',
  equals: '=',
  plus: '+',
  commat: '@',
  hyphen: '-',
  dash: '-',
  num: '#',
  percnt: '%',
  nbsp: ' ',
  excl: '!',
  dollar: '$',
  tilde: '~',
}
const MARKDOWN_ESCAPABLE = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'

/** Compatibility forms folded to one ASCII character (fullwidth `ｇｈｐ`, mathematical letters), cached per code point. */
const folded = new Map<number, string | null>()
function fold(cp: number): string | null {
  if (cp >= 0xff01 && cp <= 0xff5e) return String.fromCharCode(cp - 0xfee0)
  let f = folded.get(cp)
  if (f === undefined) {
    const n = String.fromCodePoint(cp).normalize('NFKC')
    f = n.length === 1 && n.charCodeAt(0) < 0x80 ? n : null
    if (folded.size < 4096) folded.set(cp, f)
  }
  return f
}

const hexDigit = (c: number): number => (c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1)

/** `&…;` at `i`: the character it stands for and its length, or null. */
function entity(text: string, i: number): {char: string; length: number} | null {
  // Looked for within ENTITY_MAX characters only: a text of `&` and no `;` stays linear.
  let end = -1
  for (let k = i + 1; k < text.length && k - i <= ENTITY_MAX; k++) {
    if (text.charCodeAt(k) === 0x3b) {
      end = k
      break
    }
  }
  if (end < 0) return null
  const name = text.slice(i + 1, end)
  let cp = -1
  if (/^#[0-9]{1,7}$/.test(name)) cp = Number(name.slice(1))
  else if (/^#[xX][0-9a-fA-F]{1,6}$/.test(name)) cp = parseInt(name.slice(2), 16)
  else if (Object.hasOwn(NAMED, name)) return {char: NAMED[name]!, length: end - i + 1}
  if (cp < 0x20 || cp > 0x10ffff) return null
  const char = String.fromCodePoint(cp)
  return {char: fold(cp) ?? char, length: end - i + 1}
}

export interface Normalized {
  text: string
  /** For each character of `text`: where it begins in the original. */
  from: Int32Array
  /** For each character of `text`: where it ends in the original. */
  to: Int32Array
}

/**
 * Whether nothing in the text can read otherwise: no backslash, `&` or `%` and nothing outside ASCII, the only
 * characters the pass below changes. Most short texts — every request target the log writes (server/http/log-url.ts)
 * — are such, and the pass's maps cost more than the scan itself (docs/performance.md, "The fast lane of GET
 * /knowledge/:id").
 */
function readsAsWritten(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0x80 || c === 0x5c || c === 0x26 || c === 0x25) return false
  }
  return true
}

/** The text as a reader sees it with its map to the original; null when that is the original itself. */
export function normalizeForScan(text: string): Normalized | null {
  if (readsAsWritten(text)) return null
  const out: string[] = []
  const from = new Int32Array(text.length)
  const to = new Int32Array(text.length)
  let n = 0
  let changed = false
  const emit = (s: string, start: number, end: number): void => {
    for (let k = 0; k < s.length; k++) {
      out.push(s[k]!)
      from[n] = start
      to[n] = end
      n++
    }
  }
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i)
    if (c < 0x80) {
      if (c === 0x5c && i + 1 < text.length && MARKDOWN_ESCAPABLE.includes(text[i + 1]!)) {
        emit(text[i + 1]!, i, i + 2)
        changed = true
        i += 2
        continue
      }
      if (c === 0x26) {
        const e = entity(text, i)
        if (e) {
          emit(e.char, i, i + e.length)
          changed = true
          i += e.length
          continue
        }
      }
      if (c === 0x25 && i + 2 < text.length) {
        const hi = hexDigit(text.charCodeAt(i + 1))
        const lo = hexDigit(text.charCodeAt(i + 2))
        const byte = hi * 16 + lo
        if (hi >= 0 && lo >= 0 && byte >= 0x21 && byte < 0x7f) {
          emit(String.fromCharCode(byte), i, i + 3)
          changed = true
          i += 3
          continue
        }
      }
      emit(text[i]!, i, i + 1)
      i++
      continue
    }
    const cp = text.codePointAt(i)!
    const width = cp > 0xffff ? 2 : 1
    if (invisible(cp)) {
      changed = true
    } else {
      const f = fold(cp)
      if (f !== null) changed = true
      emit(f ?? text.slice(i, i + width), i, i + width)
    }
    i += width
  }
  if (!changed) return null
  return {text: out.join(''), from: from.subarray(0, n), to: to.subarray(0, n)}
}
