/**
 * The docs test: every shell example of docs/*.md and README.md (test/docs/extract.ts) runs against a
 * real daemon, with `kb` the built bin/run.js, and must exit as the doc says (0 unless a transcript's
 * `echo $?` says otherwise) and, where the doc shows output, print output of that shape. Blocks marked
 * `<!-- not run: … -->` are counted and named. Each block runs in one bash (`set -o pipefail`), in a git
 * checkout that joined github.com/acme/api, with fixtures: $B and $K (the base URL and the owner key), a
 * fresh entry as $ID/$id/$fork, $ALICE_KEY, key.txt, notes.md, kb.jsonl, and ~/backups/kb-2026-01-31.sqlite
 * taken from another data directory. Addresses the docs name are mapped onto the test's own (see SUBST).
 */
import {execFileSync} from 'node:child_process'
import {chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {KB_BIN, ROOT, startChildDaemon, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, freePort, gitRepo, kb, makeUser, run, type KbEnv} from '../cli/helpers.js'
import {docBlocks, type DocBlock, type DocCommand} from './extract.js'

// operations.md last: its restore replaces the store under the daemon the other files' examples use.
const FILES = [
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md') && f !== 'operations.md')
    .sort()
    .map((f) => `docs/${f}`),
  'README.md',
  'docs/operations.md',
]
const BLOCKS = FILES.flatMap((f) => docBlocks(join(ROOT, f)).map((b) => ({...b, file: f})))
/** The id the docs use for "an entry", mapped to a fresh one. */
const DOC_ID = '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980'

let user: KbEnv
let other: ChildDaemon
let url: string
let repo: string
let shims: string
let subst: [string, string][]
const notRun: string[] = []

beforeAll(async () => {
  // The default data directory (~/.local/share/kb), as the docs' paths say: no KB_DATA_DIR, no XDG_DATA_HOME.
  user = makeUser({NODE_ENV: 'production'})
  delete user.env.KB_DATA_DIR
  delete user.env.XDG_DATA_HOME
  user.dataDir = join(user.home, '.local', 'share', 'kb')
  const port = await freePort()
  url = `http://127.0.0.1:${port}/api/v1`
  user.env.KB_BASE_URL = url
  const started = await kb(user, ['daemon', 'start'])
  expect(started.code, started.stderr).toBe(0)

  shims = join(user.root, 'bin')
  mkdirSync(shims)
  const shim = (name: string, body: string): void => {
    writeFileSync(join(shims, name), `#!/bin/sh\n${body}\n`)
    chmodSync(join(shims, name), 0o755)
  }
  shim('kb', `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(KB_BIN)} "$@"`)
  // A curl example must get a 2xx: a 4xx or 5xx makes curl exit 22, which the test reports.
  shim('curl', `exec ${JSON.stringify(execFileSync('sh', ['-c', 'command -v curl'], {encoding: 'utf8'}).trim())} --fail-with-body "$@"`)
  shim('journalctl', `echo 'Nov 24 00:00:01 host kb[4242]: Error: listen EADDRINUSE: address already in use 127.0.0.1:7411'`)
  user.env.PATH = `${shims}:${user.env.PATH}`

  repo = gitRepo(user, 'api', {origin: 'git@github.com:acme/api.git', upstream: 'https://github.com/acme/api.git'})
  const joined = await kb(user, ['project', 'join'], {cwd: repo})
  expect(joined.code, joined.stderr).toBe(0)
  writeFileSync(join(repo, 'key.txt'), `${ownerKey()}\n`)
  writeFileSync(join(repo, 'notes.md'), 'Fails about one run in ten on CI.\n')
  writeFileSync(join(repo, 'test-output.txt'), 'FAIL test/flaky.test.ts > retries\n')
  const exported = await kb(user, ['export', '-o', join(repo, 'kb.jsonl')], {cwd: repo})
  expect(exported.code, exported.stderr).toBe(0)
  writeFileSync(join(repo, 'mine.jsonl'), readFileSync(join(repo, 'kb.jsonl')))

  // The backup operations.md restores: taken from another data directory, so its owner key is not ours.
  other = await startChildDaemon()
  const there = {KB_BASE_URL: other.url, KB_DATA_DIR: other.dataDir}
  const seeded = await kb(user, ['add', 'Port 7411 held by an old daemon', '--body', 'Run kb daemon stop first.'], {env: there})
  expect(seeded.code, seeded.stderr).toBe(0)
  mkdirSync(join(user.home, 'backups'))
  const backup = await kb(user, ['backup', join(user.home, 'backups', 'kb-2026-01-31.sqlite')], {env: there})
  expect(backup.code, backup.stderr).toBe(0)

  const scratch = await freePort()
  subst = [
    ['npx kb ', 'kb '],
    ['http://127.0.0.1:7411/api/v1', url],
    ['http://127.0.0.1:7412/api/v1', `http://127.0.0.1:${scratch}/api/v1`],
    ['127.0.0.1:7411', new URL(url).host],
    // The docs' team servers are played by the test's daemon.
    ['https://kb.acme.dev/api/v1', url],
    ['https://kb.example.com/api/v1', url],
    ['/tmp/kb-restore-test', join(user.root, 'restore-test')],
  ]
}, 120_000)

afterAll(async () => {
  await other?.stop()
  if (user) {
    await kb(user, ['daemon', 'stop']).catch(() => undefined)
    await cleanup(user)
  }
  if (notRun.length > 0) console.log(`docs examples not run (${notRun.length}):\n${notRun.map((n) => `  ${n}`).join('\n')}`)
})

function ownerKey(): string {
  return readFileSync(join(user.dataDir, 'owner.key'), 'utf8').trim()
}

function mapped(text: string): string {
  return subst.reduce((t, [from, to]) => t.split(from).join(to), text)
}

async function post(path: string, body: unknown): Promise<{id: string; key?: string}> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: {authorization: `Bearer ${ownerKey()}`, 'content-type': 'application/json'},
    body: JSON.stringify(body),
  })
  expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(300)
  return (await res.json()) as {id: string; key?: string}
}

