/**
 * @module Helpers for the CLI tests: the built `kb` binary run as a subprocess with its own HOME, XDG
 * folders and data directory, real git repositories with real remotes, and clean-up of every daemon.
 */
import {execFileSync, spawn} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, rmSync} from 'node:fs'
import {createServer} from 'node:net'
import {join} from 'node:path'
import {KB_BIN, startChildDaemon, tempDir, type ChildDaemon} from '../helpers/daemon.js'

export interface KbEnv {
  root: string
  home: string
  dataDir: string
  env: Record<string, string>
}

/** A fresh user: HOME, XDG config/data dirs and KB_DATA_DIR under one temp dir; no KB_* or CI from outside. */
export function makeUser(extra: Record<string, string> = {}): KbEnv {
  const root = tempDir('kb-cli-')
  const home = join(root, 'home')
  const dataDir = join(root, 'data', 'kb')
  mkdirSync(home, {recursive: true})
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (
      v === undefined ||
      k.startsWith('KB_') ||
      k === 'CI' ||
      k === 'NO_COLOR' ||
      k.startsWith('GIT_') ||
      k === 'DBUS_SESSION_BUS_ADDRESS' ||
      k.startsWith('XDG_')
    )
      continue
    env[k] = v
  }
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: join(root, 'config'),
    XDG_DATA_HOME: join(root, 'data'),
    KB_DATA_DIR: dataDir,
    // Autostart on a loaded 2-core machine can take longer than the 5 s a person waits.
    KB_AUTOSTART_TIMEOUT_MS: '30000',
    GIT_AUTHOR_NAME: 'Ada Tester',
    GIT_AUTHOR_EMAIL: 'ada@example.com',
    GIT_COMMITTER_NAME: 'Ada Tester',
    GIT_COMMITTER_EMAIL: 'ada@example.com',
    GIT_CONFIG_NOSYSTEM: '1',
    ...extra,
  })
  return {root, home, dataDir, env}
}

export interface RunResult {
  code: number | null
  stdout: string
  stderr: string
  ms: number
}

/** Runs `node bin/run.js …args` (stdin: `input`, or /dev/null). */
export function kb(
  user: KbEnv,
  args: string[],
  o: {cwd?: string; input?: string; env?: Record<string, string>; timeoutMs?: number} = {},
): Promise<RunResult> {
  return run(process.execPath, [KB_BIN, ...args], user, o)
}

export function run(
  cmd: string,
  args: string[],
  user: KbEnv,
  o: {cwd?: string; input?: string; env?: Record<string, string>; timeoutMs?: number} = {},
): Promise<RunResult> {
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: o.cwd ?? user.home,
      env: {...user.env, ...o.env},
      stdio: [o.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    // Both are pipes (stdio above); the type cannot tell, as stdin's mode varies.
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${cmd} ${args.join(' ')} did not finish in time\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, o.timeoutMs ?? 40_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, stdout, stderr, ms: Date.now() - started})
    })
    if (o.input !== undefined) child.stdin!.end(o.input)
  })
}

/** A git repository with the given remotes (name → URL) and one commit. */
export function gitRepo(user: KbEnv, name: string, remotes: Record<string, string>): string {
  const dir = join(user.root, name)
  mkdirSync(dir, {recursive: true})
  const g = (...args: string[]): string => execFileSync('git', args, {cwd: dir, env: user.env, encoding: 'utf8'})
  g('init', '-q', '-b', 'main')
  for (const [r, url] of Object.entries(remotes)) g('remote', 'add', r, url)
  g('commit', '-q', '--allow-empty', '-m', 'initial')
  return dir
}

export function git(user: KbEnv, cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {cwd, env: user.env, encoding: 'utf8'}).trim()
}

/**
 * A TCP port that was free a moment ago, below the kernel's ephemeral range (32768+): daemons started
 * with --port 0 by tests running alongside cannot land on it between our check and our use.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    const ok = await new Promise<boolean>((resolve) => {
      const s = createServer()
      s.once('error', () => resolve(false))
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
    })
    if (ok) return port
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Stops a daemon the CLI autostarted for this data directory (SIGTERM, then SIGKILL), and waits. */
async function killDaemonOf(dataDir: string): Promise<void> {
  const pids = new Set<number>()
  for (const f of ['daemon.json', 'daemon.lock']) {
    const p = join(dataDir, f)
    if (!existsSync(p)) continue
    const text = readFileSync(p, 'utf8')
    const pid = f === 'daemon.json' ? (JSON.parse(text) as {pid: number}).pid : Number.parseInt(text, 10)
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid) pids.add(pid)
  }
  for (const pid of pids) {
    if (!alive(pid)) continue
    process.kill(pid, 'SIGTERM')
    const deadline = Date.now() + 10_000
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    if (alive(pid)) process.kill(pid, 'SIGKILL')
  }
}

export async function cleanup(user: KbEnv): Promise<void> {
  await killDaemonOf(user.dataDir)
  rmSync(user.root, {recursive: true, force: true})
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

/**
 * Runs kb under a real pseudo-terminal (util-linux `script`): stdin and stdout are TTYs. Output comes
 * back with the terminal's \r\n turned into \n.
 */
export async function kbTty(
  user: KbEnv,
  args: string[],
  o: {cwd?: string; input?: string; env?: Record<string, string>; cols?: number; rows?: number} = {},
): Promise<RunResult> {
  // A wide terminal by default, so tables are not cut to the 80-column default.
  const cmd = `stty cols ${o.cols ?? 160} rows ${o.rows ?? 40} 2>/dev/null; ${[process.execPath, KB_BIN, ...args].map(shq).join(' ')}`
  const r = await run('script', ['-qefc', cmd, '/dev/null'], user, o)
  return {...r, stdout: r.stdout.replace(/\r\n/g, '\n')}
}

export const ANSI_RE = /\u001B\[[0-9;]*m/

/** A user of its own with a child daemon on that user's data dir, and KB_BASE_URL pointing at it. */
export async function userWithDaemon(extra: Record<string, string> = {}): Promise<{user: KbEnv; d: ChildDaemon}> {
  const user = makeUser(extra)
  const d = await startChildDaemon({dataDir: user.dataDir})
  user.env.KB_BASE_URL = d.url
  return {user, d}
}
