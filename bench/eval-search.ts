/**
 * @module `npm run eval:search`: search quality on the Cranfield collection, measured end to end — a real
 * daemon on a temporary data dir, documents created through `POST /knowledge`, queries through
 * `GET /search` — on SQLite, and on PostgreSQL too when its programs are installed (a throw-away cluster,
 * bench/postgres-cluster.ts). Exits 1 when nDCG@10 falls below the gate on either, so CI can run it.
 */
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {startDaemon} from '../server/daemon.js'
import {type Cranfield, cranfieldDir, evaluate, loadCranfield, loadIntoKb} from './cranfield.js'
import {postgresBinDir, startCluster} from './postgres-cluster.js'

/** The quality floor: plain FTS5 with Porter stemming and title ×2 reaches 0.366 here. */
export const NDCG_GATE = 0.37

/** Loads the collection into a fresh daemon on the store and scores every judged query; false below the gate. */
async function run(data: Cranfield, label: string, storeUrl?: string): Promise<boolean> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kb-eval-'))
  const daemon = await startDaemon({
    dataDir,
    host: '127.0.0.1',
    port: 0,
    version: 'eval',
    logLevel: 'silent',
    ...(storeUrl ? {storeUrl} : {}),
  })
  try {
    const client = {url: daemon.url, key: readFileSync(join(dataDir, 'owner.key'), 'utf8').trim()}
    const loadStarted = performance.now()
    const byEntry = await loadIntoKb(client, data.docs)
    const loadMs = performance.now() - loadStarted
    // One unmeasured pass warms the statement cache and the page cache, as a running daemon would be.
    await evaluate(client, data, byEntry, data.queries.slice(0, 20))
    const r = await evaluate(client, data, byEntry)
    const f = (x: number): string => x.toFixed(3)
    console.log(
      `Cranfield on ${label}: ${data.docs.length} docs loaded through the API in ${(loadMs / 1000).toFixed(1)} s, ${r.queries} judged queries`,
    )
    console.log(`  nDCG@10 ${f(r.ndcg10)}  MRR@10 ${f(r.mrr10)}  R@10 ${f(r.recall10)}`)
    console.log(`  search latency (HTTP, one at a time): p50 ${r.latencyMs.p50.toFixed(2)} ms  p99 ${r.latencyMs.p99.toFixed(2)} ms`)
    if (r.ndcg10 >= NDCG_GATE) return true
    console.error(`eval:search: nDCG@10 ${f(r.ndcg10)} on ${label} is below the gate ${NDCG_GATE}`)
    return false
  } finally {
    await daemon.stop()
    rmSync(dataDir, {recursive: true, force: true})
  }
}

async function main(): Promise<number> {
  const dir = cranfieldDir()
  const data = loadCranfield(dir)
  if (!data) {
    console.log(`eval:search: skipped, no Cranfield collection at ${dir}`)
    return 0
  }
  let ok = await run(data, 'SQLite')
  if (postgresBinDir() === null) {
    console.log('eval:search: PostgreSQL is not installed; measured SQLite only')
    return ok ? 0 : 1
  }
  const cluster = await startCluster()
  try {
    ok = (await run(data, 'PostgreSQL', await cluster.createDatabase('eval'))) && ok
  } finally {
    cluster.stop()
  }
  return ok ? 0 : 1
}

process.exitCode = await main()
