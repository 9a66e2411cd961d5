/**
 * @module Character classes as JavaScript regular expressions define them, for scanners that replace
 * expressions which backtrack on client text (docs/api.md, "Bounded work"): one pass, constant work per character.
 */

/** Whether a UTF-16 code unit is in `\s` (WhiteSpace and LineTerminator); every such character is one unit. */
export function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d)
  if (code < 0xa0) return false
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  )
}

/** Whether a UTF-16 code unit ends a line for `^`, `$` (with the m flag) and `.`. */
export function isLineTerminator(code: number): boolean {
  return code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029
}

/** Whether `s[i]` is in `\s`; false past the end. */
export function spaceAt(s: string, i: number): boolean {
  return i < s.length && isSpace(s.charCodeAt(i))
}

/** Whether `s[i]` is an ASCII letter or digit (`[A-Za-z0-9]`); false past the end. */
export function asciiAlnumAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i) // NaN past the end
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)
}

/** Whether `s[i]` is an ASCII letter (`[A-Za-z]`); false past the end. */
export function asciiLetterAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i) | 0x20
  return i < s.length && c >= 0x61 && c <= 0x7a
}

const WORD = /^[\p{L}\p{N}_]$/u

/** Whether the code point starting at `s[i]` is in `[\p{L}\p{N}_]` (with the u flag); false past the end. */
export function wordCodePointAt(s: string, i: number): boolean {
  const cp = s.codePointAt(i)
  if (cp === undefined) return false
  if (cp < 0x80) return cp === 0x5f || asciiAlnumAt(s, i)
  return WORD.test(String.fromCodePoint(cp))
}

/** Where the code point that ends just before `s[i]` starts (a surrogate pair is one code point, a lone surrogate is one too). */
export function codePointStartBefore(s: string, i: number): number {
  const low = s.charCodeAt(i - 1)
  const high = s.charCodeAt(i - 2)
  return low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? i - 2 : i - 1
}

/** `s` without trailing `/` (what `/\/+$/` removes, which takes quadratic time on a long run of slashes not at the end). */
export function trimTrailingSlashes(s: string): string {
  let end = s.length
  while (end > 0 && s.charCodeAt(end - 1) === 0x2f) end--
  return s.slice(0, end)
}
