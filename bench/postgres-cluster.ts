/**
 * @module A throw-away PostgreSQL cluster for tests and benchmarks: `initdb` in a temp directory, listening
 * on a free loopback port and a socket directory inside it, trust authentication for its one superuser,
 * removed by `stop`. PostgreSQL refuses to run as root, so as root the cluster belongs to a system user
 * (`kbtest`, created with `useradd` when missing) and its programs run through `runuser`.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import pg from 'pg'

/** The system user a root process runs the cluster as. */
const CLUSTER_USER = 'kbtest'

export interface ClusterOptions {
  /** Where initdb and pg_ctl are; default: the newest /usr/lib/postgresql/<v>/bin, else PATH. */
  binDir?: string
  /** fsync and synchronous_commit on, as a real server runs (benchmarks); off by default, for speed in tests. */
  durable?: boolean
}

export interface PostgresCluster {
  port: number
  dir: string
  /** A URL of database `name` for the cluster's superuser over TCP on 127.0.0.1. */
  url(name?: string): string
  /** Creates a fresh, empty database and returns its URL. */
  createDatabase(prefix?: string): Promise<string>
  /** `pg_ctl restart` (fast shutdown: every connection is cut), or stop and start with a pause between. */
  restart(downMs?: number): Promise<void>
  stopServer(): void
  startServer(): void
  /** Stops the server and removes the directory. */
  stop(): void
}

/** The directory of initdb and pg_ctl: Debian's newest version directory, else wherever PATH finds them. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql'
  if (existsSync(root)) {
    for (const v of readdirSync(root).sort((a, b) => Number(b) - Number(a))) {
      if (existsSync(join(root, v, 'bin', 'initdb'))) return join(root, v, 'bin')
    }
  }
  const found = spawnSync('sh', ['-c', 'command -v initdb'], {encoding: 'utf8'}).stdout.trim()
  return found === '' ? null : found.slice(0, found.lastIndexOf('/'))
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

function asRoot(): boolean {
  return process.getuid?.() === 0
}

/** The uid and gid of the cluster user, created (a system user without a home or a shell) when missing. */
function clusterUser(): {uid: number; gid: number} {
  const id = (flag: string): number => Number(execFileSync('id', [flag, CLUSTER_USER], {encoding: 'utf8'}).trim())
  if (spawnSync('id', ['-u', CLUSTER_USER]).status !== 0) {
    const made = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', CLUSTER_USER], {encoding: 'utf8'})
    // Another test process may have created it meanwhile.
    if (made.status !== 0 && spawnSync('id', ['-u', CLUSTER_USER]).status !== 0)
      throw new Error(`useradd ${CLUSTER_USER} failed: ${made.stderr}`)
  }
  return {uid: id('-u'), gid: id('-g')}
}

/** Runs a PostgreSQL program, as the cluster user when we are root; throws with its output when it fails. */
function run(bin: string, args: string[]): string {
  const [cmd, argv] = asRoot() ? ['runuser', ['-u', CLUSTER_USER, '--', bin, ...args]] : [bin, args]
  const r = spawnSync(cmd, argv, {encoding: 'utf8', timeout: 120_000, cwd: '/'})
  if (r.status !== 0) throw new Error(`${[cmd, ...argv].join(' ')} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`)
  return r.stdout
}

let databases = 0

/** Creates a fresh, empty database through the superuser's URL `admin` and returns its URL. */
export async function createDatabase(admin: string, prefix = 'kb'): Promise<string> {
  const name = `${prefix}_${process.pid}_${++databases}_${Date.now().toString(36)}`
  const client = new pg.Client({connectionString: admin, connectionTimeoutMillis: 30_000})
  await client.connect()
  try {
    await client.query(`CREATE DATABASE ${name}`)
  } finally {
    await client.end()
  }
  const url = new URL(admin)
  url.pathname = `/${name}`
  return url.toString()
}

/** Starts a fresh cluster. Call `stop()` when done: it is a real server with real files. */
export async function startCluster(options: ClusterOptions = {}): Promise<PostgresCluster> {
  const bin = options.binDir ?? postgresBinDir()
  if (!bin) throw new Error('PostgreSQL (initdb, pg_ctl) is not installed')
  const dir = mkdtempSync(join(tmpdir(), 'kb-pg-'))
  const user = asRoot() ? clusterUser() : null
  const superuser = user ? CLUSTER_USER : (process.env.USER ?? 'postgres')
  chmodSync(dir, 0o700)
  if (user) chownSync(dir, user.uid, user.gid)
  const data = join(dir, 'data')
  const log = join(dir, 'server.log')
  const pgCtl = join(bin, 'pg_ctl')
  run(join(bin, 'initdb'), ['-D', data, '-U', superuser, '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync', '--no-instructions'])
  const port = await freePort()
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses='127.0.0.1'",
    '-c max_connections=200',
    '-c shared_buffers=64MB',
    ...(options.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
  ].join(' ')
  const startServer = (): void => void run(pgCtl, ['-D', data, '-l', log, '-o', settings, '-w', '-t', '120', 'start'])
  const stopServer = (): void => void run(pgCtl, ['-D', data, '-m', 'fast', '-w', '-t', '120', 'stop'])
  startServer()
  const url = (name = 'postgres'): string => `postgres://${superuser}@127.0.0.1:${port}/${name}`
  let stopped = false
  return {
    port,
    dir,
    url,
    startServer,
    stopServer,
    createDatabase: (prefix) => createDatabase(url(), prefix),
    async restart(downMs = 0) {
      stopServer()
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs))
      startServer()
    },
    stop() {
      if (stopped) return
      stopped = true
      try {
        run(pgCtl, ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop'])
      } catch {
        // not running (a test stopped it): the directory goes all the same
      }
      rmSync(dir, {recursive: true, force: true})
    },
  }
}
