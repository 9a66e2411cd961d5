/**
 * @module How deep a JSON text nests, read before it is parsed (docs/api.md, "Bounded work"): a megabyte of
 * `[` took V8's parser ~200 ms to refuse, holding every other request; one pass over the characters
 * (strings skipped, escapes included) refuses it in a few.
 */

/** Deepest nesting of arrays and objects a request body may have (kb's own bodies nest a few levels). */
export const JSON_DEPTH_MAX = 64

/** Whether `text` opens more than `max` arrays or objects inside one another (before checking it is JSON at all). */
export function nestsDeeperThan(text: string, max: number = JSON_DEPTH_MAX): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // A string: to its closing quote, over escapes.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i)
        if (s === 0x5c) i++
        else if (s === 0x22) break
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) {
      depth--
    }
  }
  return false
}
