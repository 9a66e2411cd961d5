/**
 * @module What the daemon benchmarks share: `kb daemon run` spawned on a data directory (or a PostgreSQL
 * database) and timed until /health answers, requests with the owner key, latency quantiles, a process's
 * memory, a bare node:http server to compare throughput with, and the machine the numbers come from.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {closeSync, existsSync, openSync, readFileSync, rmSync} from 'node:fs'
import {cpus, freemem, loadavg, totalmem} from 'node:os'
import {join} from 'node:path'
import {dataFiles} from '../src/shared/paths.js'
import {projectRoot, quantile} from './cranfield.js'

const KB_BIN = join(projectRoot(), 'bin/run.js')

export interface RunningDaemon {
  url: string
  child: ChildProcess
  stop(): Promise<void>
}

/**
 * Spawns `kb daemon run` on the directory (port 0, default log level, log to a file), on the PostgreSQL
 * database `storeUrl` if given, from `bin` (another checkout's, for a baseline); resolves once /health answers.
 */
export async function spawnDaemon(dataDir: string, storeUrl?: string, bin = KB_BIN): Promise<RunningDaemon & {startMs: number}> {
  const files = dataFiles(dataDir)
  rmSync(files.daemonJson, {force: true})
  const log = openSync(join(dataDir, 'bench-daemon.log'), 'a')
  const started = performance.now()
  const storeArgs = storeUrl ? ['--store-url', storeUrl] : []
  const child = spawn(process.execPath, [bin, 'daemon', 'run', '--port', '0', '--data-dir', dataDir, ...storeArgs], {
    stdio: ['ignore', 'ignore', log],
  })
  closeSync(log)
  const exited = new Promise<void>((res) => child.once('exit', () => res()))
  let url = ''
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(
        `the daemon exited with ${child.exitCode}:\n${readFileSync(join(dataDir, 'bench-daemon.log'), 'utf8').split('\n').slice(-5).join('\n')}`,
      )
    }
    if (performance.now() - started > 60_000) throw new Error('the daemon did not answer /health within 60 s')
    if (!url && existsSync(files.daemonJson)) {
      try {
        url = (JSON.parse(readFileSync(files.daemonJson, 'utf8')) as {url: string}).url
      } catch {
        // written but not complete yet
      }
    }
    if (url) {
      try {
        if ((await fetch(`${url}/health`)).ok) break
      } catch {
        // not listening yet
      }
    }
    await new Promise((r) => setTimeout(r, 2))
  }
  const startMs = performance.now() - started
  return {
    url,
    child,
    startMs,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

export interface Latency {
  p50: number
  p95: number
  p99: number
  n: number
}

export function latency(ms: number[]): Latency {
  return {p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), p99: quantile(ms, 0.99), n: ms.length}
}

export async function call(url: string, key: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url + path, {
    method,
    headers: {authorization: `Bearer ${key}`, ...(body === undefined ? {} : {'content-type': 'application/json'})},
    ...(body === undefined ? {} : {body: JSON.stringify(body)}),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 200)}`)
  return JSON.parse(text)
}

/** A word of the query with two neighbouring letters swapped: what typo tolerance is for. */
export function withTypo(query: string): string {
  const words = query.split(' ')
  const i = words.findIndex((w) => w.length >= 6)
  if (i < 0) return query
  const w = words[i]!
  words[i] = w.slice(0, 2) + w[3] + w[2] + w.slice(4)
  return words.join(' ')
}

/**
 * VmRSS and VmHWM of a process in MB, from /proc (zeros where there is none), and how much of the resident memory is
 * the process's own (RssAnon: heap, stacks) and how much mapped files (RssFile: SQLite's memory-mapped pages, code).
 */
export function memoryOf(pid: number | undefined): {rssMB: number; peakRssMB: number; anonMB: number; fileMB: number} {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0)
    return {rssMB: kb('VmRSS') / 1024, peakRssMB: kb('VmHWM') / 1024, anonMB: kb('RssAnon') / 1024, fileMB: kb('RssFile') / 1024}
  } catch {
    return {rssMB: 0, peakRssMB: 0, anonMB: 0, fileMB: 0}
  }
}

/**
 * The CPU time a process has used so far, in ms, from /proc (user + system; 0 where there is none): what a request
 * costs a daemon whatever else the machine runs, as a mean over many requests (the clock ticks every 10 ms).
 */
export function cpuMsOf(pid: number | undefined): number {
  try {
    // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th of them.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
  } catch {
    return 0
  }
}

/** Linux's USER_HZ: the unit of /proc's CPU times. */
const CLOCK_TICKS = 100

/** A bare node:http server answering every request with the given JSON body, in its own process. */
export async function bareServer(body: string): Promise<{url: string; stop: () => Promise<void>}> {
  const code = `
    const body = Buffer.from(process.env.BODY)
    const server = require('node:http').createServer((req, res) => {
      res.writeHead(200, {'content-type': 'application/json; charset=utf-8', 'content-length': body.length})
      res.end(body)
    })
    server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'))
    process.on('SIGTERM', () => server.close(() => process.exit(0)))`
  const child = spawn(process.execPath, ['-e', code], {env: {...process.env, BODY: body}, stdio: ['ignore', 'pipe', 'inherit']})
  const port = await new Promise<string>((res, rej) => {
    child.stdout!.once('data', (d: Buffer) => res(d.toString().trim()))
    child.once('exit', (c) => rej(new Error(`bare server exited with ${c}`)))
  })
  const exited = new Promise<void>((res) => child.once('exit', () => res()))
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** What a benchmark's result names of the machine it ran on (docs/performance.md). */
export interface Machine {
  date: string
  cpu: string
  memory: string
  node: string
  /** The load averages over 1, 5 and 15 minutes. */
  load: string
}

export function machine(): Machine {
  return {
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    cpu: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB (${(freemem() / 2 ** 30).toFixed(1)} free)`,
    node: process.version,
    load: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  }
}
