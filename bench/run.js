#!/usr/bin/env node
// `npm run bench`: builds nothing, runs every benchmark one after another, each in its own process.
// A benchmark is any plain script `bench/*.js` (this file aside) or a TypeScript `bench/*.bench.ts`, which
// `npm run build` compiles to `dist/bench/*.bench.js`. Arguments after `--` go to every benchmark, e.g.
// `npm run bench -- --sizes 1000,10000`; `--only NAME` runs the benchmarks whose file name contains NAME.
// The machine is shared: run it when `uptime` shows little load, and say what the load was.
import {spawnSync} from 'node:child_process'
import {existsSync, readdirSync} from 'node:fs'
import {join, resolve} from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
const args = process.argv.slice(2)
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null
const passOn = only === null ? args : args.filter((_, i) => i !== args.indexOf('--only') && i !== args.indexOf('--only') + 1)

const list = (dir, suffix) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith(suffix))
        .sort()
        .map((f) => join(dir, f))
    : []
const scripts = [
  ...list(join(ROOT, 'dist', 'bench'), '.bench.js'),
  ...list(join(ROOT, 'bench'), '.js').filter((f) => !f.endsWith('run.js')),
].filter((f) => only === null || f.slice(f.lastIndexOf('/') + 1).includes(only))

if (!existsSync(join(ROOT, 'dist', 'bench'))) {
  console.error('bench: dist/bench is missing; run `npm run build` first')
  process.exit(1)
}
let failed = 0
for (const script of scripts) {
  const name = script.slice(ROOT.length + 1)
  console.log(`\n## ${name}\n`)
  const r = spawnSync(process.execPath, [script, ...passOn], {stdio: 'inherit', cwd: ROOT})
  if (r.status !== 0) {
    failed++
    console.error(`bench: ${name} failed (exit ${r.status ?? r.signal})`)
  }
}
process.exit(failed === 0 ? 0 : 1)
