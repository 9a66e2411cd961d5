/**
 * @module The daemon's benchmarks, in one run so that ratios share the machine's conditions:
 * create / get-by-id / search latency at each store size (entries bulk-loaded through the driver; one
 * built `kb daemon run` per size, logging at its default level to a file, all running at once and
 * answering requests in turn, so that load on this shared machine hits every size alike), HTTP
 * throughput of GET /knowledge/:id against a bare node:http server (autocannon), and start-up time on
 * the largest store. Usage: `node dist/bench/daemon.bench.js [--sizes 1000,10000,100000] [--seconds 10] [--json]`.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {closeSync, cpSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync} from 'node:fs'
import {cpus, freemem, loadavg, tmpdir, totalmem} from 'node:os'
import {join} from 'node:path'
import autocannon from 'autocannon'
import {dataFiles} from '../src/shared/paths.js'
import {loadEntries, prepareDataDir} from './bulk-load.js'
import {corpus} from './corpus.js'
import {projectRoot, quantile} from './cranfield.js'

const ROOT = projectRoot()
const KB_BIN = join(ROOT, 'bin/run.js')
const args = process.argv.slice(2)
const option = (name: string, fallback: string): string => (args.includes(name) ? (args[args.indexOf(name) + 1] ?? fallback) : fallback)
const SIZES = option('--sizes', '1000,10000,100000').split(',').map(Number)
const AUTOCANNON_SECONDS = Number(option('--seconds', '10'))
const asJson = args.includes('--json')

const GOALS = {createRatio: 2, throughputRatio: 0.5, startSeconds: 3}

interface RunningDaemon {
  url: string
  child: ChildProcess
  stop(): Promise<void>
}

/** Spawns `kb daemon run` on the directory (port 0, default log level, log to a file); resolves once /health answers. */
async function spawnDaemon(dataDir: string): Promise<RunningDaemon & {startMs: number}> {
  const files = dataFiles(dataDir)
  rmSync(files.daemonJson, {force: true})
  const log = openSync(join(dataDir, 'bench-daemon.log'), 'a')
  const started = performance.now()
  const child = spawn(process.execPath, [KB_BIN, 'daemon', 'run', '--port', '0', '--data-dir', dataDir], {stdio: ['ignore', 'ignore', log]})
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

interface Latency {
  p50: number
  p99: number
  n: number
}

function latency(ms: number[]): Latency {
  return {p50: quantile(ms, 0.5), p99: quantile(ms, 0.99), n: ms.length}
}

async function call(url: string, key: string, method: string, path: string, body?: unknown): Promise<unknown> {
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
function withTypo(query: string): string {
  const words = query.split(' ')
  const i = words.findIndex((w) => w.length >= 6)
  if (i < 0) return query
  const w = words[i]!
  words[i] = w.slice(0, 2) + w[3] + w[2] + w.slice(4)
  return words.join(' ')
}

interface SizeResult {
  entries: number
  dbMB: number
  create: Latency
  get: Latency
  search: Latency
  /** The daemon's resident memory after the measurements, and its peak (Linux /proc; 0 elsewhere). */
  rssMB: number
  peakRssMB: number
}

/** VmRSS and VmHWM of a process in MB, from /proc (zeros where there is none). */
function memoryOf(pid: number | undefined): {rssMB: number; peakRssMB: number} {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0)
    return {rssMB: kb('VmRSS') / 1024, peakRssMB: kb('VmHWM') / 1024}
  } catch {
    return {rssMB: 0, peakRssMB: 0}
  }
}

interface Store {
  entries: number
  dataDir: string
  ids: string[]
}

/**
 * Measures every store with its own daemon running side by side, requests taking turns between them,
 * so that a change in the machine's load (it is shared) shows in every size alike and ratios hold.
 */
