/**
 * @module What the similar-entries check (docs/search.md, "Similar entries") costs a create at scale: a SQLite store
 * bulk-loaded with N synthetic entries (bench/bulk-load.ts), then, in process, for each of 200 new corpus entries the
 * check alone (SimilarFinder.find: the candidate search and the scoring) and the whole create through the service
 * (which runs the check), so that create without the check = create − check, sample by sample. Also the check for a
 * 100,000-character body (bounded prefixes: linear, not a stall). Last, the labelled pairs of
 * bench/collections/similar among those entries: precision and recall of the check at that size.
 * Usage: `node dist/bench/similar.bench.js [--sizes 100000] [--json]`.
 */
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {dataFiles} from '../src/shared/paths.js'
import type {Caller} from '../server/services/context.js'
import {KnowledgeService} from '../server/services/knowledge.js'
import {SimilarFinder} from '../server/services/similar.js'
import {openSqliteStore} from '../server/store/sqlite.js'
import {prepareDataDir} from './bulk-load.js'
import {corpus} from './corpus.js'
import {type Latency, latency, machine} from './daemon-harness.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: string): string => (args.includes(name) ? (args[args.indexOf(name) + 1] ?? fallback) : fallback)
const SIZES = option('--sizes', '100000').split(',').map(Number)
const SAMPLES = 200
const WARMUP = 20
const GOAL_MS = 5

interface Result {
  entries: number
  check: Latency
  /** The check's CPU time in this process (process.cpuUsage): what it costs, whatever else the machine runs. */
  checkCpu: Latency
  createWithCheck: Latency
  createWithoutCheck: Latency
  hugeBodyCheckMs: number
  precision: number
  recall: number
}

interface Pair {
  label: string
  a: {title: string; body: string}
  b: {title: string; body: string}
}

/** The labelled pairs' first entries created, then each second one's similar entries found: precision and recall. */
async function labelled(knowledge: KnowledgeService, finder: SimilarFinder, caller: Caller): Promise<{precision: number; recall: number}> {
  const pairs = readFileSync(join(import.meta.dirname, '../../bench/collections/similar/pairs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Pair)
  const first = new Map<string, number>()
  for (const [i, p] of pairs.entries()) first.set((await knowledge.create(caller, {...p.a, scope: 'global'})).id, i)
  let found = 0
  let reported = 0
  for (const [i, p] of pairs.entries()) {
    const similar = await finder.find(caller, p.b)
    reported += similar.length
    if (p.label === 'same' && similar.some((s) => first.get(s.id) === i)) found++
  }
  return {precision: found / Math.max(1, reported), recall: found / pairs.filter((p) => p.label === 'same').length}
}

async function measure(size: number): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'kb-similar-bench-'))
  try {
    const prepared = await prepareDataDir(dir, size)
    const store = openSqliteStore({path: dataFiles(dir).db})
    try {
      const principal = (await store.getPrincipal(prepared.ownerId))!
      const caller: Caller = {principal, credential: {kind: 'api_key', id: 'bench', projectId: null}}
      const finder = new SimilarFinder(store)
      const knowledge = new KnowledgeService(store)
      const c = corpus(7)
      const check: number[] = []
      const checkCpu: number[] = []
      const create: number[] = []
      const without: number[] = []
      for (let i = 0; i < WARMUP + SAMPLES; i++) {
        const e = c.entry(i)
        const c0 = process.cpuUsage()
        const t0 = performance.now()
        await finder.find(caller, e)
        const t1 = performance.now()
        const cpu = process.cpuUsage(c0)
        await knowledge.create(caller, {title: e.title, body: e.body, scope: 'global'})
        const t2 = performance.now()
        if (i < WARMUP) continue
        check.push(t1 - t0)
        checkCpu.push((cpu.user + cpu.system) / 1000)
        create.push(t2 - t1)
        without.push(Math.max(0, t2 - t1 - (t1 - t0)))
      }
      const huge = {
        title: 'A very long report',
        body: Array.from({length: 12_500}, (_, i) => `word${i % 997} `)
          .join('')
          .slice(0, 100_000),
      }
      const h0 = performance.now()
      await finder.find(caller, huge)
      const hugeBodyCheckMs = performance.now() - h0
      const quality = await labelled(knowledge, finder, caller)
      return {
        entries: size,
        check: latency(check),
        checkCpu: latency(checkCpu),
        createWithCheck: latency(create),
        createWithoutCheck: latency(without),
        hugeBodyCheckMs,
        ...quality,
      }
    } finally {
      await store.close()
    }
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

const results: Result[] = []
for (const size of SIZES) results.push(await measure(size))
if (args.includes('--json')) console.log(JSON.stringify({machine: machine(), results}, null, 2))
else {
  const ms = (n: number): string => n.toFixed(2).padStart(7)
  console.log(`machine: ${JSON.stringify(machine())}`)
  console.log('entries   check p50/p95    create p50/p95 (with check)   create p50 (without)   100k-char body check')
  for (const r of results)
    console.log(
      `${String(r.entries).padStart(7)}  ${ms(r.check.p50)} ${ms(r.check.p95)}   ${ms(r.createWithCheck.p50)} ${ms(r.createWithCheck.p95)}` +
        `               ${ms(r.createWithoutCheck.p50)}            ${ms(r.hugeBodyCheckMs)}`,
    )
  for (const r of results)
    console.log(`${r.entries}: the check's CPU time p50 ${r.checkCpu.p50.toFixed(2)} ms, p95 ${r.checkCpu.p95.toFixed(2)} ms`)
  for (const r of results)
    console.log(`labelled pairs among ${r.entries}: precision ${r.precision.toFixed(3)}, recall ${r.recall.toFixed(3)}`)
  const worst = Math.max(...results.map((r) => r.check.p50))
  console.log(`goal: the check adds ≤ ${GOAL_MS} ms to a create (p50): ${worst <= GOAL_MS ? 'met' : 'NOT met'} (${worst.toFixed(2)} ms)`)
}
