#!/usr/bin/env node
// `kb check` benchmark (issue 26): a git repository of 5,000 files, 1,000 entries of its project with two
// anchors each (lines of two files) on a real daemon; one commit edits, moves and renames a few anchored
// files. Measures the built `kb check` from the shell: a full check (the first one reports what changed,
// the later ones find nothing new to report) and a one-commit `kb check --changed-in HEAD`; medians.
// Usage: npm run build && npm run bench -- --only check [--runs N] [--files N] [--entries N] [--json]
import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {cpus, loadavg, tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
const KB = join(ROOT, 'bin', 'run.js')
const args = process.argv.slice(2)
const opt = (name, dflt) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt)
const runs = opt('--runs', 7)
const FILES = opt('--files', 5000)
const ENTRIES = opt('--entries', 1000)
const asJson = args.includes('--json')
const GOALS = {full: 5000, changedIn: 300}

const dir = mkdtempSync(join(tmpdir(), 'kb-bench-check-'))
const dataDir = join(dir, 'data')
const repo = join(dir, 'repo')
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('KB_') && k !== 'CI' && !k.startsWith('GIT_'))),
  HOME: dir,
  XDG_CONFIG_HOME: join(dir, 'config'),
  XDG_STATE_HOME: join(dir, 'state'),
  KB_DATA_DIR: dataDir,
  KB_NO_QUEUE: '1',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
}
const git = (...a) => execFileSync('git', a, {cwd: repo, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024}).trim()
const sha256 = (s) => createHash('sha256').update(s, 'utf8').digest('hex')
/** File i: 60 lines of its own text, in 50 directories. */
const pathOf = (i) => `src/mod${String(i % 50).padStart(2, '0')}/file${i}.ts`
const textOf = (i) =>
  Array.from({length: 60}, (_, l) => `export const v${i}_${l} = ${i * 100 + l} // line ${l + 1} of file ${i}`).join('\n') + '\n'
const linesOf = (text, a, b) =>
  text
    .split('\n')
    .slice(a - 1, b)
    .join('\n')

