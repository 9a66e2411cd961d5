/**
 * @module The daemon's benchmarks, in one run so that ratios share the machine's conditions:
 * create / get-by-id / search latency at growing store sizes (entries bulk-loaded through the driver,
 * requests through HTTP to the built `kb daemon run`, logging at its default level to a file), HTTP
 * throughput of GET /knowledge/:id against a bare node:http server (autocannon), and start-up time on
 * the largest store. Usage: `node dist/bench/daemon.bench.js [--sizes 1000,10000,100000] [--json]`.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync} from 'node:fs'
import {cpus, freemem, loadavg, tmpdir, totalmem} from 'node:os'
import {join} from 'node:path'
import autocannon from 'autocannon'
import {dataFiles} from '../src/api/paths.js'
import {loadEntries, prepareDataDir} from './bulk-load.js'
import {corpus} from './corpus.js'
import {projectRoot, quantile} from './cranfield.js'

const ROOT = projectRoot()
const KB_BIN = join(ROOT, 'bin/run.js')
const args = process.argv.slice(2)
const option = (name: string, fallback: string): string => (args.includes(name) ? args[args.indexOf(name) + 1] ?? fallback : fallback)
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
    if (child.exitCode !== null) throw new Error(`the daemon exited with ${child.exitCode}; see ${join(dataDir, 'bench-daemon.log')}`)
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
    url, child, startMs,
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

async function time(n: number, warmup: number, op: (i: number) => Promise<void>): Promise<Latency> {
  for (let i = 0; i < warmup; i++) await op(i)
  const ms: number[] = []
  for (let i = warmup; i < warmup + n; i++) {
    const t = performance.now()
    await op(i)
    ms.push(performance.now() - t)
  }
  return {p50: quantile(ms, 0.5), p99: quantile(ms, 0.99), n}
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
}

async function measureSize(dataDir: string, key: string, ids: string[], entries: number, createFrom: number): Promise<SizeResult> {
  const d = await spawnDaemon(dataDir)
  try {
    const c = corpus(42)
    const create = await time(200, 20, async (i) => {
      const e = c.entry(createFrom + i)
      await call(d.url, key, 'POST', '/knowledge', {title: e.title, body: e.body, tags: e.tags})
    })
    let seed = 1
    const nextId = (): string => {
      seed = (seed * 48271) % 2147483647
      return ids[seed % ids.length]!
    }
    const get = await time(1000, 50, async () => {
      await call(d.url, key, 'GET', `/knowledge/${nextId()}`)
    })
    const search = await time(200, 20, async (i) => {
      const q = i % 4 === 3 ? withTypo(c.shortQuery(i)) : c.shortQuery(i)
      await call(d.url, key, 'GET', `/search?q=${encodeURIComponent(q)}`)
    })
    return {entries, dbMB: statSync(dataFiles(dataDir).db).size / 1e6, create, get, search}
  } finally {
    await d.stop()
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
  return {url: `http://127.0.0.1:${port}`, stop: async () => {
    child.kill('SIGTERM')
    await exited
  }}
}

async function throughput(dataDir: string, key: string, ids: string[]): Promise<{kb: number; bare: number; kbP99: number; bareP99: number; bytes: number}> {
  const d = await spawnDaemon(dataDir)
  try {
    const sample = JSON.stringify(await call(d.url, key, 'GET', `/knowledge/${ids[0]}`))
    let n = 0
    const kb = await autocannon({
      url: d.url, connections: 10, duration: AUTOCANNON_SECONDS, headers: {authorization: `Bearer ${key}`},
      requests: [{method: 'GET', setupRequest: (req) => ({...req, path: `${new URL(d.url).pathname}/knowledge/${ids[n++ % ids.length]}`})}],
    })
    if (kb.errors > 0 || kb.non2xx > 0) throw new Error(`kb answered ${kb.non2xx} non-2xx and ${kb.errors} errors under load`)
    const bare = await bareServer(sample)
    try {
      const b = await autocannon({url: `${bare.url}/knowledge/x`, connections: 10, duration: AUTOCANNON_SECONDS})
      return {kb: kb.requests.average, bare: b.requests.average, kbP99: kb.latency.p99, bareP99: b.latency.p99, bytes: Buffer.byteLength(sample)}
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
    load: loadavg().map((l) => l.toFixed(2)).join(' '),
  }
}

async function main(): Promise<void> {
  const before = machine()
  const dir = mkdtempSync(join(tmpdir(), 'kb-bench-'))
  try {
    const sizes: SizeResult[] = []
    let loaded = 0
    let prepared: Awaited<ReturnType<typeof prepareDataDir>> | null = null
    const ids: string[] = []
    let created = 10_000_000
    for (const size of SIZES) {
      const t = performance.now()
      if (!prepared) {
        prepared = await prepareDataDir(dir, size)
        ids.push(...prepared.ids)
      } else {
        ids.push(...(await loadEntries(dir, loaded, size)))
      }
      loaded = size
      if (!asJson) process.stderr.write(`loaded ${size} entries in ${((performance.now() - t) / 1000).toFixed(1)} s; measuring…\n`)
      sizes.push(await measureSize(dir, prepared.ownerKey, ids, size, created))
      created += 1_000
    }
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
    const result = {machine: {...before, loadAfter: machine().load}, sizes, throughput: {...tp, ratio: tpRatio}, start: {medianMs: startMs, runs: starts, entries: loaded}, createRatio}
    if (asJson) {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
      return
    }
    const f = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(2))
    console.log(`Daemon benchmarks, ${before.date}: ${before.cpu}, ${before.memory}, Node ${before.node}, load ${before.load} → ${result.machine.loadAfter}\n`)
    console.log('| entries | DB MB | create p50 / p99 ms | get p50 / p99 ms | search p50 / p99 ms |')
    console.log('|---:|---:|---:|---:|---:|')
    for (const s of sizes) {
      console.log(`| ${s.entries.toLocaleString('en')} | ${s.dbMB.toFixed(0)} | ${f(s.create.p50)} / ${f(s.create.p99)} | ${f(s.get.p50)} / ${f(s.get.p99)} | ${f(s.search.p50)} / ${f(s.search.p99)} |`)
    }
    const mark = (ok: boolean): string => (ok ? '✓' : '✗')
    console.log(`\ncreate p50 at ${last.entries.toLocaleString('en')} ÷ at ${first.entries.toLocaleString('en')}: ${createRatio.toFixed(2)}× (goal ≤ ${GOALS.createRatio}× ${mark(createRatio <= GOALS.createRatio)})`)
    console.log(`GET /knowledge/:id throughput (autocannon, 10 connections, ${AUTOCANNON_SECONDS} s, ${tp.bytes}-byte body): kb ${tp.kb.toFixed(0)} req/s (p99 ${tp.kbP99} ms), bare node:http ${tp.bare.toFixed(0)} req/s (p99 ${tp.bareP99} ms): ${tpRatio.toFixed(2)}× (goal ≥ ${GOALS.throughputRatio} ${mark(tpRatio >= GOALS.throughputRatio)})`)
    console.log(`daemon start until /health answers, ${loaded.toLocaleString('en')} entries: median ${startMs.toFixed(0)} ms of ${starts.map((s) => s.toFixed(0)).join(', ')} (goal ≤ ${GOALS.startSeconds} s ${mark(startMs <= GOALS.startSeconds * 1000)})`)
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

await main()
