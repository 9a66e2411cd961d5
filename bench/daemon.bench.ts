/**
 * @module The daemon's benchmarks, in one run so that ratios share the machine's conditions:
 * create / get-by-id / search latency at each store size (entries bulk-loaded through the driver; one
 * built `kb daemon run` per size and store, logging at its default level to a file, all running at once and
 * answering requests in turn, so that load on this shared machine hits every size alike), HTTP throughput
 * of GET /knowledge/:id against a bare node:http server (autocannon) — on PostgreSQL with one daemon and with
 * two on the same database — and start-up time on the largest store. `--store sqlite,postgres` measures both
 * drivers side by side (PostgreSQL: a throw-away cluster, fsync on, bench/postgres-cluster.ts).
 * Usage: `node dist/bench/daemon.bench.js [--sizes 1000,10000,100000] [--store sqlite|postgres|sqlite,postgres] [--seconds 10] [--json]`.
 */
import {cpSync, mkdirSync, mkdtempSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import autocannon from 'autocannon'
import pg from 'pg'
import {dataFiles} from '../src/shared/paths.js'
import {loadEntries, prepareDataDir} from './bulk-load.js'
import {quantile} from './cranfield.js'
import {
  bareServer,
  call,
  type Latency,
  latency,
  machine,
  type Machine,
  memoryOf,
  type RunningDaemon,
  spawnDaemon,
} from './daemon-harness.js'
import {type PostgresCluster, startCluster} from './postgres-cluster.js'
import {measureRounds} from './rounds.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: string): string => (args.includes(name) ? (args[args.indexOf(name) + 1] ?? fallback) : fallback)
const SIZES = option('--sizes', '1000,10000,100000').split(',').map(Number)
const KINDS = option('--store', 'sqlite').split(',') as Array<'sqlite' | 'postgres'>
const AUTOCANNON_SECONDS = Number(option('--seconds', '10'))
const asJson = args.includes('--json')

const GOALS = {createRatio: 2, throughputRatio: 0.5, startSeconds: 3}

interface Store {
  kind: 'sqlite' | 'postgres'
  entries: number
  dataDir: string
  storeUrl?: string
  ids: string[]
  key: string
}

interface SizeResult {
  kind: Store['kind']
  entries: number
  dbMB: number
  create: Latency
  get: Latency
  search: Latency
  /** The daemon's resident memory after the measurements, and its peak (Linux /proc; 0 elsewhere). */
  rssMB: number
  peakRssMB: number
}

async function databaseMB(url: string): Promise<number> {
  const client = new pg.Client(url)
  await client.connect()
  try {
    return Number((await client.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n) / 1e6
  } finally {
    await client.end()
  }
}

/**
 * Measures every store with its own daemon running side by side, requests taking turns between them,
 * so that a change in the machine's load (it is shared) shows in every size alike and ratios hold.
 */
async function measureSizes(stores: Store[]): Promise<SizeResult[]> {
  const daemons: RunningDaemon[] = []
  try {
    for (const s of stores) daemons.push(await spawnDaemon(s.dataDir, s.storeUrl))
    const timings = await measureRounds(daemons, stores, 10_000_000)
    return await Promise.all(
      stores.map(async (s, k) => ({
        kind: s.kind,
        entries: s.entries,
        dbMB: s.storeUrl ? await databaseMB(s.storeUrl) : statSync(dataFiles(s.dataDir).db).size / 1e6,
        create: latency(timings[k]!.create),
        get: latency(timings[k]!.get),
        search: latency(timings[k]!.search),
        ...memoryOf(daemons[k]!.child.pid),
      })),
    )
  } finally {
    for (const d of daemons) await d.stop()
  }
}

/** autocannon GETs of random loaded ids against each daemon at once, `connections` split between them; total req/s and the worst p99. */
async function getLoad(daemons: RunningDaemon[], s: Store, connections: number): Promise<{rps: number; p99: number}> {
  let n = 0
  const runs = await Promise.all(
    daemons.map((d) =>
      autocannon({
        url: d.url,
        connections: connections / daemons.length,
        duration: AUTOCANNON_SECONDS,
        headers: {authorization: `Bearer ${s.key}`},
        requests: [
          {method: 'GET', setupRequest: (req) => ({...req, path: `${new URL(d.url).pathname}/knowledge/${s.ids[n++ % s.ids.length]}`})},
        ],
      }),
    ),
  )
  for (const r of runs)
    if (r.errors > 0 || r.non2xx > 0) throw new Error(`kb answered ${r.non2xx} non-2xx and ${r.errors} errors under load`)
  return {rps: runs.reduce((sum, r) => sum + r.requests.average, 0), p99: Math.max(...runs.map((r) => r.latency.p99))}
}

interface Throughput {
  kind: Store['kind']
  one: {rps: number; p99: number}
  /** Two daemons on the same database (PostgreSQL only). */
  two?: {rps: number; p99: number}
  bare: {rps: number; p99: number}
  bytes: number
}

async function throughput(s: Store, root: string): Promise<Throughput> {
  const d = await spawnDaemon(s.dataDir, s.storeUrl)
  try {
    const sample = JSON.stringify(await call(d.url, s.key, 'GET', `/knowledge/${s.ids[0]}`))
    const one = await getLoad([d], s, 10)
    let two
    if (s.storeUrl) {
      const secondDir = join(root, `${s.kind}-second`)
      mkdirSync(secondDir, {recursive: true})
      const second = await spawnDaemon(secondDir, s.storeUrl)
      try {
        two = await getLoad([d, second], s, 10)
      } finally {
        await second.stop()
      }
    }
    const bare = await bareServer(sample)
    try {
      const b = await autocannon({url: `${bare.url}/knowledge/x`, connections: 10, duration: AUTOCANNON_SECONDS})
      return {
        kind: s.kind,
        one,
        ...(two ? {two} : {}),
        bare: {rps: b.requests.average, p99: b.latency.p99},
        bytes: Buffer.byteLength(sample),
      }
    } finally {
      await bare.stop()
    }
  } finally {
    await d.stop()
  }
}

/** The sizes of one store kind: one store grows through them; a copy is kept at each smaller size. */
async function prepare(kind: Store['kind'], root: string, cluster: PostgresCluster | null): Promise<Store[]> {
  const stores: Store[] = []
  const dir = join(root, `${kind}-largest`)
  const largest = kind === 'postgres' ? await cluster!.createDatabase('bench_largest') : undefined
  const ids: string[] = []
  let key = ''
  let loaded = 0
  for (const [k, size] of SIZES.entries()) {
    const t = performance.now()
    if (k === 0) {
      const prepared = await prepareDataDir(dir, size, largest)
      ids.push(...prepared.ids)
      key = prepared.ownerKey
    } else {
      ids.push(...(await loadEntries(dir, loaded, size, largest)))
    }
    loaded = size
    if (!asJson) process.stderr.write(`${kind}: loaded ${size} entries in ${((performance.now() - t) / 1000).toFixed(1)} s\n`)
    const last = k === SIZES.length - 1
    const copyDir = last ? dir : join(root, `${kind}-${size}`)
    let storeUrl = largest
    if (!last) {
      cpSync(dir, copyDir, {recursive: true})
      if (largest) storeUrl = await copyDatabase(cluster!, largest, `bench_${size}`)
    }
    stores.push({kind, entries: size, dataDir: copyDir, ...(storeUrl ? {storeUrl} : {}), ids: [...ids], key})
  }
  return stores
}

/** A copy of the database (CREATE DATABASE … TEMPLATE, with no one connected to it). */
async function copyDatabase(cluster: PostgresCluster, from: string, name: string): Promise<string> {
  const client = new pg.Client(cluster.url())
  await client.connect()
  try {
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${new URL(from).pathname.slice(1)}`)
  } finally {
    await client.end()
  }
  return cluster.url(name)
}

async function startUp(s: Store): Promise<number[]> {
  const starts: number[] = []
  for (let i = 0; i < 5; i++) {
    const d = await spawnDaemon(s.dataDir, s.storeUrl)
    starts.push(d.startMs)
    await d.stop()
  }
  return starts
}

async function main(): Promise<void> {
  const before = machine()
  const root = mkdtempSync(join(tmpdir(), 'kb-bench-'))
  // Durable like a real server: fsync on, so a create's commit waits for the disk as SQLite's does.
  const cluster = KINDS.includes('postgres') ? await startCluster({durable: true}) : null
  try {
    const stores: Store[] = []
    for (const kind of KINDS) stores.push(...(await prepare(kind, root, cluster)))
    if (!asJson) process.stderr.write('measuring all sizes side by side…\n')
    const sizes = await measureSizes(stores)
    const largest = KINDS.map((kind) => stores.filter((s) => s.kind === kind).at(-1)!)
    if (!asJson) process.stderr.write('throughput…\n')
    const tps: Throughput[] = []
    for (const s of largest) tps.push(await throughput(s, root))
    if (!asJson) process.stderr.write('start-up…\n')
    const starts = await Promise.all(largest.map(async (s) => ({kind: s.kind, runs: [] as number[], s})))
    for (const st of starts) st.runs = await startUp(st.s)
    const result = {
      machine: {...before, loadAfter: machine().load},
      sizes,
      throughput: tps,
      start: starts.map((st) => ({kind: st.kind, medianMs: quantile(st.runs, 0.5), runs: st.runs})),
    }
    if (asJson) {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
      return
    }
    report(result, before)
  } finally {
    cluster?.stop()
    rmSync(root, {recursive: true, force: true})
  }
}

function report(
  result: {
    machine: Machine & {loadAfter: string}
    sizes: SizeResult[]
    throughput: Throughput[]
    start: Array<{kind: string; medianMs: number; runs: number[]}>
  },
  before: Machine,
): void {
  const f = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(2))
  const pair = (l: Latency): string => `${f(l.p50)} / ${f(l.p99)}`
  const n = (x: number): string => x.toLocaleString('en')
  const goal = (ok: boolean, what: string): string => `(goal ${what} ${ok ? '✓' : '✗'})`
  const {date, cpu, memory, node, load} = before
  console.log(`Daemon benchmarks, ${date}: ${cpu}, ${memory}, Node ${node}, load ${load} → ${result.machine.loadAfter}\n`)
  console.log('| store | entries | DB MB | create p50 / p99 ms | get p50 / p99 ms | search p50 / p99 ms | daemon RSS / peak MB |')
  console.log('|---|---:|---:|---:|---:|---:|---:|')
  for (const s of result.sizes) {
    const memory = `${s.rssMB.toFixed(0)} / ${s.peakRssMB.toFixed(0)}`
    console.log(
      `| ${s.kind} | ${n(s.entries)} | ${s.dbMB.toFixed(0)} | ${pair(s.create)} | ${pair(s.get)} | ${pair(s.search)} | ${memory} |`,
    )
  }
  for (const kind of KINDS) {
    const own = result.sizes.filter((s) => s.kind === kind)
    const [first, last] = [own[0]!, own.at(-1)!]
    const ratio = last.create.p50 / first.create.p50
    const ratioGoal = goal(ratio <= GOALS.createRatio, `≤ ${GOALS.createRatio}×`)
    console.log(`\n${kind}: create p50 at ${n(last.entries)} ÷ at ${n(first.entries)}: ${ratio.toFixed(2)}× ${ratioGoal}`)
    const tp = result.throughput.find((t) => t.kind === kind)!
    const tpRatio = tp.one.rps / tp.bare.rps
    const rate = (r: {rps: number; p99: number}): string => `${r.rps.toFixed(0)} req/s (p99 ${r.p99} ms)`
    console.log(
      `${kind}: GET /knowledge/:id throughput (autocannon, 10 connections, ${AUTOCANNON_SECONDS} s, ${tp.bytes}-byte body): one daemon ${rate(tp.one)}` +
        `${tp.two ? `, two daemons on the database ${rate(tp.two)}` : ''}, bare node:http ${rate(tp.bare)}: ` +
        `${tpRatio.toFixed(2)}× ${goal(tpRatio >= GOALS.throughputRatio, `≥ ${GOALS.throughputRatio}`)}`,
    )
    const st = result.start.find((x) => x.kind === kind)!
    const runs = st.runs.map((x) => x.toFixed(0)).join(', ')
    console.log(
      `${kind}: daemon start until /health answers, ${n(last.entries)} entries: median ${st.medianMs.toFixed(0)} ms of ${runs} ` +
        `${goal(st.medianMs <= GOALS.startSeconds * 1000, `≤ ${GOALS.startSeconds} s`)}`,
    )
  }
}

await main()