const daemon = spawn(process.execPath, [KB, 'daemon', 'run', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn', '--json'], {
  env,
  stdio: ['ignore', 'pipe', 'pipe'],
})
try {
  const url = await new Promise((res, rej) => {
    let out = ''
    let err = ''
    const t = setTimeout(() => rej(new Error(`daemon did not start:\n${err}`)), 60_000)
    daemon.stderr.on('data', (d) => (err += d))
    daemon.stdout.on('data', (d) => {
      out += d
      const m = /"url":"([^"]+)"/.exec(out)
      if (m) {
        clearTimeout(t)
        res(m[1])
      }
    })
  })
  env.KB_BASE_URL = url
  const key = readFileSync(join(dataDir, 'owner.key'), 'utf8').trim()
  const call = async (method, path, body) => {
    const r = await fetch(`${url}${path}`, {
      method,
      headers: {authorization: `Bearer ${key}`, 'content-type': 'application/json'},
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`)
    return r.json()
  }

  // The repository: FILES files of 60 lines, one commit.
  mkdirSync(repo)
  git('init', '-q', '-b', 'main')
  git('remote', 'add', 'origin', 'git@github.com:bench/check.git')
  for (let i = 0; i < FILES; i++) {
    const p = join(repo, pathOf(i))
    mkdirSync(dirname(p), {recursive: true})
    writeFileSync(p, textOf(i))
  }
  git('add', '.')
  git('commit', '-q', '-m', 'the code')
  const c1 = git('rev-parse', 'HEAD')
  const joined = JSON.parse(execFileSync(process.execPath, [KB, 'project', 'join', '--json'], {cwd: repo, env, encoding: 'utf8'}))
  const projectId = joined.project.id

  // ENTRIES entries, each anchored to lines of two files; 8 requests at a time.
  const t0 = Date.now()
  let next = 0
  const worker = async () => {
    while (next < ENTRIES) {
      const i = next++
      const f1 = (i * 7) % FILES
      const f2 = (i * 13 + 1) % FILES
      const anchors = [
        {path: pathOf(f1), lines: '10-14', commit: c1, hash: sha256(linesOf(textOf(f1), 10, 14))},
        {path: pathOf(f2), lines: '30-33', commit: c1, hash: sha256(linesOf(textOf(f2), 30, 33))},
      ]
      await call('POST', '/knowledge', {
        title: `Entry ${i} about file ${f1}`,
        body: `How ${pathOf(f1)} works.`,
        scope: 'project',
        project_id: projectId,
        anchors,
      })
    }
  }
  await Promise.all(Array.from({length: 8}, worker))
  const loadMs = Date.now() - t0

  // One commit: 10 anchored files edited at the anchored lines, 10 with lines inserted above them, 5 renamed.
  for (let k = 0; k < 10; k++) {
    const f = (k * 7) % FILES
    writeFileSync(join(repo, pathOf(f)), textOf(f).replace(`// line 11 of file ${f}`, '// edited'))
  }
  for (let k = 10; k < 20; k++) {
    const f = (k * 7) % FILES
    writeFileSync(join(repo, pathOf(f)), `// inserted\n// inserted\n${textOf(f)}`)
  }
  for (let k = 20; k < 25; k++) {
    const f = (k * 7) % FILES
    renameSync(join(repo, pathOf(f)), join(repo, pathOf(f).replace('.ts', '-renamed.ts')))
  }
  git('add', '-A')
  git('commit', '-q', '-m', 'change some anchored code')

  const timed = (cmdArgs) => {
    const t = process.hrtime.bigint()
    const r = spawnSync(process.execPath, [KB, ...cmdArgs], {cwd: repo, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024})
    const ms = Number(process.hrtime.bigint() - t) / 1e6
    if (r.status !== 0) throw new Error(`kb ${cmdArgs.join(' ')} exited ${r.status}: ${r.stderr}`)
    return {ms, out: r.stdout}
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  // The first full check finds and reports the changes; later ones have nothing new to report.
  const first = timed(['check', '--json'])
  const report = JSON.parse(first.out)
  const full = Array.from({length: runs}, () => timed(['check', '--json']).ms)
  const changed = Array.from({length: runs}, () => timed(['check', '--changed-in', 'HEAD', '--json']).ms)
  // The hook's usual case: a new commit that changes one anchored file, so the check has news to read and report.
  const news = Array.from({length: runs}, (_, r) => {
    const f = ((100 + r) * 7) % FILES
    writeFileSync(join(repo, pathOf(f)), textOf(f).replace(`// line 12 of file ${f}`, `// edited in run ${r}`))
    git('commit', '-q', '-am', `edit file ${f}`)
    const t = timed(['check', '--changed-in', 'HEAD', '--json'])
    const got = JSON.parse(t.out)
    if (got.counts.changed < 1 || got.reported < 1) throw new Error(`the one-file change was not found: ${t.out}`)
    return t.ms
  })
  const version = Array.from({length: runs}, () => timed(['--version']).ms)
  // The floor: any kb command that asks the daemon one thing (start-up, the daemon's proof, one request).
  const floor = Array.from({length: runs}, () => timed(['project', 'show']).ms)
  const result = {
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
    nproc: execFileSync('nproc', {encoding: 'utf8'}).trim(),
    node: process.version,
    load: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
    files: FILES,
    entries: ENTRIES,
    anchors: report.counts.current + report.counts.moved + report.counts.changed + report.counts.deleted + report.counts.skipped,
    first_check: {ms: Math.round(first.ms), counts: report.counts, reported: report.reported},
    full_ms: {median: Math.round(median(full)), all: full.map(Math.round)},
    changed_in_ms: {median: Math.round(median(changed)), all: changed.map(Math.round)},
    changed_in_news_ms: {median: Math.round(median(news)), all: news.map(Math.round)},
    kb_version_ms: Math.round(median(version)),
    kb_project_show_ms: Math.round(median(floor)),
    load_entries_ms: loadMs,
  }
  if (asJson) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
  else {
    console.log(
      `kb check on ${FILES} files, ${ENTRIES} entries, ${result.anchors} anchors (${result.date}; nproc ${result.nproc}; node ${result.node}; load ${result.load})\n`,
    )
    console.log('| run | median ms | runs | goal |')
    console.log('|---|---:|---|---|')
    console.log(
      `| first full \`kb check\` (reports ${report.reported} entries: ${JSON.stringify(report.counts)}) | ${result.first_check.ms} | 1 | ≤ ${GOALS.full} ${result.first_check.ms <= GOALS.full ? '✓' : '✗'} |`,
    )
    console.log(
      `| full \`kb check\`, nothing new | ${result.full_ms.median} | ${full.map(Math.round).join(', ')} | ≤ ${GOALS.full} ${result.full_ms.median <= GOALS.full ? '✓' : '✗'} |`,
    )
    console.log(
      `| \`kb check --changed-in HEAD\` (one commit) | ${result.changed_in_ms.median} | ${changed.map(Math.round).join(', ')} | ≤ ${GOALS.changedIn} ${result.changed_in_ms.median <= GOALS.changedIn ? '✓' : '✗'} |`,
    )
    console.log(
      `| \`kb check --changed-in HEAD\` after a commit that changed one anchored file (reads it afresh, reports it) | ${result.changed_in_news_ms.median} | ${news.map(Math.round).join(', ')} | ≤ ${GOALS.changedIn} ${result.changed_in_news_ms.median <= GOALS.changedIn ? '✓' : '✗'} |`,
    )
    console.log(
      `| \`kb project show\` (one request to the daemon, for scale) | ${result.kb_project_show_ms} | ${floor.map(Math.round).join(', ')} | |`,
    )
    console.log(`| \`kb --version\` (node start-up, for scale) | ${result.kb_version_ms} | | |`)
  }
} finally {
  daemon.kill('SIGTERM')
  await new Promise((r) => daemon.once('exit', r))
  rmSync(dir, {recursive: true, force: true})
}