/** The fixtures of one block: fresh entries and a key, so that no block depends on another. */
async function fixtures(): Promise<Record<string, string>> {
  const entry = await post('/knowledge', {title: 'Port 7411 already in use', body: 'Run kb daemon stop.', tags: ['daemon']})
  const fork = await post('/knowledge', {title: 'Same crash on Windows', body: 'Also on Windows.'})
  const alice = await post('/api-keys', {principal: 'alice', name: `docs ${entry.id}`})
  const mine = await post('/api-keys', {name: `docs ${entry.id}`})
  subst = subst.filter(([from]) => from !== DOC_ID).concat([[DOC_ID, entry.id]])
  const key = ownerKey()
  return {
    B: url,
    K: key,
    ID: entry.id,
    id: entry.id,
    fork: fork.id,
    ALICE_KEY: alice.key!,
    key_id: mine.id,
    KB_TEAM_KEY: key,
    KB_CI_KEY: key,
    CI_RUN_ID: '42',
  }
}

interface Outcome {
  cmd: DocCommand
  code: number
  stdout: string
  stderr: string
}

/** Runs a block's commands in one bash, each one's output and status kept apart. */
async function runBlock(b: DocBlock): Promise<Outcome[]> {
  const out = join(user.root, 'out')
  rmSync(out, {recursive: true, force: true})
  mkdirSync(out)
  const script = ['set -o pipefail']
  b.commands.forEach((c, i) => {
    script.push(`{ ${mapped(c.text)}\n} >"${out}/${i}.out" 2>"${out}/${i}.err" </dev/null; echo $? >"${out}/${i}.rc"`)
  })
  const env = {...(await fixtures()), ...b.env}
  const r = await run('bash', ['-c', script.join('\n')], user, {cwd: repo, env, timeoutMs: 60_000})
  expect(r.stderr, 'the block itself').toBe('')
  return b.commands.map((cmd, i) => {
    const read = (ext: string): string => {
      try {
        return readFileSync(join(out, `${i}.${ext}`), 'utf8')
      } catch {
        return ''
      }
    }
    return {cmd, code: Number(read('rc').trim() || Number.NaN), stdout: read('out'), stderr: read('err')}
  })
}

