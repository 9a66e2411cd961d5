/**
 * @module The hostile-input benchmark (docs/performance.md, "Hostile input"): one built `kb daemon run`
 * (port 0, default log level, logging to a file), then every shape of bench/hostile-shapes.ts, one after
 * another, each sent while `GET /health` is probed every 20 ms; prints how long each request took and the
 * worst `/health` wait during it (after ordinary requests have warmed the daemon up). Goal: no shape stalls
 * `/health` for more than 100 ms.
 * With `--repeat N` each shape is sent N times (prepared anew each time) and the medians are shown, with the
 * worst wait of any repeat. Usage: `node dist/bench/hostile.bench.js [--shapes TEXT] [--repeat N] [--json]`
 * (`npm run bench:hostile`).
 */
import {spawn} from 'node:child_process'
import {closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync} from 'node:fs'
import {cpus, loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'
import {dataFiles} from '../src/shared/paths.js'
import {projectRoot} from './cranfield.js'
import {whileProbing} from './health-probe.js'
import {HOSTILE_SHAPES, type Target, warmUp} from './hostile-shapes.js'

const GOAL_MS = 100
const args = process.argv.slice(2)
const only = args.includes('--shapes') ? (args[args.indexOf('--shapes') + 1] ?? '') : ''
const asJson = args.includes('--json')
const repeat = Math.max(1, Number(args.includes('--repeat') ? args[args.indexOf('--repeat') + 1] : 1))

interface Row {
  shape: string
  status: number
  /** Medians over the repeats: the request's time and the worst /health wait during it… */
  ms: number
  worstHealthMs: number
  /** …and the worst wait of any repeat. */
  maxHealthMs: number
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** `kb daemon run` on a new data directory; resolves once it answers `/health`. */
async function startDaemon(dataDir: string): Promise<{target: Target; stop: () => Promise<void>}> {
  const files = dataFiles(dataDir)
  const log = openSync(join(dataDir, 'bench-daemon.log'), 'a')
  const args = [join(projectRoot(), 'bin/run.js'), 'daemon', 'run', '--port', '0', '--data-dir', dataDir]
  const child = spawn(process.execPath, args, {stdio: ['ignore', 'ignore', log]})
  closeSync(log)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const started = performance.now()
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the daemon exited with ${child.exitCode}; see ${join(dataDir, 'bench-daemon.log')}`)
    if (performance.now() - started > 60_000) throw new Error('the daemon did not answer /health within 60 s')
    if (existsSync(files.daemonJson) && existsSync(join(dataDir, 'owner.key'))) {
      try {
        const base = (JSON.parse(readFileSync(files.daemonJson, 'utf8')) as {url: string}).url
        if ((await fetch(`${base}/health`)).ok) {
          const key = readFileSync(join(dataDir, 'owner.key'), 'utf8').trim()
          return {
            target: {base, key},
            stop: async () => {
              if (child.exitCode === null) child.kill('SIGTERM')
              await exited
            },
          }
        }
      } catch {
        // not written completely or not listening yet
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

function formatRow(r: Row): string {
  const over = r.worstHealthMs > GOAL_MS ? '  over the goal' : ''
  const max = repeat > 1 ? ` (max ${r.maxHealthMs.toFixed(0)})` : ''
  return `${r.shape.padEnd(68)} ${r.status}   ${r.ms.toFixed(0).padStart(6)} ms   ${r.worstHealthMs.toFixed(0).padStart(6)} ms${max}${over}`
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kb-hostile-bench-'))
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
  const {target, stop} = await startDaemon(dataDir)
  const rows: Row[] = []
  try {
    await warmUp(target)
    if (!asJson) console.log(`${'shape'.padEnd(68)} status   request  worst /health${repeat > 1 ? ` (medians of ${repeat})` : ''}`)
    for (const shape of HOSTILE_SHAPES.filter((s) => s.name.includes(only))) {
      const runs = []
      for (let i = 0; i < repeat; i++) {
        const prepared = shape.prepare ? await shape.prepare(target) : undefined
        const run = await whileProbing(target.base, () => shape.send(target, prepared))
        const {status, text} = run.result
        if (status !== shape.expect) throw new Error(`${shape.name}: status ${status}, expected ${shape.expect}: ${text.slice(0, 300)}`)
        runs.push(run)
      }
      const waits = runs.map((r) => r.worstHealthMs)
      const row = {
        shape: shape.name,
        status: shape.expect,
        ms: median(runs.map((r) => r.ms)),
        worstHealthMs: median(waits),
        maxHealthMs: Math.max(...waits),
      }
      rows.push(row)
      if (!asJson) console.log(formatRow(row))
    }
  } finally {
    await stop()
    rmSync(dataDir, {recursive: true, force: true})
  }
  const worst = rows.reduce((a, r) => (r.worstHealthMs > a.worstHealthMs ? r : a), rows[0]!)
  const loadAfter = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
  const machine = {cpus: cpus().length, model: cpus()[0]?.model ?? '', node: process.version, loadBefore: load, loadAfter}
  if (asJson) console.log(JSON.stringify({date: new Date().toISOString(), machine, goalMs: GOAL_MS, repeat, rows}, null, 2))
  else {
    console.log(
      `\nworst /health wait: ${worst.worstHealthMs.toFixed(0)} ms (${worst.shape}${repeat > 1 ? ', median' : ''}); goal ≤ ${GOAL_MS} ms`,
    )
    console.log(
      `${machine.cpus} × ${machine.model}, Node ${machine.node}, load average ${machine.loadBefore} before, ${machine.loadAfter} after`,
    )
  }
}

await main()