async function measureSizes(stores: Store[], key: string): Promise<SizeResult[]> {
  const daemons: RunningDaemon[] = []
  try {
    for (const s of stores) daemons.push(await spawnDaemon(s.dataDir))
    const c = corpus(42)
    const timings = stores.map(() => ({create: [] as number[], get: [] as number[], search: [] as number[]}))
    const round = async (
      kind: 'create' | 'get' | 'search',
      n: number,
      warmup: number,
      op: (d: RunningDaemon, s: Store, i: number) => Promise<void>,
    ): Promise<void> => {
      for (let i = 0; i < warmup + n; i++) {
        for (let k = 0; k < stores.length; k++) {
          const t = performance.now()
          await op(daemons[k]!, stores[k]!, i)
          if (i >= warmup) timings[k]![kind].push(performance.now() - t)
        }
      }
    }
    await round('create', 200, 20, async (d, _s, i) => {
      const e = c.entry(10_000_000 + i)
      await call(d.url, key, 'POST', '/knowledge', {title: e.title, body: e.body, tags: e.tags})
    })
    let seed = 1
    await round('get', 1000, 50, async (d, s) => {
      seed = (seed * 48271) % 2147483647
      await call(d.url, key, 'GET', `/knowledge/${s.ids[seed % s.ids.length]}`)
    })
    await round('search', 200, 20, async (d, _s, i) => {
      const q = i % 4 === 3 ? withTypo(c.shortQuery(i)) : c.shortQuery(i)
      await call(d.url, key, 'GET', `/search?q=${encodeURIComponent(q)}`)
    })
    return stores.map((s, k) => ({
      entries: s.entries,
      dbMB: statSync(dataFiles(s.dataDir).db).size / 1e6,
      create: latency(timings[k]!.create),
      get: latency(timings[k]!.get),
      search: latency(timings[k]!.search),
      ...memoryOf(daemons[k]!.child.pid),
    }))
  } finally {
    for (const d of daemons) await d.stop()
  }
}

