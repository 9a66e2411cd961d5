/**
 * @module Imports at disk speed (issue 30): a `kb export` file of N corpus entries (default 100,000, ≈ 110 MB of
 * JSON Lines) through the built `kb import` into a fresh daemon, per driver, while `GET /health` is probed every
 * 20 ms (bench/health-probe.ts). Reports the import's wall time, its rate, the slowest /health answer, and checks
 * that every entry arrived. Goals: ≤ 60 s on SQLite, ≤ 120 s on PostgreSQL, /health ≤ 100 ms throughout.
 * Usage: `npm run bench -- --only import` or `node dist/bench/import.bench.js [--entries 100000] [--store sqlite,postgres]`.
 */
import {spawn} from 'node:child_process'
import {createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {uuidv7} from '../server/lib/ids.js'
import {corpus} from './corpus.js'
import {projectRoot} from './cranfield.js'
import {call, machine, spawnDaemon} from './daemon-harness.js'
import {whileProbing} from './health-probe.js'
import {startCluster} from './postgres-cluster.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: string): string => (args.includes(name) ? (args[args.indexOf(name) + 1] ?? fallback) : fallback)
const ENTRIES = Number(option('--entries', '100000'))
const KINDS = option('--store', 'sqlite,postgres').split(',') as Array<'sqlite' | 'postgres'>
const GOALS = {sqliteSeconds: 60, postgresSeconds: 120, healthMs: 100}

/** The export file: its header, then one global entry per line, dated a second apart. */
async function writeExport(file: string, count: number): Promise<number> {
  const out = createWriteStream(file)
  const write = (line: string): Promise<void> | void => {
    if (!out.write(`${line}\n`)) return new Promise((resolve) => out.once('drain', resolve))
  }
  await write(JSON.stringify({kind: 'kb-export', version: 1}))
  const c = corpus(7)
  const base = Date.parse('2024-01-01T00:00:00Z')
  for (let i = 0; i < count; i++) {
    const e = c.entry(i)
    const at = new Date(base + i * 1_000).toISOString()
    const status = i % 3 === 0 ? 'resolved' : 'open'
    await write(
      JSON.stringify({kind: 'entry', id: uuidv7(base + i * 1_000), ...e, scope: 'global', status, created_at: at, updated_at: at}),
    )
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())))
  return statSync(file).size
}

/** `kb import FILE --json` (the built binary) against the daemon at `url`; its report. */
async function kbImport(url: string, key: string, file: string, home: string): Promise<{created: number}> {
  const env = {...process.env, KB_BASE_URL: url, KB_API_KEY: key, KB_NO_AUTOSTART: '1', XDG_CONFIG_HOME: home, HOME: home}
  const child = spawn(process.execPath, [join(projectRoot(), 'bin/run.js'), 'import', file, '--json'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  if (code !== 0) throw new Error(`kb import exited with ${code}: ${stderr.slice(0, 500)} ${stdout.slice(0, 500)}`)
  return JSON.parse(stdout) as {created: number}
}

async function main(): Promise<void> {
  const before = machine()
  const root = mkdtempSync(join(tmpdir(), 'kb-import-bench-'))
  const cluster = KINDS.includes('postgres') ? await startCluster({durable: true}) : null
  try {
    const file = join(root, 'export.jsonl')
    const bytes = await writeExport(file, ENTRIES)
    console.log(`Import benchmark, ${before.date}: ${before.cpu}, Node ${before.node}, load ${before.load}`)
    console.log(`${ENTRIES.toLocaleString('en')} entries, ${(bytes / 1e6).toFixed(0)} MB of JSON Lines\n`)
    console.log('| store | import s | MB/s | worst /health ms | /health probes | goal |')
    console.log('|---|---:|---:|---:|---:|---|')
    for (const kind of KINDS) {
      const dir = join(root, kind)
      mkdirSync(dir)
      const storeUrl = kind === 'postgres' ? await cluster!.createDatabase('import_bench') : undefined
      const d = await spawnDaemon(dir, storeUrl)
      try {
        const key = readFileSync(join(dir, 'owner.key'), 'utf8').trim()
        const run = await whileProbing(d.url, () => kbImport(d.url, key, file, root))
        if (run.result.created !== ENTRIES) throw new Error(`kb import created ${run.result.created} of ${ENTRIES}`)
        const total = (await call(d.url, key, 'GET', '/knowledge?limit=1')) as {total?: number}
        if (total.total !== undefined && total.total < ENTRIES) throw new Error(`the store lists ${total.total} entries`)
        const s = run.ms / 1000
        const limit = kind === 'sqlite' ? GOALS.sqliteSeconds : GOALS.postgresSeconds
        const ok = s <= limit && run.worstHealthMs <= GOALS.healthMs
        const cells = [kind, s.toFixed(1), (bytes / 1e6 / s).toFixed(2), run.worstHealthMs.toFixed(0), String(run.probes)]
        console.log(`| ${cells.join(' | ')} | ≤ ${limit} s, /health ≤ ${GOALS.healthMs} ms ${ok ? '✓' : '✗'} |`)
      } finally {
        await d.stop()
      }
    }
    console.log(`\nload after: ${machine().load}`)
  } finally {
    cluster?.stop()
    rmSync(root, {recursive: true, force: true})
  }
}

await main()
