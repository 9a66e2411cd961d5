/**
 * Anchors and `kb check` end to end, with the built kb, a real daemon and a temporary git repository:
 * anchoring from a subdirectory (root-relative path, HEAD, the hash), suggestions never taken silently,
 * a missing file refused; edit the anchored lines and commit → `changed`, the entry stale naming the
 * commit; `git mv` → `moved`, the path follows, still fresh; a deleted file → stale; `--changed-in` and
 * the anchor index; `--commit` (a revision, not the work tree); `--fail-on stale`; the git hook's background
 * check reporting by itself.
 */
import {createHash} from 'node:crypto'
import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ChildDaemon} from '../helpers/daemon.js'
import {cleanup, git, gitRepo, kb, type KbEnv, userWithDaemon} from './helpers.js'

let d: ChildDaemon
let user: KbEnv
let repo: string

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex')
const numbered = (n: number, tag: string): string[] => Array.from({length: n}, (_, i) => `${tag} line ${i + 1}`)
const write = (path: string, lines: string[]): void => {
  mkdirSync(join(repo, path, '..'), {recursive: true})
  writeFileSync(join(repo, path), lines.join('\n') + '\n')
}
const commitAll = (message: string): string => {
  git(user, repo, 'add', '-A')
  git(user, repo, 'commit', '-q', '-m', message)
  return git(user, repo, 'rev-parse', 'HEAD')
}
async function entry(id: string): Promise<any> {
  return (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
}
async function add(title: string, args: string[], cwd = repo): Promise<string> {
  const r = await kb(user, ['add', title, '--body', `${title}.`, ...args], {cwd})
  expect(r.code, r.stderr).toBe(0)
  return r.stdout.trim()
}
async function check(args: string[] = []): Promise<any> {
  const r = await kb(user, ['check', '--json', ...args], {cwd: repo})
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}

beforeAll(async () => {
  ;({user, d} = await userWithDaemon())
  repo = gitRepo(user, 'api', {origin: 'git@github.com:acme/api.git'})
  const joined = await kb(user, ['project', 'join'], {cwd: repo})
  expect(joined.code, joined.stderr).toBe(0)
  write('src/db/pool.ts', numbered(80, 'pool'))
  write('src/net/retry.ts', numbered(20, 'retry'))
  write('src/old/legacy.ts', numbered(10, 'legacy'))
  commitAll('the code')
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('anchoring', {timeout: 120_000}, () => {
  it('stores a path given from a subdirectory relative to the root, with HEAD and the hash of the lines', async () => {
    const id = await add('Pool leaks on reconnect', ['--anchor', 'pool.ts:40-62'], join(repo, 'src', 'db'))
    const e = await entry(id)
    expect(e.anchors).toEqual([
      expect.objectContaining({
        path: 'src/db/pool.ts',
        lines: '40-62',
        symbol: null,
        commit: git(user, repo, 'rev-parse', 'HEAD'),
        hash: sha256(numbered(80, 'pool').slice(39, 62).join('\n')),
        state: 'current',
      }),
    ])
    const show = await kb(user, ['show', id], {cwd: repo})
    expect(show.stdout).toContain('anchor:\tsrc/db/pool.ts:40-62 (current)')
    expect(show.stdout).toContain('freshness:\tfresh')
  })

  it('proposes the paths the body mentions and keeps them only with --anchor-suggested', async () => {
    const body = 'Retries live in src/net/retry.ts:3-5 and not in src/nope.ts.'
    const told = await kb(user, ['add', 'Retry budget', '--body', body], {cwd: repo})
    expect(told.code, told.stderr).toBe(0)
    expect(told.stderr).toContain('kb: the body mentions src/net/retry.ts:3-5; keep it as an anchor with --anchor-suggested')
    expect((await entry(told.stdout.trim())).anchors).toEqual([])
    const kept = await kb(user, ['add', 'Retry budget', '--body', body, '--anchor-suggested'], {cwd: repo})
    expect(kept.code, kept.stderr).toBe(0)
    expect((await entry(kept.stdout.trim())).anchors.map((a: any) => [a.path, a.lines, a.state])).toEqual([
      ['src/net/retry.ts', '3-5', 'current'],
    ])
    // A file anchored already (here by --anchor) is not proposed again.
    const both = await kb(user, ['add', 'Retry budget', '--body', body, '--anchor', 'src/net/retry.ts#retry'], {cwd: repo})
    expect(both.code, both.stderr).toBe(0)
    expect(both.stderr).not.toContain('the body mentions')
    // The same entry a third time: kb says so (docs/cli.md, "Similar entries"), which is all stderr holds.
    expect(both.stderr).toMatch(/^kb: similar entries exist/)
  })

  it('refuses a file that is not in the checkout, or lines past its end (exit 2), and creates nothing', async () => {
    const before = (await d.request('GET', '/knowledge', {query: {limit: 100}})).body.items.length
    const missing = await kb(user, ['add', 'Nope', '--body', 'x', '--anchor', 'src/nope.ts'], {cwd: repo})
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^kb: --anchor src\/nope\.ts: src\/nope\.ts is not a file in this checkout/)
    const past = await kb(user, ['add', 'Nope', '--body', 'x', '--anchor', 'src/net/retry.ts:15-30'], {cwd: repo})
    expect(past.code).toBe(2)
    expect(past.stderr).toContain('has 20 lines, fewer than 30')
    expect((await d.request('GET', '/knowledge', {query: {limit: 100}})).body.items.length).toBe(before)
  })

  it('kb edit adds and removes anchors', async () => {
    const id = await add('Edit anchors', ['--anchor', 'src/net/retry.ts#retry'])
    const r = await kb(user, ['edit', id, '--anchor', 'src/db/pool.ts:1-2', '--remove-anchor', 'src/net/retry.ts#retry'], {cwd: repo})
    expect(r.code, r.stderr).toBe(0)
    expect((await entry(id)).anchors.map((a: any) => `${a.path}:${a.lines}`)).toEqual(['src/db/pool.ts:1-2'])
    const none = await kb(user, ['edit', id, '--remove-anchor', 'src/x.ts:1-2'], {cwd: repo})
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('has no such anchor (it has src/db/pool.ts:1-2)')
  })
})

describe('kb check', {timeout: 120_000}, () => {
  it('finds changed, moved and deleted anchors, reports them, and names the commit', async () => {
    const changedId = await add('Pool sizing', ['--anchor', 'src/db/pool.ts:40-62'])
    const movedId = await add('Legacy retry', ['--anchor', 'src/net/retry.ts'])
    const goneId = await add('Legacy module', ['--anchor', 'src/old/legacy.ts:2-4'])
    const linesId = await add('Pool tail', ['--anchor', 'src/db/pool.ts:70-72'])
    expect((await check()).stale).toBe(0)

    const pool = numbered(80, 'pool')
    pool[44] = 'pool line 45, rewritten'
    pool.splice(0, 0, 'a new first line') // 70-72 are now 71-73
    write('src/db/pool.ts', pool)
    git(user, repo, 'mv', 'src/net/retry.ts', 'src/net/backoff.ts')
    rmSync(join(repo, 'src/old/legacy.ts'))
    const sha = commitAll('rewrite the pool, rename retry, drop legacy')

    const r = await check()
    const states = (id: string): unknown => r.entries.find((e: any) => e.id === id)?.anchors.map((a: any) => [a.state, a.moved_to])
    expect(states(changedId)).toEqual([['changed', null]])
    expect(states(movedId)).toEqual([['moved', {path: 'src/net/backoff.ts', lines: null}]])
    expect(states(goneId)).toEqual([['deleted', null]])
    expect(states(linesId)).toEqual([['moved', {path: 'src/db/pool.ts', lines: '71-73'}]])
    expect(r.commit).toBe(sha)

    const changed = await entry(changedId)
    expect(changed.freshness.state).toBe('stale')
    expect(changed.anchors[0]).toMatchObject({state: 'changed', checked_commit: sha})
    expect(changed.freshness.reasons[0].detail).toBe(`anchor src/db/pool.ts:40-62 changed in ${sha.slice(0, 7)}`)
    const show = await kb(user, ['show', changedId], {cwd: repo})
    expect(show.stdout).toMatch(
      new RegExp(`^stale:\\tanchor src/db/pool\\.ts:40-62 changed in ${sha.slice(0, 7)}, (just now|\\d+ minutes? ago)$`, 'm'),
    )

    const moved = await entry(movedId)
    expect(moved.freshness.state).toBe('fresh')
    expect(moved.anchors[0]).toMatchObject({path: 'src/net/backoff.ts', state: 'moved'})
    expect((await entry(linesId)).anchors[0]).toMatchObject({path: 'src/db/pool.ts', lines: '71-73', state: 'moved'})
    const gone = await entry(goneId)
    expect(gone.freshness.state).toBe('stale')
    expect(gone.freshness.reasons[0].kind).toBe('anchor_deleted')

    // Nothing new the second time: nothing is sent again, so the commit it changed in stays named.
    const again = await check()
    expect(again.reported).toBe(0)
    expect(again.stale).toBe(r.stale)

    // Human output names what went stale and why; piped one line per anchor that is not current.
    const piped = await kb(user, ['check'], {cwd: repo})
    expect(piped.code, piped.stderr).toBe(0)
    expect(piped.stdout).toContain(`${changedId}\tchanged\tsrc/db/pool.ts:40-62\tchanged (already known)\tstale`)
    // For CI: exit 1 while something is stale.
    const gate = await kb(user, ['check', '--fail-on', 'stale'], {cwd: repo})
    expect(gate.code).toBe(1)

    // kb list shows the badge and filters on it.
    const stale = await kb(user, ['list', '--stale', '--limit', '100'], {cwd: repo})
    const staleIds = stale.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'))
    expect(staleIds.map((row) => row[0])).toEqual(expect.arrayContaining([changedId, goneId]))
    expect(staleIds.map((row) => row[0])).not.toContain(movedId)
    expect(staleIds.every((row) => row.at(-1) === 'stale')).toBe(true)
    const fresh = await kb(user, ['list', '--fresh', '--limit', '100'], {cwd: repo})
    expect(fresh.stdout).toContain(movedId)
    expect(fresh.stdout).not.toContain(changedId)
  })

  it('--changed-in checks only the files a range touched, through the anchor index', async () => {
    write('src/a.ts', numbered(10, 'a'))
    write('src/b.ts', numbered(10, 'b'))
    commitAll('a and b')
    const a = await add('About a', ['--anchor', 'src/a.ts:2-3'])
    const b = await add('About b', ['--anchor', 'src/b.ts:2-3'])
    await check() // builds the anchor index
    const later = await add('Also about a', ['--anchor', 'src/a.ts:5-6']) // after the index: found by its refresh
    const lines = numbered(10, 'a')
    lines[2] = 'a changed'
    lines[5] = 'a changed too'
    write('src/a.ts', lines)
    const sha = commitAll('change a')
    const r = await check(['--changed-in', 'HEAD'])
    expect(r.entries.map((e: any) => e.id).sort()).toEqual([a, later].sort())
    expect(r.counts).toMatchObject({changed: 2})
    expect((await entry(a)).anchors[0]).toMatchObject({state: 'changed', checked_commit: sha})
    expect((await entry(b)).anchors[0].state).toBe('current')
    // A range that touched no anchored file asks the server nothing and reports nothing.
    write('README.md', ['hello'])
    commitAll('readme')
    const quiet = await check(['--changed-in', 'HEAD~1..HEAD'])
    expect(quiet.entries).toEqual([])
  })

  it('--changed-in reads afresh what the index says changed: a verification elsewhere re-based it', async () => {
    write('src/v.ts', numbered(10, 'v'))
    commitAll('v')
    const id = await add('About v', ['--anchor', 'src/v.ts:2-3'])
    await check() // the index now holds the anchor's hash
    const lines = numbered(10, 'v')
    lines[1] = 'v line 2, new'
    write('src/v.ts', lines)
    commitAll('new v')
    expect((await kb(user, ['verify', id], {cwd: repo})).code).toBe(0) // re-based on the server, not in the index
    lines[8] = 'v line 9, unrelated'
    write('src/v.ts', lines)
    commitAll('touch v elsewhere')
    const r = await check(['--changed-in', 'HEAD'])
    expect(r.entries.find((e: any) => e.id === id).anchors[0]).toMatchObject({state: 'current', reported: false})
    expect(r.reported).toBe(0)
    expect((await entry(id)).anchors[0].state).toBe('current')
  })

  it('--commit checks the files at that revision, not the work tree; an anchor made after it is skipped', async () => {
    write('src/c.ts', numbered(10, 'c'))
    const base = commitAll('c')
    const id = await add('About c', ['--anchor', 'src/c.ts:4-5'])
    const lines = numbered(10, 'c')
    lines[3] = 'c line 4, edited but not committed'
    write('src/c.ts', lines)
    const anchorOf = (r: any): any => r.entries.find((e: any) => e.id === id)?.anchors[0]
    // The work tree has the edit; HEAD has not: checked at HEAD, the anchor is current and nothing is sent.
    const atHead = await check(['--commit', 'HEAD'])
    expect(anchorOf(atHead)).toMatchObject({state: 'current', reported: false})
    expect((await entry(id)).anchors[0].state).toBe('current')
    const sha = commitAll('edit c')
    // Now the revision has it: changed, reported, and the entry names that commit.
    const atCommit = await check(['--commit', sha.slice(0, 10)])
    expect(atCommit.commit).toBe(sha)
    expect(anchorOf(atCommit)).toMatchObject({state: 'changed', reported: true})
    expect((await entry(id)).anchors[0]).toMatchObject({state: 'changed', checked_commit: sha})
    // The anchor was made after `base`: an older revision says nothing about it.
    expect(anchorOf(await check(['--commit', `${base}~1`]))).toMatchObject({skipped: true, reported: false})
    expect((await entry(id)).anchors[0]).toMatchObject({state: 'changed', checked_commit: sha})
  })

  it('a path#symbol anchor follows its definition: lines added above it are no news, a change to its body is', async () => {
    const conn = ['import x from "y"', '', 'export function connect(url: string): void {', '  open(url)', '  retry(3)', '}', '']
    write('src/conn.ts', [...conn, 'export function other(): void {', '  noop()', '}'])
    commitAll('conn')
    const id = await add('Connect retries three times', ['--anchor', 'src/conn.ts#connect'])
    const stateOf = async (): Promise<unknown> => (await check()).entries.find((e: any) => e.id === id).anchors[0].state
    write('src/conn.ts', ['// a header', '', ...conn, 'export function other(): void {', '  noop2()', '}'])
    commitAll('a header, and another function changed')
    expect(await stateOf()).toBe('current')
    expect((await entry(id)).freshness.state).toBe('fresh')
    write('src/conn.ts', ['// a header', '', ...conn.map((l) => l.replace('retry(3)', 'retry(5)'))])
    const sha = commitAll('five retries')
    expect(await stateOf()).toBe('changed')
    expect((await entry(id)).freshness.reasons[0].detail).toBe(`anchor src/conn.ts#connect changed in ${sha.slice(0, 7)}`)
  })

  it('outside a checkout exits 2; an unknown revision exits 2', async () => {
    const out = await kb(user, ['check'], {cwd: user.home})
    expect(out.code).toBe(2)
    expect(out.stderr).toContain('run it inside one')
    const rev = await kb(user, ['check', '--commit', 'no-such-rev'], {cwd: repo})
    expect(rev.code).toBe(2)
  })
})

describe('the git hook', {timeout: 120_000}, () => {
  it('checks the anchors a commit touched in the background, and the entry turns stale by itself', async () => {
    write('src/hooked.ts', numbered(10, 'hooked'))
    commitAll('hooked')
    const id = await add('Hooked', ['--anchor', 'src/hooked.ts:4-5'])
    const install = await kb(user, ['hook', 'install'], {cwd: repo})
    expect(install.code, install.stderr).toBe(0)
    const lines = numbered(10, 'hooked')
    lines[3] = 'hooked, changed'
    write('src/hooked.ts', lines)
    const sha = commitAll('change hooked')
    const deadline = Date.now() + 30_000
    let e = await entry(id)
    while (e.anchors[0].state !== 'changed' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200))
      e = await entry(id)
    }
    expect(e.anchors[0]).toMatchObject({state: 'changed', checked_commit: sha})
    expect(e.freshness.state).toBe('stale')
    expect((await kb(user, ['hook', 'uninstall'], {cwd: repo})).code).toBe(0)
    expect(readFileSync(join(repo, 'src/hooked.ts'), 'utf8')).toContain('hooked, changed')
  })
})
