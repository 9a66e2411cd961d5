#!/usr/bin/env node
// CLI start-up benchmark (issues 3 and 30): `kb --version`, `kb search <word>` against a warm daemon (outside and
// inside a joined git checkout) and the post-commit hook with nothing to do, each against `node -e 0`,
// measured in one run with hyperfine (or a repeated-run timer when hyperfine is missing). --baseline DIR adds
// `kb --version` and `kb search` of another built checkout of kb (e.g. a `git worktree` of an older commit, with
// `npm run build` run there) to the same run, against the same daemon: before and after, same conditions.
// Usage: npm run build && node bench/cli.js [--runs N] [--json] [--baseline DIR]
import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
const KB = join(ROOT, 'bin', 'run.js')
const args = process.argv.slice(2)
const runs = Number(args[args.indexOf('--runs') + 1]) || 30
const asJson = args.includes('--json')
const baseline = args.includes('--baseline') ? resolve(args[args.indexOf('--baseline') + 1]) : null
// Issue 30: as light as node.
const GOALS = {'kb --version': 1.1, 'kb search port': 2, 'kb search port (in a joined checkout)': 2}

const dir = mkdtempSync(join(tmpdir(), 'kb-bench-cli-'))
const dataDir = join(dir, 'data')
let work = ''
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('KB_') && k !== 'CI')),
  HOME: dir,
  XDG_CONFIG_HOME: join(dir, 'config'),
  KB_DATA_DIR: dataDir,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
}

