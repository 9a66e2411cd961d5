/**
 * @module Short ids at scale (docs/performance.md, "Short ids"): `GET /ids/{ref}` on a store of `--entries` bulk-loaded
 * entries (default 100,000; one a second, so ~65 share each 8-character prefix), per `--store`, for the short form
 * (7-digit suffix, unique), a 4-digit suffix (a few candidates), an 8-digit prefix (a minute of entries: ambiguous),
 * a 4-digit prefix (weeks of entries: past the 100 read, "type more"), a 23-character prefix (unique), and the prefixes as
 * another principal than the owner (the loaded entries are global: visibility through the rule, not the owner's own rows);
 * `GET /knowledge/{id}` beside them. Also the short length the loaded store needs.
 * Usage: `node dist/bench/short-ids.bench.js [--entries N] [--runs N] [--store sqlite,postgres] [--json]`.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {prepareDataDir} from './bulk-load.js'
import {type Latency, latency, machine, spawnDaemon} from './daemon-harness.js'
import {type PostgresCluster, startCluster} from './postgres-cluster.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: string): string => (args.includes(name) ? (args[args.indexOf(name) + 1] ?? fallback) : fallback)
const ENTRIES = Number(option('--entries', '100000'))
const RUNS = Number(option('--runs', '200'))
const KINDS = option('--store', 'sqlite').split(',') as Array<'sqlite' | 'postgres'>
const asJson = args.includes('--json')
const GOAL_P95_MS = 10

interface Measured {
  latency: Latency
  statuses: Record<number, number>
}

async function timed(url: string, key: string, paths: string[]): Promise<Measured> {
  const ms: number[] = []
  const statuses: Record<number, number> = {}
  for (let i = 0; i < RUNS; i++) {
    const path = paths[i % paths.length]!
    const started = performance.now()
    const res = await fetch(url + path, {headers: {authorization: `Bearer ${key}`}})
    await res.text()
    ms.push(performance.now() - started)
    statuses[res.status] = (statuses[res.status] ?? 0) + 1
  }
  return {latency: latency(ms), statuses}
}

async function measure(
  kind: 'sqlite' | 'postgres',
  dir: string,
  cluster: PostgresCluster | null,
): Promise<Record<string, Measured | number>> {
  const storeUrl = kind === 'postgres' && cluster ? await cluster.createDatabase('shortids') : undefined
  const prepared = await prepareDataDir(join(dir, kind), ENTRIES, storeUrl)
  const daemon = await spawnDaemon(prepared.dataDir, storeUrl)
  try {
    const minted = await fetch(`${daemon.url}/api-keys`, {
      method: 'POST',
      headers: {authorization: `Bearer ${prepared.ownerKey}`, 'content-type': 'application/json'},
      body: JSON.stringify({principal: 'stranger', name: 'bench'}),
    })
    const strangerKey = ((await minted.json()) as {key: string}).key
    const head = await fetch(`${daemon.url}/knowledge?limit=1`, {headers: {authorization: `Bearer ${prepared.ownerKey}`}})
    const length = Number(head.headers.get('kb-short-id-length'))
    // Spread over the store, so no one page of the index stays hot.
    const sample = Array.from({length: 50}, (_, i) => prepared.ids[Math.floor(((i + 0.5) * prepared.ids.length) / 50)]!)
    const digits = (id: string): string => id.replace(/-/g, '')
    const cases: Record<string, string[]> = {
      'GET /knowledge/{id} (whole id, for comparison)': sample.map((id) => `/knowledge/${id}?detail=summary`),
      'GET /ids/{short form: 7-digit suffix}': sample.map((id) => `/ids/${digits(id).slice(-7)}`),
      'GET /ids/{4-digit suffix}': sample.map((id) => `/ids/${digits(id).slice(-4)}`),
      'GET /ids/{8-digit prefix: a minute}': sample.map((id) => `/ids/${digits(id).slice(0, 8)}`),
      'GET /ids/{4-digit prefix: weeks}': sample.map((id) => `/ids/${digits(id).slice(0, 4)}`),
      'GET /ids/{23-character prefix}': sample.map((id) => `/ids/${id.slice(0, 23)}`),
    }
    const out: Record<string, Measured | number> = {short_length: length}
    for (const [what, paths] of Object.entries(cases)) {
      await timed(daemon.url, prepared.ownerKey, paths.slice(0, 5))
      out[what] = await timed(daemon.url, prepared.ownerKey, paths)
    }
    for (const what of ['GET /ids/{8-digit prefix: a minute}', 'GET /ids/{4-digit prefix: weeks}'])
      out[`${what}, as another principal`] = await timed(daemon.url, strangerKey, cases[what]!)
    return out
  } finally {
    await daemon.stop()
  }
}

const dir = mkdtempSync(join(tmpdir(), 'kb-bench-shortids-'))
const cluster = KINDS.includes('postgres') ? await startCluster({durable: true}) : null
try {
  const results: Record<string, Record<string, Measured | number>> = {}
  for (const kind of KINDS) results[kind] = await measure(kind, dir, cluster)
  if (asJson) console.log(JSON.stringify({machine: machine(), entries: ENTRIES, runs: RUNS, results, goal_p95_ms: GOAL_P95_MS}, null, 2))
  else {
    console.log(`machine: ${Object.values(machine()).join(' · ')}`)
    console.log(`${ENTRIES} entries, ${RUNS} requests each`)
    for (const [kind, r] of Object.entries(results)) {
      console.log(`${kind}: short ids have ${String(r.short_length)} characters`)
      for (const [what, m] of Object.entries(r)) {
        if (typeof m === 'number') continue
        const statuses = Object.entries(m.statuses)
          .map(([s, n]) => `${n}×${s}`)
          .join(' ')
        const verdict = m.latency.p95 <= GOAL_P95_MS ? 'within' : 'over'
        console.log(
          `${kind} ${what}: p50 ${m.latency.p50.toFixed(2)} ms p95 ${m.latency.p95.toFixed(2)} ms (${statuses}; goal p95 ≤ ${GOAL_P95_MS} ms: ${verdict})`,
        )
      }
    }
  }
} finally {
  cluster?.stop()
  rmSync(dir, {recursive: true, force: true})
}
