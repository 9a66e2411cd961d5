/**
 * @module A request's Cookie header read as names and values, for the OAuth consent page and the web view alike
 * (docs/security.md): the first of a repeated name wins, a part without `=` is skipped; one pass, no regular expression.
 */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  if (!header) return out
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq === -1) continue
    const name = part.slice(0, eq).trim()
    if (name && !(name in out)) out[name] = part.slice(eq + 1).trim()
  }
  return out
}
