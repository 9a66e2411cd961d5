/**
 * @module What the OAuth endpoint modules share: the log they write to, how a pasted API key is checked,
 * and the rule that no request parameter may appear twice (RFC 6749 §3.1).
 */
import type {Caller} from '../services/context.js'

/** Checks a pasted API key; returns the caller it stands for, or null. */
export type KeyCheck = (apiKey: string) => Promise<Caller | null>

export interface Logger {
  warn(obj: object, msg: string): void
  debug(obj: object, msg: string): void
}

/** The first parameter that appears more than once (RFC 6749 §3.1 forbids repeats), if any. */
export function repeatedParam(q: URLSearchParams): string | null {
  const seen = new Set<string>()
  for (const k of q.keys()) {
    if (seen.has(k)) return k
    seen.add(k)
  }
  return null
}
