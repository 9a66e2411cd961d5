/**
 * @module The request target as the request log writes it (docs/security.md, "Safe publish"): a secret or
 * piece of personal data in a path or query (a search for a pasted token) is replaced by its kind, so the
 * log — read by whoever runs the daemon — never holds it.
 */
import {scanText} from '../scan/scanner.js'

/**
 * The target with every finding replaced by `[REDACTED:<kind>]`, percent-decoded if it had any; else as sent. A
 * `code` parameter is a one-time secret wherever it appears (the web view's sign-in links, docs/web.md): never logged.
 */
export function loggedUrl(target: string): string {
  const url = target.replace(/([?&]code=)[^&#]*/g, '$1[REDACTED:code]')
  let decoded = url
  try {
    decoded = decodeURIComponent(url.replace(/\+/g, ' '))
  } catch {
    // Not valid percent-encoding: scanned as sent.
  }
  const found = scanText(decoded)
  if (found.length === 0) return url
  let out = ''
  let from = 0
  for (const m of found) {
    out += `${decoded.slice(from, m.start)}[REDACTED:${m.kind}]`
    from = m.end
  }
  return out + decoded.slice(from)
}
