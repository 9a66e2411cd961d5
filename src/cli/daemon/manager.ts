/**
 * @module The local daemon seen from the CLI: is it up (`/health`), start it detached, stop it, and the
 * autostart rule — a loopback base URL whose `/health` does not answer gets a daemon on that port with
 * the default data directory; one of another version is replaced, when we know it is ours.
 */
import {spawn} from 'node:child_process'
import {closeSync, mkdirSync, openSync, readFileSync, statSync, readSync} from 'node:fs'
import {join} from 'node:path'
import {KbError} from '../../shared/errors.js'
import {dataDir, dataFiles, type DaemonInfo} from '../../shared/paths.js'
import type {Health} from '../../shared/types.js'
import {httpClient} from '../client/http-transport.js'
import {probeDaemonIfUp, type DaemonProbe} from './proof.js'

/** "Local" means a loopback host, whatever the port (docs/architecture.md). */
export function isLoopbackUrl(baseUrl: string): boolean {
  let host: string
  try {
    host = new URL(baseUrl).hostname.toLowerCase()
  } catch {
    return false
  }
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
}

export function autostartEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.KB_NO_AUTOSTART
  return v === undefined || v === '' || v === '0' || v.toLowerCase() === 'false'
}

export function readDaemonInfo(dir: string = dataDir()): DaemonInfo | null {
  try {
    const info = JSON.parse(readFileSync(dataFiles(dir).daemonJson, 'utf8')) as DaemonInfo
    return typeof info.pid === 'number' && typeof info.url === 'string' ? info : null
  } catch {
    return null
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** `/health` of a base URL, or null when nothing answers. */
export async function probeHealth(baseUrl: string, timeoutMs = 2000): Promise<Health | null> {
  try {
    return await httpClient({baseUrl, key: null}).health(timeoutMs)
  } catch (e) {
    if (e instanceof KbError && e.code === 'unreachable') return null
    throw e
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

function sameServer(a: string, b: string): boolean {
  try {
    const x = new URL(a)
    const y = new URL(b)
    const loop = (h: string): string => (h === 'localhost' ? '127.0.0.1' : h)
    return loop(x.hostname) === loop(y.hostname) && x.port === y.port
  } catch {
    return false
  }
}

function startTimeoutMs(env: NodeJS.ProcessEnv): number {
  const n = Number(env.KB_AUTOSTART_TIMEOUT_MS)
  return Number.isFinite(n) && n > 0 ? n : 5000
}

/** The last non-empty lines of the daemon log, to explain a failed start. */
export function logTail(path: string, lines = 20): string[] {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return []
  }
  try {
    const size = statSync(path).size
    const len = Math.min(size, 64 * 1024)
    const buf = Buffer.alloc(len)
    readSync(fd, buf, 0, len, size - len)
    return buf
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(-lines)
  } finally {
    closeSync(fd)
  }
}

/** A JSON log line's `msg` (pino), or the line itself. */
function logMessage(line: string): string {
  try {
    const o = JSON.parse(line) as {msg?: string; err?: {message?: string}}
    return o.err?.message ? `${o.msg ?? ''}: ${o.err.message}` : (o.msg ?? line)
  } catch {
    return line
  }
}

export interface StartOptions {
  baseUrl: string
  /** The package root (holds bin/run.js). */
  root: string
  env?: NodeJS.ProcessEnv
}

/**
 * Spawns `kb daemon run` detached on the base URL's port, logging to `<data dir>/daemon.log`, and waits
 * (≤ 5 s) until `/health` answers.
 */
export async function spawnDaemon(o: StartOptions): Promise<DaemonProbe> {
  const env = o.env ?? process.env
  const dir = dataDir(env)
  const files = dataFiles(dir)
  const u = new URL(o.baseUrl)
  const host = u.hostname === 'localhost' ? '127.0.0.1' : u.hostname.replace(/^\[|\]$/g, '')
  const port = u.port || '80'
  mkdirSync(dir, {recursive: true, mode: 0o700})
  const log = openSync(files.log, 'a', 0o600)
  const startedAt = Date.now()
  const child = spawn(
    process.execPath,
    [join(o.root, 'bin', 'run.js'), 'daemon', 'run', '--port', port, '--host', host, '--data-dir', dir, '--log-file', files.log],
    {
      detached: true,
      stdio: ['ignore', log, log],
      env: {...env, KB_NO_AUTOSTART: '1'},
    },
  )
  closeSync(log)
  let exitCode: number | null | undefined
  child.once('exit', (code, signal) => {
    exitCode = code ?? (signal ? -1 : null)
  })
  child.once('error', () => {
    exitCode = -1
  })
  child.unref()
  const deadline = startedAt + startTimeoutMs(env)
  while (Date.now() < deadline) {
    const h = await probeDaemonIfUp(o.baseUrl, dir, 500)
    if (h) return h
    if (exitCode !== undefined) {
      // It died: maybe another CLI won the race for the lock and its daemon is coming up.
      const again = await waitForHealth(o.baseUrl, dir, Math.min(deadline, Date.now() + 1500))
      if (again) return again
      const why = logTail(files.log, 5).map(logMessage).pop() ?? `exit code ${exitCode}`
      throw new KbError('unreachable', `could not start the kb daemon on ${u.host}: ${why}; see \`kb daemon logs\``)
    }
    await sleep(50)
  }
  throw new KbError(
    'unreachable',
    `the kb daemon started for ${u.host} did not answer within ${Math.round(startTimeoutMs(env) / 1000)} s; see \`kb daemon logs\` (${files.log})`,
  )
}

async function waitForHealth(baseUrl: string, dir: string, until: number): Promise<DaemonProbe | null> {
  while (Date.now() < until) {
    const h = await probeDaemonIfUp(baseUrl, dir, 500)
    if (h) return h
    await sleep(100)
  }
  return null
}

/** SIGTERM to the daemon recorded in daemon.json, then wait (≤ 10 s) for it to exit. */
export async function stopDaemon(dir: string = dataDir()): Promise<{stopped: boolean; pid: number | null; info: DaemonInfo | null}> {
  const info = readDaemonInfo(dir)
  let pid = info?.pid ?? null
  if (pid === null) {
    // No daemon.json (e.g. killed hard): the lock file still names the process.
    try {
      const p = Number.parseInt(readFileSync(dataFiles(dir).lock, 'utf8'), 10)
      if (Number.isInteger(p) && p > 0) pid = p
    } catch {
      // nothing recorded
    }
  }
  if (pid === null || !isAlive(pid)) return {stopped: false, pid: null, info}
  process.kill(pid, 'SIGTERM')
  const deadline = Date.now() + 10_000
  while (isAlive(pid) && Date.now() < deadline) await sleep(50)
  if (isAlive(pid))
    throw new KbError('internal', `the kb daemon (pid ${pid}) did not stop within 10 s after SIGTERM; stop it with \`kill -9 ${pid}\``)
  return {stopped: true, pid, info}
}

/**
 * Makes sure a daemon of this CLI's version answers at a local base URL (autostart). Returns a warning
 * to print when an other-version daemon that we did not start had to be left alone, and the last
 * challenged `/health` answer (whether the daemon proved it owns the data directory).
 */
export async function ensureDaemon(
  o: StartOptions & {cliVersion: string; onStart?: () => void},
): Promise<{started: boolean; warning?: string; probe: DaemonProbe}> {
  const env = o.env ?? process.env
  const dir = dataDir(env)
  const p = await probeDaemonIfUp(o.baseUrl, dir, 2000)
  // Something that is not kb holds the port: nothing to replace; no credential will go to it.
  if (p && (!p.health || p.health.version === o.cliVersion)) return {started: false, probe: p}
  if (p?.health) {
    const info = readDaemonInfo(dir)
    // Never our own parent: a program (or test runner) that embeds the daemon and runs kb under it.
    if (!info || !sameServer(info.url, o.baseUrl) || !isAlive(info.pid) || info.pid === process.ppid) {
      return {
        started: false,
        probe: p,
        warning: `the daemon at ${new URL(o.baseUrl).host} runs kb ${p.health.version}, this CLI is ${o.cliVersion}; it was not started from ${dir}, so it was left running`,
      }
    }
    await stopDaemon(dir)
  }
  o.onStart?.()
  return {started: true, probe: await spawnDaemon(o)}
}
