/**
 * @module Canonical form of a git remote (API.md §3.5), shared by the server and the CLI so both agree.
 */

/**
 * Turn any git remote URL into `host/owner/repo`: lower case, no scheme, user, port or `.git`.
 * Returns null for input that names no host and path.
 */
export function canonicalRemote(input: string): string | null {
  let s = input.trim()
  if (s === '' || /\s/.test(s)) return null
  let host: string
  let path: string
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(s)
  if (scheme) {
    s = s.slice(scheme[0].length)
    const slash = s.indexOf('/')
    const authority = slash === -1 ? s : s.slice(0, slash)
    path = slash === -1 ? '' : s.slice(slash + 1)
    host = stripUserAndPort(authority)
  } else {
    // scp-like syntax: [user@]host:path — but not a Windows drive letter or a local path.
    const m = /^(?:[^@/]+@)?(\[[^\]]+\]|[^:/]+):(?!\/\/)(.*)$/.exec(s)
    if (!m) return null
    host = m[1]!
    path = m[2]!
    if (/^\d+\//.test(path)) path = path.replace(/^\d+\//, '') // host:22/owner/repo, as some tools write it
  }
  host = host.toLowerCase()
  if (host === '' || host === '[]') return null
  path = path.split(/[?#]/, 1)[0]!
  const parts = path
    .split('/')
    .map((p) => safeDecode(p))
    .filter((p) => p !== '' && p !== '.')
  if (parts.length === 0) return null
  const last = parts.length - 1
  parts[last] = parts[last]!.replace(/\.git$/i, '')
  if (parts[last] === '') parts.pop()
  if (parts.length === 0) return null
  if (parts.some((p) => p === '..' || /[\s\\]/.test(p))) return null
  return [host, ...parts].join('/').toLowerCase()
}

function stripUserAndPort(authority: string): string {
  const at = authority.lastIndexOf('@')
  let hostPort = at === -1 ? authority : authority.slice(at + 1)
  if (hostPort.startsWith('[')) {
    const end = hostPort.indexOf(']')
    return end === -1 ? '' : hostPort.slice(0, end + 1)
  }
  const colon = hostPort.indexOf(':')
  if (colon !== -1) hostPort = hostPort.slice(0, colon)
  return hostPort
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    return part
  }
}

/** The default project name for a canonical remote: its last path part. */
export function remoteName(canonical: string): string {
  const parts = canonical.split('/')
  return parts[parts.length - 1] ?? canonical
}
