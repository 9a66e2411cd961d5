/**
 * @module Reads by id (issue 30, item 3): `GET /knowledge/:id` throughput with autocannon against a bare `node:http`
 * server answering the same body, a SQLite daemon and a PostgreSQL daemon (a throw-away cluster, fsync on), in
 * turns, round after round, so that the machine's load hits every target alike; the median of the rounds is
 * reported with the ratios of the goals: SQLite ≥ 0.5× bare node:http, PostgreSQL ≥ 0.5× SQLite. With
 * `--baseline DIR` (another built checkout of kb) its daemons are measured in the same rounds on the same data.
 * Usage: `node dist/bench/read-by-id.bench.js [--entries 1000] [--rounds 3] [--seconds 5] [--baseline DIR] [--json]`.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import autocannon from 'autocannon'
import {prepareDataDir} from './bulk-load.js'
import {quantile} from './cranfield.js'
import {bareServer, call, machine, spawnDaemon, type Machine} from './daemon-harness.js'
import {startCluster} from './postgres-cluster.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: string): string => (args.includes(name) ? (args[args.indexOf(name) + 1] ?? fallback) : fallback)
const ENTRIES = Number(option('--entries', '1000'))
const ROUNDS = Number(option('--rounds', '3'))
const SECONDS = Number(option('--seconds', '5'))
const BASELINE = args.includes('--baseline') ? resolve(option('--baseline', '.'), 'bin/run.js') : null
const asJson = args.includes('--json')

interface Target {
  name: string
  /** Starts what answers; its base URL and how to stop it. */
  start(): Promise<{url: string; stop: () => Promise<void>}>
  ids: string[]
  key?: string
  rps: number[]
}

/** autocannon, 10 connections, GETs of the target's ids in turn; req/s (a non-2xx answer fails the run). */
async function load(t: Target, url: string): Promise<number> {
  let n = 0
  const r = await autocannon({
    url,
    connections: 10,
    duration: SECONDS,
    ...(t.key ? {headers: {authorization: `Bearer ${t.key}`}} : {}),
    requests: [{method: 'GET', setupRequest: (req) => ({...req, path: `${new URL(url).pathname}/knowledge/${t.ids[n++ % t.ids.length]}`})}],
  })
  if (r.errors > 0 || r.non2xx > 0) throw new Error(`${t.name} answered ${r.non2xx} non-2xx and ${r.errors} errors`)
  return r.requests.average
}

async function main(): Promise<void> {
  const before = machine()
  const root = mkdtempSync(join(tmpdir(), 'kb-bench-read-'))
  const cluster = await startCluster({durable: true})
  try {
    const sqliteDir = join(root, 'sqlite')
    const sqlite = await prepareDataDir(sqliteDir, ENTRIES)
    const pgDir = join(root, 'postgres')
    const pgUrl = await cluster.createDatabase('bench_read')
    const postgres = await prepareDataDir(pgDir, ENTRIES, pgUrl)
    // The bare server answers with the body kb gives for an entry.
    const first = await spawnDaemon(sqliteDir)
    const body = JSON.stringify(await call(first.url, sqlite.ownerKey, 'GET', `/knowledge/${sqlite.ids[0]}`))
    await first.stop()
    const daemon = (dir: string, storeUrl?: string, bin?: string) => async () => {
      const d = await spawnDaemon(dir, storeUrl, bin)
      return {url: d.url, stop: d.stop}
    }
    const targets: Target[] = [
      {name: 'bare node:http', start: () => bareServer(body), ids: ['x'], rps: []},
      {name: 'sqlite', start: daemon(sqliteDir), ids: sqlite.ids, key: sqlite.ownerKey, rps: []},
      {name: 'postgres', start: daemon(pgDir, pgUrl), ids: postgres.ids, key: postgres.ownerKey, rps: []},
    ]
    if (BASELINE)
      targets.push(
        {name: 'baseline sqlite', start: daemon(sqliteDir, undefined, BASELINE), ids: sqlite.ids, key: sqlite.ownerKey, rps: []},
        {name: 'baseline postgres', start: daemon(pgDir, pgUrl, BASELINE), ids: postgres.ids, key: postgres.ownerKey, rps: []},
      )
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of targets) {
        const running = await t.start()
        try {
          // A short warm-up: the first requests compile the routes and fill the pool.
          await autocannon({url: running.url, connections: 2, duration: 1, ...(t.key ? {headers: {authorization: `Bearer ${t.key}`}} : {})})
          t.rps.push(await load(t, running.url))
        } finally {
          await running.stop()
        }
        if (!asJson) process.stderr.write(`round ${round + 1}: ${t.name} ${Math.round(t.rps.at(-1)!)} req/s\n`)
      }
    }
    report(targets, Buffer.byteLength(body), before)
  } finally {
    await cluster.stop()
    rmSync(root, {recursive: true, force: true})
  }
}

function report(targets: Target[], bytes: number, before: Machine): void {
  const after = machine()
  const median = (t: Target): number =>
    quantile(
      [...t.rps].sort((a, b) => a - b),
      0.5,
    )
  const of = (name: string): number => median(targets.find((t) => t.name === name)!)
  const ratios = {sqliteToBare: of('sqlite') / of('bare node:http'), postgresToSqlite: of('postgres') / of('sqlite')}
  if (asJson) {
    process.stdout.write(
      `${JSON.stringify({entries: ENTRIES, rounds: ROUNDS, seconds: SECONDS, bytes, before, after, targets, ratios}, null, 2)}\n`,
    )
    return
  }
  console.log(
    `GET /knowledge/:id, ${before.date}: ${before.cpu}, Node ${before.node}, load ${before.load} → ${after.load}; ` +
      `${ENTRIES} entries, ${bytes}-byte body, autocannon 10 connections × ${SECONDS} s, ${ROUNDS} rounds\n`,
  )
  console.log('| target | req/s (median) | rounds |')
  console.log('|---|---:|---|')
  for (const t of targets) console.log(`| ${t.name} | ${Math.round(median(t))} | ${t.rps.map((r) => Math.round(r)).join(', ')} |`)
  console.log(`\nsqlite ÷ bare node:http: ${ratios.sqliteToBare.toFixed(2)}× (goal ≥ 0.5 ${ratios.sqliteToBare >= 0.5 ? '✓' : '✗'})`)
  console.log(`postgres ÷ sqlite: ${ratios.postgresToSqlite.toFixed(2)}× (goal ≥ 0.5 ${ratios.postgresToSqlite >= 0.5 ? '✓' : '✗'})`)
}

await main()