/** A bare node:http server answering every request with the given JSON body, in its own process. */
async function bareServer(body: string): Promise<{url: string; stop: () => Promise<void>}> {
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

async function throughput(
  dataDir: string,
  key: string,
  ids: string[],
): Promise<{kb: number; bare: number; kbP99: number; bareP99: number; bytes: number}> {
  const d = await spawnDaemon(dataDir)
  try {
    const sample = JSON.stringify(await call(d.url, key, 'GET', `/knowledge/${ids[0]}`))
    let n = 0
    const kb = await autocannon({
      url: d.url,
      connections: 10,
      duration: AUTOCANNON_SECONDS,
      headers: {authorization: `Bearer ${key}`},
      requests: [{method: 'GET', setupRequest: (req) => ({...req, path: `${new URL(d.url).pathname}/knowledge/${ids[n++ % ids.length]}`})}],
    })
    if (kb.errors > 0 || kb.non2xx > 0) throw new Error(`kb answered ${kb.non2xx} non-2xx and ${kb.errors} errors under load`)
    const bare = await bareServer(sample)
    try {
      const b = await autocannon({url: `${bare.url}/knowledge/x`, connections: 10, duration: AUTOCANNON_SECONDS})
      return {
        kb: kb.requests.average,
        bare: b.requests.average,
        kbP99: kb.latency.p99,
        bareP99: b.latency.p99,
        bytes: Buffer.byteLength(sample),
      }
    } finally {
      await bare.stop()
    }
  } finally {
    await d.stop()
  }
}

function machine(): Record<string, string> {
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

async function main(): Promise<void> {
  const before = machine()
  const root = mkdtempSync(join(tmpdir(), 'kb-bench-'))
  const dir = join(root, 'largest')
  try {
    // One directory grows through the sizes; a copy is kept at each smaller size.
    const stores: Store[] = []
    let prepared: Awaited<ReturnType<typeof prepareDataDir>> | null = null
    const ids: string[] = []
    let loaded = 0
    for (const [k, size] of SIZES.entries()) {
      const t = performance.now()
      if (!prepared) {
        prepared = await prepareDataDir(dir, size)
        ids.push(...prepared.ids)
      } else {
        ids.push(...(await loadEntries(dir, loaded, size)))
      }
      loaded = size
      if (!asJson) process.stderr.write(`loaded ${size} entries in ${((performance.now() - t) / 1000).toFixed(1)} s\n`)
      const last = k === SIZES.length - 1
      const copy = last ? dir : join(root, String(size))
      if (!last) cpSync(dir, copy, {recursive: true})
      stores.push({entries: size, dataDir: copy, ids: [...ids]})
    }
    if (!asJson) process.stderr.write('measuring all sizes side by side…\n')
    const sizes = await measureSizes(stores, prepared!.ownerKey)
    const key = prepared!.ownerKey
    if (!asJson) process.stderr.write('throughput…\n')
    const tp = await throughput(dir, key, ids)
    if (!asJson) process.stderr.write('start-up…\n')
    const starts: number[] = []
    for (let i = 0; i < 5; i++) {
      const d = await spawnDaemon(dir)
      starts.push(d.startMs)
      await d.stop()
    }
    const startMs = quantile(starts, 0.5)
    const first = sizes[0]!
    const last = sizes.at(-1)!
    const createRatio = last.create.p50 / first.create.p50
    const tpRatio = tp.kb / tp.bare
    const result = {
      machine: {...before, loadAfter: machine().load},
      sizes,
      throughput: {...tp, ratio: tpRatio},
      start: {medianMs: startMs, runs: starts, entries: loaded},
      createRatio,
    }
    if (asJson) {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
      return
    }
    const f = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(2))
    console.log(
      `Daemon benchmarks, ${before.date}: ${before.cpu}, ${before.memory}, Node ${before.node}, load ${before.load} → ${result.machine.loadAfter}\n`,
    )
    console.log('| entries | DB MB | create p50 / p99 ms | get p50 / p99 ms | search p50 / p99 ms | daemon RSS / peak MB |')
    console.log('|---:|---:|---:|---:|---:|---:|')
    for (const s of sizes) {
      console.log(
        `| ${s.entries.toLocaleString('en')} | ${s.dbMB.toFixed(0)} | ${f(s.create.p50)} / ${f(s.create.p99)} | ${f(s.get.p50)} / ${f(s.get.p99)} | ${f(s.search.p50)} / ${f(s.search.p99)} | ${s.rssMB.toFixed(0)} / ${s.peakRssMB.toFixed(0)} |`,
      )
    }
    const mark = (ok: boolean): string => (ok ? '✓' : '✗')
    console.log(
      `\ncreate p50 at ${last.entries.toLocaleString('en')} ÷ at ${first.entries.toLocaleString('en')}: ${createRatio.toFixed(2)}× (goal ≤ ${GOALS.createRatio}× ${mark(createRatio <= GOALS.createRatio)})`,
    )
    console.log(
      `GET /knowledge/:id throughput (autocannon, 10 connections, ${AUTOCANNON_SECONDS} s, ${tp.bytes}-byte body): kb ${tp.kb.toFixed(0)} req/s (p99 ${tp.kbP99} ms), bare node:http ${tp.bare.toFixed(0)} req/s (p99 ${tp.bareP99} ms): ${tpRatio.toFixed(2)}× (goal ≥ ${GOALS.throughputRatio} ${mark(tpRatio >= GOALS.throughputRatio)})`,
    )
    console.log(
      `daemon start until /health answers, ${loaded.toLocaleString('en')} entries: median ${startMs.toFixed(0)} ms of ${starts.map((s) => s.toFixed(0)).join(', ')} (goal ≤ ${GOALS.startSeconds} s ${mark(startMs <= GOALS.startSeconds * 1000)})`,
    )
  } finally {
    rmSync(root, {recursive: true, force: true})
  }
}

await main()
