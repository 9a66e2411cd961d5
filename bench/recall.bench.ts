/**
 * @module Recall latency (docs/performance.md, "Recall"): `kb recall --hook claude-code` end to end — a new process
 * reading Claude Code's hook JSON, asking a warm daemon, printing the context — against `node -e 0`, and
 * `POST /recalls` alone, on a store of `--entries` bulk-loaded entries (default 10,000), in one run.
 * Goal: the hook's p95 ≤ 250 ms. Usage: `node dist/bench/recall.bench.js [--entries N] [--runs N] [--json]`.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import Database from 'better-sqlite3'
import {dataFiles} from '../src/shared/paths.js'
import {prepareDataDir} from './bulk-load.js'
import {corpus} from './corpus.js'
import {projectRoot} from './cranfield.js'
import {call, latency, machine, spawnDaemon} from './daemon-harness.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: string): string => (args.includes(name) ? (args[args.indexOf(name) + 1] ?? fallback) : fallback)
const ENTRIES = Number(option('--entries', '10000'))
const RUNS = Number(option('--runs', '40'))
const asJson = args.includes('--json')
const GOAL_P95_MS = 250
const KB_BIN = join(projectRoot(), 'bin/run.js')

/** A prompt as a person writes one, around words of some entry's title. */
function prompt(i: number): string {
  return `I keep hitting this: ${corpus().shortQuery(i)}. What did we find last time, and how do I fix it?`
}

function timed(cmd: string[], input: string, env: NodeJS.ProcessEnv): {ms: number; out: string} {
  const started = performance.now()
  const r = spawnSync(cmd[0]!, cmd.slice(1), {input, env, encoding: 'utf8'})
  const ms = performance.now() - started
  if (r.status !== 0) throw new Error(`${cmd.join(' ')} exited ${r.status}: ${r.stderr}`)
  return {ms, out: r.stdout}
}

const dir = mkdtempSync(join(tmpdir(), 'kb-bench-recall-'))
try {
  const prepared = await prepareDataDir(join(dir, 'data'), ENTRIES)
  // The corpus is dated 2024: older than a project's 180 days, every entry would be stale and never recalled.
  const db = new Database(dataFiles(prepared.dataDir).db)
  db.prepare('UPDATE entries SET created_at = ?, updated_at = ?').run(new Date().toISOString(), new Date().toISOString())
  db.close()
  const daemon = await spawnDaemon(prepared.dataDir)
  try {
    const env = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('KB_'))),
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, 'config'),
      KB_BASE_URL: daemon.url,
      KB_API_KEY: prepared.ownerKey,
    }
    const hookInput = (i: number): string =>
      JSON.stringify({session_id: 'bench', cwd: dir, hook_event_name: 'UserPromptSubmit', prompt: prompt(i)})
    // Warm both: the daemon's caches and the file system's.
    for (let i = 0; i < 5; i++) timed([process.execPath, KB_BIN, 'recall', '--hook', 'claude-code'], hookInput(i), env)
    const node: number[] = []
    const hook: number[] = []
    let given = 0
    for (let i = 0; i < RUNS; i++) {
      node.push(timed([process.execPath, '-e', '0'], '', env).ms)
      const r = timed([process.execPath, KB_BIN, 'recall', '--hook', 'claude-code'], hookInput(i), env)
      hook.push(r.ms)
      if (r.out !== '') given++
    }
    const api: number[] = []
    for (let i = 0; i < RUNS * 5; i++) {
      const started = performance.now()
      await call(daemon.url, prepared.ownerKey, 'POST', '/recalls', {prompt: prompt(i), client: 'bench'})
      api.push(performance.now() - started)
    }
    const result = {
      machine: machine(),
      entries: ENTRIES,
      runs: RUNS,
      'node -e 0': latency(node),
      'kb recall --hook claude-code': latency(hook),
      'POST /recalls': latency(api),
      prompts_with_context: `${given}/${RUNS}`,
      goal_p95_ms: GOAL_P95_MS,
    }
    if (asJson) console.log(JSON.stringify(result, null, 2))
    else {
      console.log(`machine: ${Object.values(result.machine).join(' · ')}`)
      console.log(`${ENTRIES} entries, ${RUNS} runs; prompts that got context: ${result.prompts_with_context}`)
      for (const k of ['node -e 0', 'kb recall --hook claude-code', 'POST /recalls'] as const) {
        const l = result[k]
        console.log(`${k.padEnd(30)} p50 ${l.p50.toFixed(1)} ms  p95 ${l.p95.toFixed(1)} ms  p99 ${l.p99.toFixed(1)} ms`)
      }
      const p95 = result['kb recall --hook claude-code'].p95
      console.log(`hook p95 ${p95.toFixed(0)} ms: ${p95 <= GOAL_P95_MS ? 'within' : 'over'} the goal of ${GOAL_P95_MS} ms`)
    }
  } finally {
    await daemon.stop()
  }
} finally {
  rmSync(dir, {recursive: true, force: true})
}