/** Keys of `want` (recursively) all present in `got`, with values of the same JSON type. */
function sameJsonShape(want: unknown, got: unknown, path = '$'): string | null {
  const type = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)
  if (type(want) !== type(got) && want !== null && got !== null) return `${path}: ${type(got)} instead of ${type(want)}`
  if (type(want) === 'object' && type(got) === 'object') {
    for (const [k, v] of Object.entries(want as Record<string, unknown>)) {
      if (!(k in (got as Record<string, unknown>))) return `${path}.${k} missing`
      const inner = sameJsonShape(v, (got as Record<string, unknown>)[k], `${path}.${k}`)
      if (inner) return inner
    }
  }
  return null
}

/** The output a transcript shows, against what ran: JSON by its keys, text by its lines' first words. */
function shapeProblem(expected: string[], o: Outcome): string | null {
  const want = mapped(expected.join('\n')).trim()
  if (want.startsWith('{')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(want)
    } catch {
      return null // an abridged sample (…): its shape is not checked
    }
    try {
      return sameJsonShape(parsed, JSON.parse(o.stdout))
    } catch {
      return `stdout is not JSON: ${o.stdout.slice(0, 200)}`
    }
  }
  const got = `${o.stdout}${o.stderr}`.split('\n').filter((l) => l.trim() !== '')
  const lines = want.split('\n').filter((l) => l.trim() !== '')
  if (got.length !== lines.length) return `${got.length} lines instead of ${lines.length}:\n${got.join('\n')}`
  const first = (l: string): string => l.trim().split(/\s+/)[0]!
  const diff = lines.findIndex((l, i) => first(l) !== first(got[i]!))
  return diff < 0 ? null : `line ${diff + 1} starts "${first(got[diff]!)}", the doc's "${first(lines[diff]!)}"`
}

describe('docs examples', () => {
  it('finds the examples, and every one is run or marked', () => {
    expect(BLOCKS.length).toBeGreaterThan(20)
    expect(BLOCKS.flatMap((b) => b.commands).filter((c) => c.example).length).toBeGreaterThan(60)
  })

  it('the examples marked not run say why, and name commands kb has', () => {
    // Not run (a browser, an editor, PostgreSQL…), they can still drift: each `kb` line must name a command
    // of the manifest (or oclif's autocomplete plugin), or be a global flag such as --version.
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, unknown>}
    const ids = new Set([...Object.keys(manifest.commands).map((id) => id.split(':').join(' ')), 'autocomplete'])
    const marked = BLOCKS.filter((b) => b.notRun !== null)
    expect(marked.length).toBeGreaterThan(0)
    for (const b of marked) {
      expect(b.notRun!.trim(), `${b.file}:${b.line}`).not.toBe('')
      for (const c of b.commands.filter((x) => /^kb\s/.test(x.text))) {
        const words = c.text.split(/\s+/).slice(1)
        const known = words[0]!.startsWith('-') || [3, 2, 1].some((n) => ids.has(words.slice(0, n).join(' ')))
        expect(known, `${b.file}:${c.line} \`${c.text}\``).toBe(true)
      }
    }
  })

  for (const b of BLOCKS) {
    const name = `${b.file}:${b.line}`
    if (b.notRun !== null) {
      notRun.push(`${name}: ${b.notRun}`)
      continue
    }
    it(
      name,
      async () => {
        const problems: string[] = []
        for (const o of await runBlock(b)) {
          const where = `${b.file}:${o.cmd.line} \`${o.cmd.text}\``
          if (o.code !== o.cmd.exit)
            problems.push(`${where}: exit ${o.code}, the doc says ${o.cmd.exit}\n${o.stderr}${o.stdout.slice(0, 400)}`)
          else if (o.cmd.output) {
            const p = shapeProblem(o.cmd.output, o)
            if (p) problems.push(`${where}: ${p}`)
          }
        }
        expect(problems, problems.join('\n\n')).toEqual([])
      },
      120_000,
    )
  }
})
