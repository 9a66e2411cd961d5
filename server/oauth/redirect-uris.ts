/**
 * @module Redirect URIs: which shapes a client may register (docs/oauth.md) and how a request's URI matches a
 * registered one — exactly, except that loopback redirects may use any port (RFC 8252 §7.3).
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost'])
/** Schemes that never name a native app and can carry script or local data. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'vbscript:',
  'blob:',
  'about:',
  'filesystem:',
  'ftp:',
  'ws:',
  'wss:',
  'mailto:',
  'view-source:',
])
const MAX_REDIRECT_URI_LENGTH = 2000

/** Why a URI may not be registered, or null if it may. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length === 0 || uri.length > MAX_REDIRECT_URI_LENGTH) return `must be 1–${MAX_REDIRECT_URI_LENGTH} characters`
  if (uri.includes('#')) return 'must not contain a fragment'
  if (/[\s<>"\\^`{|}\x00-\x1f\x7f]/.test(uri)) return 'contains characters that are not allowed in a URI'
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return 'is not an absolute URI'
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `the ${url.protocol.slice(0, -1)} scheme is not allowed`
  if (url.username !== '' || url.password !== '') return 'must not contain user information'
  if (url.protocol === 'https:') return url.hostname === '' ? 'needs a host' : null
  if (url.protocol === 'http:') {
    return isLoopbackHost(url.hostname) ? null : 'plain http is allowed only for loopback hosts (127.0.0.1, [::1], localhost); use https'
  }
  // A private-use scheme of a native app (RFC 8252 §7.1), e.g. cursor://anysphere.cursor-mcp/oauth/callback.
  return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? null : 'has an invalid scheme'
}

function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase())
}

/**
 * The registered URI that `requested` stands for, or null. Exact string match first; then a loopback
 * `http:` URI matches when everything but the port is the same.
 */
export function matchRedirectUri(requested: string, registered: readonly string[]): string | null {
  if (registered.includes(requested)) return requested
  let req: URL
  try {
    req = new URL(requested)
  } catch {
    return null
  }
  if (req.protocol !== 'http:' || !isLoopbackHost(req.hostname) || requested.includes('#') || req.username !== '' || req.password !== '')
    return null
  for (const r of registered) {
    let reg: URL
    try {
      reg = new URL(r)
    } catch {
      continue
    }
    if (reg.protocol === 'http:' && reg.hostname === req.hostname && reg.pathname === req.pathname && reg.search === req.search) return r
  }
  return null
}

/** What the consent page shows as where the person will be sent: the host, or the app's scheme. */
export function redirectDisplay(uri: string): string {
  try {
    const url = new URL(uri)
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.host
    return `${url.protocol}//${url.host}`
  } catch {
    return uri
  }
}
