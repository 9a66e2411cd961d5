/**
 * @module The review queue's latency (docs/performance.md, "Review queue"): `GET /review` — its counts over every
 * visible entry and the first page most used first — and `GET /review?kind=flagged`, on a store of `--entries`
 * bulk-loaded entries (default 100,000) of which 1 % are flagged and 5 % were retrieved, plus 100 near-copies (100 similar
 * pairs), per `--store`. Every request counts anew (from the tally the writes keep); the daemon's CPU time per request
 * is reported beside the wall times. Goal: p95 ≤ 50 ms at 100k.
 * Usage: `node dist/bench/review.bench.js [--entries N] [--runs N] [--store sqlite,postgres] [--json]`.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {prepareDataDir} from './bulk-load.js'
import {call, cpuMsOf, type Latency, latency, machine, spawnDaemon} from './daemon-harness.js'
import {type PostgresCluster, startCluster} from './postgres-cluster.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: string): string => (args.includes(name) ? (args[args.indexOf(name) + 1] ?? fallback) : fallback)
const ENTRIES = Number(option('--entries', '100000'))
const RUNS = Number(option('--runs', '100'))
const KINDS = option('--store', 'sqlite').split(',') as Array<'sqlite' | 'postgres'>
const asJson = args.includes('--json')
const GOAL_P95_MS = 50
const PAIRS = 100
// The daemons write their usage counts every half second here, so that the queue's order has something to follow.
process.env.KB_USAGE_FLUSH_MS = '500'

/** Wall times, and the daemon's mean CPU time per request (docs/performance.md: on a loaded machine wall time is mostly waiting). */
type Measured = Latency & {cpuMs: number}

async function measure(kind: 'sqlite' | 'postgres', dir: string, cluster: PostgresCluster | null): Promise<Record<string, Measured>> {
  const storeUrl = kind === 'postgres' && cluster ? await cluster.createDatabase('review') : undefined
  const prepared = await prepareDataDir(join(dir, kind), ENTRIES, storeUrl)
  const daemon = await spawnDaemon(prepared.dataDir, storeUrl)
  try {
    const api = (method: string, path: string, body?: unknown): Promise<unknown> => call(daemon.url, prepared.ownerKey, method, path, body)
    const step = Math.floor(prepared.ids.length / Math.max(1, Math.floor(ENTRIES / 100)))
    for (let i = 0; i < prepared.ids.length; i += step) await api('POST', `/knowledge/${prepared.ids[i]}/flags`, {reason: 'stale'})
    const used = Math.floor(ENTRIES / 20)
    for (let i = 0; i < used; i++) await api('GET', `/knowledge/${prepared.ids[(i * 7919) % prepared.ids.length]}`)
    // Near-copies of bulk entries, so that the queue has similar pairs (docs/api.md, "Review queue").
    for (let i = 0; i < PAIRS; i++) {
      const e = (await api('GET', `/knowledge/${prepared.ids[(i * 997 + 13) % prepared.ids.length]}?detail=full`)) as {
        title: string
        body: string
      }
      await api('POST', '/knowledge', {title: `${e.title} (again)`, body: `${e.body}\n\nSeen again.`, scope: 'global'})
    }
    await new Promise((r) => setTimeout(r, 1500))
    // What autovacuum would have done by now on a live server: the planner's statistics of the loaded tables.
    if (storeUrl) {
      const {default: pg} = await import('pg')
      const client = new pg.Client(storeUrl)
      await client.connect()
      await client.query('ANALYZE')
      await client.end()
    }
    const out: Record<string, Measured> = {}
    const q = (await api('GET', '/review')) as {counts: Record<string, number>}
    if (!asJson) console.error(`${kind} counts: ${JSON.stringify(q.counts)}`)
    for (const path of ['/review', '/review?kind=flagged', '/review?kind=similar', '/review?kind=never_retrieved']) {
      for (let i = 0; i < 5; i++) await api('GET', path)
      const ms: number[] = []
      const cpu0 = cpuMsOf(daemon.child.pid)
      for (let i = 0; i < RUNS; i++) {
        const started = performance.now()
        await api('GET', path)
        ms.push(performance.now() - started)
      }
      out[`GET ${path}`] = {...latency(ms), cpuMs: (cpuMsOf(daemon.child.pid) - cpu0) / RUNS}
    }
    return out
  } finally {
    await daemon.stop()
  }
}

const dir = mkdtempSync(join(tmpdir(), 'kb-bench-review-'))
const cluster = KINDS.includes('postgres') ? await startCluster({durable: true}) : null
try {
  const results: Record<string, Record<string, Measured>> = {}
  for (const kind of KINDS) {
    results[kind] = await measure(kind, dir, cluster)
    // Each store's numbers as soon as they are known: loading 100k entries into PostgreSQL takes minutes.
    if (!asJson)
      for (const [what, l] of Object.entries(results[kind]!))
        console.error(`${kind} ${what}: p50 ${l.p50.toFixed(1)} ms p95 ${l.p95.toFixed(1)} ms, daemon CPU ${l.cpuMs.toFixed(1)} ms/request`)
  }
  if (asJson) console.log(JSON.stringify({machine: machine(), entries: ENTRIES, runs: RUNS, results, goal_p95_ms: GOAL_P95_MS}, null, 2))
  else {
    console.log(`machine: ${Object.values(machine()).join(' · ')}`)
    console.log(`${ENTRIES} entries (1 % flagged, 5 % retrieved), ${RUNS} runs each`)
    for (const [kind, r] of Object.entries(results)) {
      for (const [what, l] of Object.entries(r)) {
        const verdict = l.p95 <= GOAL_P95_MS ? 'within' : 'over'
        console.log(
          `${kind.padEnd(8)} ${what.padEnd(34)} p50 ${l.p50.toFixed(1)} ms  p95 ${l.p95.toFixed(1)} ms (${verdict} ${GOAL_P95_MS} ms)  CPU ${l.cpuMs.toFixed(1)} ms`,
        )
      }
    }
  }
} finally {
  cluster?.stop()
  rmSync(dir, {recursive: true, force: true})
}
