/**
 * @module Who listens on a local TCP port, to name the process in a port-conflict error: on Linux the
 * socket's owner from /proc/net/tcp{,6} and, when it is one of ours, its pid. Elsewhere nothing is known.
 * Only read on the error path.
 */
import {readdirSync, readFileSync, readlinkSync} from 'node:fs'

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

/** An IPv4 address as /proc/net/tcp writes it (little-endian hex), e.g. 127.0.0.1 → 0100007F. */
function procAddress(address: string): string | null {
  const m = /^(?:::ffff:)?(\d+)\.(\d+)\.(\d+)\.(\d+)$/i.exec(address)
  return m
    ? m
        .slice(1)
        .reverse()
        .map((n) => Number(n).toString(16).toUpperCase().padStart(2, '0'))
        .join('')
    : null
}

/**
 * The uid and socket inode of the listener on `port`, from the kernel's socket tables: the one on
 * `address` when it is known, else the first.
 */
function listener(port: number, address: string | undefined): {uid: number; inode: string} | null {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0')
  const exact = address ? procAddress(address) : null
  let first: {uid: number; inode: string} | null = null
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of read(table).split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode; st 0A is LISTEN
      if (f.length <= 9 || f[3] !== '0A' || !f[1]!.endsWith(`:${hexPort}`)) continue
      const found = {uid: Number(f[7]), inode: f[9]!}
      if (exact && f[1] === `${exact}:${hexPort}`) return found
      first ??= found
    }
  }
  return first
}

function userName(uid: number): string | null {
  for (const line of read('/etc/passwd').split('\n')) {
    const f = line.split(':')
    if (f.length > 2 && Number(f[2]) === uid && f[2] !== '') return f[0]!
  }
  return null
}

/** A process with the socket open: only our own processes' descriptors can be read. */
function pidOf(inode: string): number | null {
  const target = `socket:[${inode}]`
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n))
  } catch {
    return null
  }
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return Number(pid)
      } catch {
        // closed meanwhile
      }
    }
  }
  return null
}

/** E.g. "user mallory (uid 1001)" or "pid 4242 (python3) of user ada (uid 1000)"; null when unknown. */
export function portHolder(port: number, address?: string): string | null {
  const l = listener(port, address)
  if (!l) return null
  const name = userName(l.uid)
  const user = `user ${name ?? '?'} (uid ${l.uid})`
  const pid = l.uid === process.getuid?.() ? pidOf(l.inode) : null
  if (pid === null) return user
  const comm = read(`/proc/${pid}/comm`).trim()
  return `pid ${pid}${comm ? ` (${comm})` : ''} of ${user}`
}
