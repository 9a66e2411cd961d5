/**
 * @module The web view's pages (docs/performance.md, "Web view"): time to the first byte and size over the wire of
 * the entry page (`/e/<id>`, random entries) and the search page (`/search?q=…`, words of stored titles), signed in
 * through a one-time link, on a SQLite store of `--entries` bulk-loaded entries (default 100,000).
 * Goals: first byte p95 ≤ 20 ms (entry) and ≤ 40 ms (search); every page ≤ 60 KB.
 * Usage: `node dist/bench/web.bench.js [--entries N] [--runs N] [--json]`.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {request} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {prepareDataDir} from './bulk-load.js'
import {call, type Latency, latency, machine, spawnDaemon} from './daemon-harness.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: string): string => (args.includes(name) ? (args[args.indexOf(name) + 1] ?? fallback) : fallback)
const ENTRIES = Number(option('--entries', '100000'))
const RUNS = Number(option('--runs', '200'))
const asJson = args.includes('--json')
const GOALS: Record<string, number> = {entry: 20, search: 40, 'api search': 40}
const SIZE_GOAL = 60 * 1024

/** One GET: milliseconds to the first byte of the answer, and the whole answer's size in bytes. */
function get(url: string, cookie: string, authorization?: string): Promise<{firstByteMs: number; bytes: number; status: number}> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    let firstByteMs = -1
    const req = request(url, {headers: {cookie, ...(authorization ? {authorization} : {})}}, (res) => {
      let bytes = 0
      res.on('data', (chunk: Buffer) => {
        if (firstByteMs < 0) firstByteMs = performance.now() - started
        bytes += chunk.length
      })
      res.on('end', () => resolve({firstByteMs, bytes, status: res.statusCode ?? 0}))
    })
    req.on('error', reject)
    req.end()
  })
}

interface PageResult {
  firstByte: Latency
  maxBytes: number
  meanBytes: number
}

async function measure(urls: string[], cookie: string, authorization?: string): Promise<PageResult> {
  for (const u of urls.slice(0, 10)) await get(u, cookie, authorization)
  const ms: number[] = []
  const sizes: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const r = await get(urls[i % urls.length]!, cookie, authorization)
    if (r.status !== 200) throw new Error(`${urls[i % urls.length]} → ${r.status}`)
    ms.push(r.firstByteMs)
    sizes.push(r.bytes)
  }
  return {firstByte: latency(ms), maxBytes: Math.max(...sizes), meanBytes: Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length)}
}

const dir = mkdtempSync(join(tmpdir(), 'kb-bench-web-'))
try {
  const prepared = await prepareDataDir(join(dir, 'sqlite'), ENTRIES)
  const daemon = await spawnDaemon(prepared.dataDir)
  try {
    const root = daemon.url.replace(/\/api\/v1$/, '')
    const link = (await call(daemon.url, prepared.ownerKey, 'POST', '/web/links', {})) as {url: string}
    const signedIn = await fetch(link.url, {redirect: 'manual'})
    const cookie = signedIn.headers.getSetCookie()[0]!.split(';')[0]!
    const pick = (i: number): string => prepared.ids[(i * 7919) % prepared.ids.length]!
    const entryUrls = Array.from({length: 100}, (_, i) => `${root}/e/${pick(i)}`)
    // Queries of two words from stored titles: each finds its entry and others sharing a word.
    const queries: string[] = []
    for (let i = 0; i < 20; i++) {
      const e = (await call(daemon.url, prepared.ownerKey, 'GET', `/knowledge/${pick(i + 1000)}?detail=summary`)) as {title: string}
      queries.push(e.title.split(/\s+/).slice(0, 2).join(' '))
    }
    const searchUrls = queries.map((q) => `${root}/search?q=${encodeURIComponent(q)}`)
    // The API call the search page makes, alone, for what the page adds to it.
    const apiUrls = queries.map((q) => `${daemon.url}/search?q=${encodeURIComponent(q)}&limit=20&detail=standard&explain=true`)
    const results = {
      entry: await measure(entryUrls, cookie),
      search: await measure(searchUrls, cookie),
      'api search': await measure(apiUrls, cookie, `Bearer ${prepared.ownerKey}`),
    }
    if (asJson)
      console.log(
        JSON.stringify({machine: machine(), entries: ENTRIES, runs: RUNS, results, goals_ms: GOALS, size_goal: SIZE_GOAL}, null, 2),
      )
    else {
      console.log(`machine: ${Object.values(machine()).join(' · ')}`)
      console.log(`${ENTRIES} entries on SQLite, ${RUNS} requests per page`)
      for (const [page, r] of Object.entries(results)) {
        const goal = GOALS[page]!
        console.log(
          `${page.padEnd(10)} first byte p50 ${r.firstByte.p50.toFixed(1)} ms  p95 ${r.firstByte.p95.toFixed(1)} ms (${r.firstByte.p95 <= goal ? 'within' : 'over'} ${goal} ms)` +
            `  size mean ${(r.meanBytes / 1024).toFixed(1)} KB max ${(r.maxBytes / 1024).toFixed(1)} KB (${r.maxBytes <= SIZE_GOAL ? 'within' : 'over'} 60 KB)`,
        )
      }
    }
  } finally {
    await daemon.stop()
  }
} finally {
  rmSync(dir, {recursive: true, force: true})
}
