/**
 * @module Character tests and measures the detectors share (docs/security.md, "Safe publish"). All are
 * single passes over their input; none uses a regular expression.
 */

/** The text with A–Z folded to a–z, every index still pointing at the same character. */
export function asciiLower(text: string): string {
  // Lower-casing only ever lengthens a text (İ → i̇): the same length means every index still lines up.
  const lower = text.toLowerCase()
  if (lower.length === text.length) return lower
  const codes = new Uint16Array(text.length)
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    codes[i] = c >= 65 && c <= 90 ? c + 32 : c
  }
  let out = ''
  for (let i = 0; i < codes.length; i += 8192) out += String.fromCharCode(...codes.subarray(i, i + 8192))
  return out
}

export const isDigit = (c: number): boolean => c >= 48 && c <= 57
export const isAlpha = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
export const isAlnum = (c: number): boolean => isDigit(c) || isAlpha(c)
/** A word character as `\b` sees it: letters, digits, underscore. */
export const isWord = (c: number): boolean => isAlnum(c) || c === 95
export const isHex = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
export const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12

/** The code of the character at `i`, or -1 outside the text (so boundary tests read the edges as non-characters). */
export function codeAt(text: string, i: number): number {
  return i >= 0 && i < text.length ? text.charCodeAt(i) : -1
}

/** The end of the run of characters satisfying `ok` from `i`, looking at most `max` characters ahead. */
export function runEnd(text: string, i: number, ok: (c: number) => boolean, max: number): number {
  const stop = Math.min(text.length, i + max)
  let j = i
  while (j < stop && ok(text.charCodeAt(j))) j++
  return j
}

/** The start of the run of characters satisfying `ok` that ends at `i` (exclusive), looking at most `max` characters back. */
export function runStart(text: string, i: number, ok: (c: number) => boolean, max: number): number {
  const stop = Math.max(0, i - max)
  let j = i
  while (j > stop && ok(text.charCodeAt(j - 1))) j--
  return j
}

/** Shannon entropy in bits per character, as gitleaks computes it (detect/utils.go, shannonEntropy). */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0
  const counts = new Map<number, number>()
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    counts.set(c, (counts.get(c) ?? 0) + 1)
  }
  let h = 0
  for (const n of counts.values()) {
    const p = n / s.length
    h -= p * Math.log2(p)
  }
  return h
}

/** Whether the text holds an ASCII digit. */
export function hasDigit(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (isDigit(s.charCodeAt(i))) return true
  return false
}

/** Words that mark a value as a stand-in, not a secret: documentation and templates are full of them. */
const PLACEHOLDER_WORDS = [
  'example',
  'xxxx',
  'your',
  'placeholder',
  'changeme',
  'change_me',
  'redacted',
  'dummy',
  'sample',
  'fake',
  'test1234',
  '<',
  '>',
  '${',
  '{{',
  '%s',
  '****',
  '....',
  // Elided, as kb's own masked excerpts are: a value cut short is not the secret.
  '…',
]

/** A value that is evidently a template or a stand-in (`<token>`, `${TOKEN}`, `your_key_here`, `****`). */
export function isPlaceholder(value: string): boolean {
  const v = asciiLower(value)
  if (PLACEHOLDER_WORDS.some((w) => v.includes(w))) return true
  // One character repeated (`aaaaaaaa`, `00000000`).
  for (let i = 1; i < v.length; i++) if (v.charCodeAt(i) !== v.charCodeAt(0)) return false
  return true
}
