/**
 * @module A million entries (issue 30): per driver, a store of the largest size and one of the baseline size
 * (10k), bulk-loaded through the driver (bench/bulk-load.ts) with the load timed; then both daemons running at
 * once, requests taking turns between them (so the shared machine's load hits both alike): create, get by id
 * and search p50 / p99; the store's size on disk; the large daemon's start-up until /health answers (the first
 * start after the load, then four more) and its resident memory after the measurements. Goals at the largest
 * size: search p50 ≤ 30 ms, create and get p50 within 1.5× of the baseline's, start-up ≤ 2 s, RSS ≤ 600 MB.
 * Usage: `npm run bench:scale` or `node dist/bench/scale.bench.js [--sizes 1000000] [--baseline 10000]
 * [--store sqlite,postgres] [--json FILE]`; with `npm run bench -- --sizes 1000000` the largest size given is used.
 */
import {existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import pg from 'pg'
import {dataFiles} from '../src/shared/paths.js'
import {prepareDataDir, type PreparedDir} from './bulk-load.js'
import {quantile} from './cranfield.js'
import {type Latency, latency, machine, type Machine, memoryOf, type RunningDaemon, spawnDaemon} from './daemon-harness.js'
import {type PostgresCluster, startCluster} from './postgres-cluster.js'
import {measureRounds} from './rounds.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: string): string => (args.includes(name) ? (args[args.indexOf(name) + 1] ?? fallback) : fallback)
const LARGEST = Math.max(...option('--sizes', '1000000').split(',').map(Number))
const BASELINE = Number(option('--baseline', '10000'))
const KINDS = option('--store', 'sqlite,postgres').split(',') as Array<'sqlite' | 'postgres'>
const JSON_FILE = args.includes('--json') ? option('--json', '') : ''

/** Issue 30's goals at a million entries. */
const GOALS = {searchP50Ms: 30, ratio: 1.5, startMs: 2_000, rssMB: 600}

interface Measured {
  kind: 'sqlite' | 'postgres'
  entries: number
  loadSeconds: number
  storeMB: number
  create: Latency
  get: Latency
  search: Latency
  rssMB: number
  peakRssMB: number
  /** Of the resident memory: the process's own, and mapped files (SQLite's memory map of the database). */
  anonMB: number
  fileMB: number
  /** The large daemon only: the first start after the load, then four more. */
  startMs: number[]
}

const log = (line: string): void => void process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`)

/** A store of `count` entries, its load timed and its progress logged every 50,000 entries. */
async function load(
  kind: Measured['kind'],
  dir: string,
  count: number,
  cluster: PostgresCluster | null,
): Promise<PreparedDir & {seconds: number}> {
  const url = kind === 'postgres' ? await cluster!.createDatabase(`scale_${count}`) : undefined
  const t = performance.now()
  let done = 0
  let next = 50_000
  const prepared = await prepareDataDir(dir, count, url, 42, (n) => {
    done += n
    if (done < next) return
    next += 50_000
    const s = (performance.now() - t) / 1000
    log(`${kind}: ${done.toLocaleString('en')} of ${count.toLocaleString('en')} in ${s.toFixed(0)} s (${(done / s).toFixed(0)}/s)`)
  })
  const seconds = (performance.now() - t) / 1000
  log(`${kind}: loaded ${count.toLocaleString('en')} entries in ${seconds.toFixed(1)} s`)
  return {...prepared, seconds}
}

async function storeMB(p: PreparedDir): Promise<number> {
  if (!p.storeUrl) {
    const db = dataFiles(p.dataDir).db
    const size = (f: string): number => (existsSync(f) ? statSync(f).size : 0)
    return (size(db) + size(`${db}-wal`)) / 1e6
  }
  const client = new pg.Client(p.storeUrl)
  await client.connect()
  try {
    return Number((await client.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n) / 1e6
  } finally {
    await client.end()
  }
}

/** Both daemons at once, requests in turn; the large one started five times first (its start-up). */
async function measure(kind: Measured['kind'], stores: Array<PreparedDir & {seconds: number}>): Promise<Measured[]> {
  const large = stores.at(-1)!
  const startMs: number[] = []
  for (let i = 0; i < 5; i++) {
    const d = await spawnDaemon(large.dataDir, large.storeUrl)
    startMs.push(d.startMs)
    await d.stop()
  }
  log(`${kind}: start-up ${startMs.map((x) => x.toFixed(0)).join(', ')} ms`)
  const daemons: RunningDaemon[] = []
  try {
    for (const s of stores) daemons.push(await spawnDaemon(s.dataDir, s.storeUrl))
    const timings = await measureRounds(
      daemons,
      stores.map((s) => ({key: s.ownerKey, ids: s.ids})),
      20_000_000,
      (what) => log(`${kind}: ${what} measured`),
    )
    return await Promise.all(
      stores.map(async (s, k) => ({
        kind,
        entries: s.ids.length,
        loadSeconds: s.seconds,
        storeMB: await storeMB(s),
        create: latency(timings[k]!.create),
        get: latency(timings[k]!.get),
        search: latency(timings[k]!.search),
        ...memoryOf(daemons[k]!.child.pid),
        startMs: s === large ? startMs : [],
      })),
    )
  } finally {
    for (const d of daemons) await d.stop()
  }
}

async function main(): Promise<void> {
  const before = machine()
  const root = mkdtempSync(join(tmpdir(), 'kb-scale-'))
  const cluster = KINDS.includes('postgres') ? await startCluster({durable: true}) : null
  const results: Measured[] = []
  try {
    for (const kind of KINDS) {
      const stores = []
      for (const size of [BASELINE, LARGEST]) {
        const dir = join(root, `${kind}-${size}`)
        mkdirSync(dir, {recursive: true})
        stores.push(await load(kind, dir, size, cluster))
      }
      results.push(...(await measure(kind, stores)))
      // The next driver's load gets the disk and the page cache to itself.
      for (const s of stores) rmSync(s.dataDir, {recursive: true, force: true})
    }
  } finally {
    cluster?.stop()
    rmSync(root, {recursive: true, force: true})
  }
  const run = {machine: {...before, loadAfter: machine().load}, results}
  if (JSON_FILE) writeFileSync(JSON_FILE, `${JSON.stringify(run, null, 2)}\n`)
  report(run.machine, results)
}

function report(m: Machine & {loadAfter: string}, results: Measured[]): void {
  const f = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(2))
  const pair = (l: Latency): string => `${f(l.p50)} / ${f(l.p99)}`
  const n = (x: number): string => x.toLocaleString('en')
  const mark = (ok: boolean): string => (ok ? '✓' : '✗')
  console.log(`Scale benchmark, ${m.date}: ${m.cpu}, ${m.memory}, Node ${m.node}, load ${m.load} → ${m.loadAfter}\n`)
  console.log('| store | entries | load s | store MB | create p50 / p99 ms | get p50 / p99 ms | search p50 / p99 ms | RSS / peak MB |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  for (const r of results) {
    const cells = [r.kind, n(r.entries), r.loadSeconds.toFixed(0), r.storeMB.toFixed(0), pair(r.create), pair(r.get), pair(r.search)]
    console.log(
      `| ${cells.join(' | ')} | ${r.rssMB.toFixed(0)} / ${r.peakRssMB.toFixed(0)} (own ${r.anonMB.toFixed(0)}, files ${r.fileMB.toFixed(0)}) |`,
    )
  }
  for (const kind of KINDS) {
    const [base, large] = [
      results.find((r) => r.kind === kind && r.entries === BASELINE)!,
      results.find((r) => r.kind === kind && r.startMs.length > 0)!,
    ]
    const create = large.create.p50 / base.create.p50
    const get = large.get.p50 / base.get.p50
    const start = quantile(large.startMs, 0.5)
    console.log(
      `\n${kind} at ${n(large.entries)}: search p50 ${f(large.search.p50)} ms (goal ≤ ${GOALS.searchP50Ms} ${mark(large.search.p50 <= GOALS.searchP50Ms)}); ` +
        `create p50 ${create.toFixed(2)}× and get p50 ${get.toFixed(2)}× the ${n(base.entries)} figures ` +
        `(goal ≤ ${GOALS.ratio}× ${mark(create <= GOALS.ratio)} ${mark(get <= GOALS.ratio)}); ` +
        `start-up median ${start.toFixed(0)} ms of ${large.startMs.map((x) => x.toFixed(0)).join(', ')} (goal ≤ ${GOALS.startMs} ${mark(start <= GOALS.startMs)}); ` +
        `RSS ${large.rssMB.toFixed(0)} MB, peak ${large.peakRssMB.toFixed(0)} (goal ≤ ${GOALS.rssMB} ${mark(large.peakRssMB <= GOALS.rssMB)})`,
    )
  }
}

await main()
