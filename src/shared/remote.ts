/**
 * @module Canonical form of a git remote (docs/api.md, "Canonical remotes"), shared by the server and the CLI so both agree.
 */

/**
 * Turn any git remote URL into `host/owner/repo`: lower case, no scheme, user, port or `.git`.
 * Returns null for input that names no host and path. Idempotent: the result, read back as
 * `https://<result>`, gives itself.
 */
export function canonicalRemote(input: string): string | null {
  const s = input.trim()
  // Whitespace or control characters inside a remote mean it is something else (a sentence, a typo).
  if (s === '' || /[\s\u0000-\u001f\u007f]/.test(s)) return null
  let host: string | null
  let path: string
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(s)
  if (scheme) {
    const rest = s.slice(scheme[0].length)
    const slash = rest.indexOf('/')
    host = hostOfAuthority(slash === -1 ? rest : rest.slice(0, slash))
    path = slash === -1 ? '' : rest.slice(slash + 1)
  } else {
    // scp-like syntax: [user@]host:path — but `C:/…` or `C:\…` is a Windows path, not a host.
    const m = /^(?:[^@/]+@)?(\[[^\]]*\]|[^:/@[\]]+):(?!\/\/)(.*)$/.exec(s)
    // The canonical form itself (`github.com/acme/api`) is accepted too: people paste what kb shows them.
    // Its host is localhost, a bracketed address or a name with a dot before its last character (tested
    // apart from the expression, which backtracked quadratically on `a.a.a.…` when it held the dot).
    const bare = m ? null : /^([\p{L}\p{N}._~-]+|\[[0-9a-f:.]+\])\/(.+)$/iu.exec(s)
    const dot = bare ? bare[1]!.indexOf('.') : -1
    if (bare && !bare[1]!.startsWith('[') && bare[1]!.toLowerCase() !== 'localhost' && (dot < 0 || dot === bare[1]!.length - 1)) return null
    if ((!m && !bare) || /^[a-z]:[\\/]/i.test(s)) return null
    host = (m ?? bare)![1]!
    path = (m ?? bare)![2]!
    // host:22/owner/repo, as some tools write it; but host:1234/repo is a numeric owner (GitHub has them)
    if (m && /^\d+\/[^/]+\/[^/]/.test(path.replace(/^\/+/, ''))) path = path.replace(/^\/*\d+\//, '')
  }
  host = host === null ? null : validHost(host.toLowerCase())
  if (host === null) return null
  const parts: string[] = []
  for (const raw of path.split(/[?#]/, 1)[0]!.split('/')) {
    const part = canonicalPart(raw)
    if (part === null) return null
    if (part !== '' && part !== '.') parts.push(part)
  }
  // A trailing `.git`, `.git/` or `/.git` all name the repository itself; strip them until none is left,
  // so that no canonical form ends in `.git` (which would make it change when read again).
  while (parts.length > 0) {
    let last = parts[parts.length - 1]!
    while (last.toLowerCase().endsWith('.git')) last = last.slice(0, -'.git'.length)
    if (last === '' || last === '.') parts.pop()
    else {
      parts[parts.length - 1] = last
      break
    }
  }
  if (parts.length === 0 || parts.includes('..')) return null
  return [host, ...parts].join('/').toLowerCase()
}

/** The host of a URL authority (`user:pw@host:port`), or null when it has none or a malformed one. */
function hostOfAuthority(authority: string): string | null {
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1)
  let host: string
  let port: string
  if (hostPort.startsWith('[')) {
    const end = hostPort.indexOf(']')
    if (end === -1) return null
    host = hostPort.slice(0, end + 1)
    port = hostPort.slice(end + 1)
    if (port !== '' && !port.startsWith(':')) return null
  } else {
    const colon = hostPort.indexOf(':')
    host = colon === -1 ? hostPort : hostPort.slice(0, colon)
    port = colon === -1 ? '' : hostPort.slice(colon)
  }
  return /^(:\d*)?$/.test(port) ? host : null
}

/** A DNS name, an IPv4 address or a bracketed IPv6 address; null for anything else. */
function validHost(host: string): string | null {
  // The colon is looked for apart: `[0-9a-f:.]*:[0-9a-f:.]*` backtracked quadratically on `[::::…x]`.
  if (/^\[[0-9a-f:.]*\]$/.test(host) && host.includes(':')) return host
  return /^[\p{L}\p{N}._~-]+$/u.test(host) && /[\p{L}\p{N}]/u.test(host) ? host : null
}

/**
 * One path part, percent-decoded; the characters that would change its meaning when read again
 * (`%`, `/`, `?`, `#`) stay encoded. Null for a part no repository path can contain.
 */
function canonicalPart(raw: string): string | null {
  let part: string
  try {
    part = decodeURIComponent(raw)
  } catch {
    part = raw
  }
  if (/[\s\\\u0000-\u001f\u007f]/.test(part)) return null
  return part.replace(/[%/?#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
}

/** The default project name for a canonical remote: its last path part. */
export function remoteName(canonical: string): string {
  const parts = canonical.split('/')
  return parts[parts.length - 1] ?? canonical
}
