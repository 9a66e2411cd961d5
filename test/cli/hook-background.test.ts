/**
 * The hooks' background `kb check`: post-commit, post-merge and post-checkout start it and return without
 * waiting — git finishes while a deliberately slow kb (a stand-in that sleeps, then records how it was
 * called) is still running, and the stand-in does run to the end afterwards with the range git changed.
 * The real check reporting to a daemon is in check.test.ts.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cleanup, git, gitRepo, kb, makeUser, type KbEnv} from './helpers.js'

let user: KbEnv
/** How long the stand-in kb sleeps before it records its call. */
const SLOW_MS = 4000

beforeAll(() => {
  user = makeUser({KB_BASE_URL: 'http://127.0.0.1:9/api/v1', KB_NO_AUTOSTART: '1'})
})

afterAll(async () => {
  if (user) await cleanup(user)
})

/** A stand-in for bin/run.js: sleeps, then appends its arguments and KB_NO_AUTOSTART to `log` as one JSON line. */
function slowKb(log: string): string {
  const file = join(user.root, 'slow-kb.mjs')
  writeFileSync(
    file,
    `import {appendFileSync} from 'node:fs'
const args = process.argv.slice(2)
// The Resolves-KB path is not under test here: only the check.
if (args[0] === 'check') {
  await new Promise((r) => setTimeout(r, ${SLOW_MS}))
  appendFileSync(${JSON.stringify(log)}, JSON.stringify({args, noAutostart: process.env.KB_NO_AUTOSTART ?? null}) + '\\n')
}
`,
  )
  return file
}

async function waitForLines(file: string, n: number): Promise<{args: string[]; noAutostart: string | null}[]> {
  const deadline = Date.now() + SLOW_MS + 20_000
  for (;;) {
    const lines = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : []
    if (lines.length >= n || Date.now() > deadline) return lines.map((l) => JSON.parse(l))
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** git in the repo, timed; stdout and stderr are pipes, as in an IDE or a script: git must not wait on them either. */
function timedGit(cwd: string, ...args: string[]): {code: number | null; ms: number; stderr: string} {
  const t = Date.now()
  const r = spawnSync('git', args, {cwd, env: user.env, encoding: 'utf8', timeout: 60_000})
  return {code: r.status, ms: Date.now() - t, stderr: r.stderr}
}

describe('the hooks start kb check in the background', () => {
  it('commit, checkout and merge return before a slow check ends, and each check still runs to the end', async () => {
    const repo = gitRepo(user, 'bg', {origin: 'git@github.com:acme/bg.git'})
    const install = await kb(user, ['hook', 'install'], {cwd: repo})
    expect(install.code, install.stderr).toBe(0)
    const log = join(user.root, 'checks.jsonl')
    const stand = slowKb(log)
    for (const h of ['post-commit', 'post-merge', 'post-checkout']) {
      const hook = join(repo, '.git', 'hooks', h)
      writeFileSync(hook, readFileSync(hook, 'utf8').replace(/^KB_BIN=.*$/m, `KB_BIN='${stand}'`))
    }

    const c = timedGit(repo, 'commit', '-q', '--allow-empty', '-m', 'one')
    expect(c.code, c.stderr).toBe(0)
    // git is done while the check sleeps: nothing has been recorded yet.
    expect(existsSync(log)).toBe(false)
    const head1 = git(user, repo, 'rev-parse', 'HEAD')

    const co = timedGit(repo, 'checkout', '-q', '-b', 'topic')
    expect(co.code).toBe(0)
    const c2 = timedGit(repo, 'commit', '-q', '--allow-empty', '-m', 'two')
    expect(c2.code).toBe(0)
    const head2 = git(user, repo, 'rev-parse', 'HEAD')
    const back = timedGit(repo, 'checkout', '-q', 'main')
    expect(back.code).toBe(0)
    const merge = timedGit(repo, 'merge', '-q', '--ff-only', 'topic')
    expect(merge.code, merge.stderr).toBe(0)
    expect(existsSync(log), 'a check finished before git returned').toBe(false)
    // Every git command above returned while its check (SLOW_MS) was still asleep.
    for (const r of [c, co, c2, back, merge]) expect(r.ms).toBeLessThan(SLOW_MS)

    // The checks do finish: the commits, the branch switch back (a real change of HEAD), and the merge.
    // `checkout -b topic` did not move HEAD, so it started none.
    const calls = await waitForLines(log, 4)
    expect(calls.map((x) => x.args).sort()).toEqual(
      [
        ['check', '--changed-in', 'HEAD'],
        ['check', '--changed-in', 'HEAD'],
        ['check', '--changed-in', `${head2}..${head1}`],
        ['check', '--changed-in', 'ORIG_HEAD..HEAD'],
      ].sort(),
    )
    expect(calls.every((x) => x.noAutostart === '1')).toBe(true)
  })

  it('each hook returns within 150 ms while its check runs on (best of 7, the slow stand-in)', async () => {
    const repo = gitRepo(user, 'timed', {origin: 'git@github.com:acme/timed.git'})
    expect((await kb(user, ['hook', 'install'], {cwd: repo})).code).toBe(0)
    git(user, repo, 'commit', '-q', '--allow-empty', '-m', 'two')
    const stand = slowKb(join(user.root, 'timed.jsonl'))
    const old = git(user, repo, 'rev-parse', 'HEAD~1')
    const now = git(user, repo, 'rev-parse', 'HEAD')
    for (const [h, args] of [
      ['post-commit', []],
      ['post-merge', ['0']],
      ['post-checkout', [old, now, '1']],
    ] as const) {
      const hook = join(repo, '.git', 'hooks', h)
      writeFileSync(hook, readFileSync(hook, 'utf8').replace(/^KB_BIN=.*$/m, `KB_BIN='${stand}'`))
      const times: number[] = []
      for (let i = 0; i < 7; i++) {
        const t = process.hrtime.bigint()
        const r = spawnSync('sh', [hook, ...args], {cwd: repo, env: user.env, encoding: 'utf8'})
        times.push(Number(process.hrtime.bigint() - t) / 1e6)
        expect(r.status, r.stderr).toBe(0)
      }
      // The best of seven: the hook's own cost, whatever else the shared machine is doing.
      times.sort((a, b) => a - b)
      expect(times[0], h).toBeLessThanOrEqual(150)
    }
  })
})