const daemon = spawn(process.execPath, [KB, 'daemon', 'run', '--port', '0', '--data-dir', dataDir, '--log-level', 'info'], {
  env,
  stdio: ['ignore', 'ignore', 'pipe'],
})
try {
  const url = await new Promise((res, rej) => {
    let err = ''
    const t = setTimeout(() => rej(new Error(`daemon did not start:\n${err}`)), 60_000)
    daemon.stderr.on('data', (d) => {
      err += d
      const m = /"url":"([^"]+)"[^\n]*kb daemon listening|kb daemon listening[^\n]*"url":"([^"]+)"/.exec(err)
      if (m) {
        clearTimeout(t)
        res(m[1] ?? m[2])
      }
    })
  })
  env.KB_BASE_URL = url
  const key = readFileSync(join(dataDir, 'owner.key'), 'utf8').trim()
  for (let i = 0; i < 50; i++) {
    const body = {
      title: `Entry ${i}: ${i % 5 === 0 ? 'port already in use' : 'sqlite database is locked'}`,
      body: `Notes number ${i} about the port and the database.`,
      scope: 'global',
    }
    await fetch(`${url}/knowledge`, {
      method: 'POST',
      headers: {authorization: `Bearer ${key}`, 'content-type': 'application/json'},
      body: JSON.stringify(body),
    })
  }
  work = join(dir, 'work')
  mkdirSync(work)
  const repo = join(dir, 'repo')
  mkdirSync(repo)
  const git = (...a) => execFileSync('git', a, {cwd: repo, env, stdio: 'ignore'})
  git('init', '-q')
  git('remote', 'add', 'origin', 'git@github.com:acme/api.git')
  git('commit', '-q', '--allow-empty', '-m', 'a commit without a trailer')
  execFileSync(process.execPath, [KB, 'project', 'join'], {cwd: repo, env, stdio: 'ignore'})
  execFileSync(process.execPath, [KB, 'hook', 'install'], {cwd: repo, env, stdio: 'ignore'})

  const cases = [
    {name: 'node -e 0', cmd: [process.execPath, '-e', '0'], cwd: work},
    {name: 'kb --version', cmd: [process.execPath, KB, '--version'], cwd: work},
    {name: 'kb search port', cmd: [process.execPath, KB, 'search', 'port'], cwd: work},
    // hyperfine -N runs every command in one directory: GIT_DIR (through env(1)) puts these in the checkout.
    {
      name: 'kb search port (in a joined checkout)',
      cmd: ['env', `GIT_DIR=${join(repo, '.git')}`, process.execPath, KB, 'search', 'port'],
      cwd: work,
    },
    {
      name: 'post-commit hook, no trailer',
      cmd: ['env', `GIT_DIR=${join(repo, '.git')}`, 'sh', join(repo, '.git', 'hooks', 'post-commit')],
      cwd: work,
    },
  ]
  if (baseline)
    cases.push(
      {name: 'baseline: kb --version', cmd: [process.execPath, join(baseline, 'bin', 'run.js'), '--version'], cwd: work},
      {name: 'baseline: kb search port', cmd: [process.execPath, join(baseline, 'bin', 'run.js'), 'search', 'port'], cwd: work},
    )
  for (const c of cases) {
    const r = spawnSync(c.cmd[0], c.cmd.slice(1), {cwd: c.cwd, env, encoding: 'utf8'})
    if (r.status !== 0) throw new Error(`${c.name} failed: ${r.stderr}`)
  }
  const haveHyperfine = spawnSync('hyperfine', ['--version']).status === 0
  const results = haveHyperfine ? withHyperfine(cases) : withTimer(cases)
  const base = results[0].mean
  // Wall time is what a user waits for; CPU time (user + system) moves less with the machine's load.
  const cpuBase = results[0].cpu
  const rows = results.map((r) => ({
    ...r,
    ratio: r.mean / base,
    cpuRatio: r.cpu === null ? null : r.cpu / cpuBase,
    goal: GOALS[r.name] ?? null,
  }))
  if (asJson) process.stdout.write(`${JSON.stringify({tool: haveHyperfine ? 'hyperfine' : 'timer', runs, rows}, null, 2)}\n`)
  else {
    console.log(`CLI start-up (${haveHyperfine ? 'hyperfine' : 'repeated-run timer'}, ${runs} runs each, warm daemon, 50 entries)\n`)
    console.log('| command | mean ms | median ms | user ms | CPU ms | × node -e 0 | CPU × | goal |')
    console.log('|---|---:|---:|---:|---:|---:|---:|---|')
    const ms = (v) => (v === null ? '' : v.toFixed(1))
    for (const r of rows)
      console.log(
        `| \`${r.name}\` | ${ms(r.mean)} | ${ms(r.median)} | ${ms(r.user)} | ${ms(r.cpu)} | ${r.ratio.toFixed(2)} | ${r.cpuRatio === null ? '' : r.cpuRatio.toFixed(2)} | ${r.goal ? `≤ ${r.goal}× ${r.ratio <= r.goal ? '✓' : '✗'}` : r.name.startsWith('post-commit') ? `≤ 150 ms ${r.mean <= 150 ? '✓' : '✗'}` : ''} |`,
      )
  }
} finally {
  daemon.kill('SIGTERM')
  await new Promise((r) => daemon.once('exit', r))
  rmSync(dir, {recursive: true, force: true})
}

function withHyperfine(cases) {
  const out = join(dir, 'hyperfine.json')
  // One hyperfine run for all commands, so the ratios share the machine's conditions; no shell (-N).
  const q = (s) => (/^[\w./=:-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)
  const cmds = cases.map((c) => c.cmd.map(q).join(' '))
  execFileSync('hyperfine', ['-N', '--warmup', '5', '--runs', String(runs), '--export-json', out, '--style', 'none', ...cmds], {
    cwd: work,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const data = JSON.parse(readFileSync(out, 'utf8'))
  return data.results.map((r, i) => ({
    name: cases[i].name,
    mean: r.mean * 1000,
    median: r.median * 1000,
    user: r.user * 1000,
    cpu: (r.user + r.system) * 1000,
  }))
}

function withTimer(cases) {
  return cases.map((c) => {
    const times = []
    for (let i = 0; i < runs + 5; i++) {
      const t = process.hrtime.bigint()
      spawnSync(c.cmd[0], c.cmd.slice(1), {cwd: c.cwd, env, stdio: 'ignore'})
      if (i >= 5) times.push(Number(process.hrtime.bigint() - t) / 1e6)
    }
    times.sort((a, b) => a - b)
    return {
      name: c.name,
      mean: times.reduce((a, b) => a + b, 0) / times.length,
      median: times[Math.floor(times.length / 2)],
      user: null,
      cpu: null,
    }
  })
}
