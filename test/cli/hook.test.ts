/**
 * The git hook end to end: `kb hook install` (core.hooksPath honoured, a foreign hook never
 * overwritten), a commit with a `Resolves-KB:` trailer resolves the entry with the commit, a commit with
 * the daemon down or kb missing still succeeds, and a commit without the trailer waits for no kb (its cost: bench/cli.js).
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ChildDaemon} from '../helpers/daemon.js'
import {cleanup, freePort, git, gitRepo, kb, type KbEnv, userWithDaemon} from './helpers.js'
import {shortId} from '../../src/shared/short-id.js'

let d: ChildDaemon
let user: KbEnv

beforeAll(async () => {
  ;({user, d} = await userWithDaemon())
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

async function newEntry(title: string): Promise<string> {
  return (await d.request('POST', '/knowledge', {body: {title, body: 'to be fixed', scope: 'global'}})).body.id
}

/** `git commit`, returning its exit code and stderr (where the hook writes). */
function commit(cwd: string, message: string, env: Record<string, string> = {}): {code: number | null; stderr: string} {
  const r = spawnSync('git', ['commit', '-q', '--allow-empty', '-m', message], {
    cwd,
    env: {...user.env, ...env},
    encoding: 'utf8',
    timeout: 60_000,
  })
  return {code: r.status, stderr: r.stderr}
}

describe('kb hook', () => {
  it('resolves the entry named by a Resolves-KB trailer with the commit and its GitHub URL', async () => {
    const repo = gitRepo(user, 'api', {origin: 'git@github.com:Acme/API.git'})
    const install = await kb(user, ['hook', 'install'], {cwd: repo})
    expect(install.code, install.stderr).toBe(0)
    const hook = join(repo, '.git', 'hooks', 'post-commit')
    expect(install.stdout).toBe(
      ['post-commit', 'post-merge', 'post-checkout'].map((h) => `installed\t${join(repo, '.git', 'hooks', h)}\n`).join(''),
    )
    expect(statSync(hook).mode & 0o111).toBeTruthy()

    const id = await newEntry('Crash when the port is taken')
    const c = commit(repo, `Retry on EADDRINUSE\n\nThe daemon now waits.\n\nResolves-KB: ${id}`)
    expect(c.code, c.stderr).toBe(0)
    expect(c.stderr).toContain(`kb: resolved ${shortId(id)}`)
    const sha = git(user, repo, 'rev-parse', 'HEAD')
    const e = (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
    expect(e.status).toBe('resolved')
    expect(e.resolution).toMatchObject({
      note: `Resolved by commit ${sha.slice(0, 7)}: Retry on EADDRINUSE`,
      url: `https://github.com/acme/api/commit/${sha}`,
    })
    // Its history says the hook did it (docs/api.md, "History").
    const history = (await d.request('GET', `/knowledge/${id}/history`)).body.items
    expect(history.at(-1)).toMatchObject({action: 'resolved', actor: {name: 'owner', via: 'hook'}})

    // two trailers, one of them unknown: the known one is resolved, the commit still succeeds
    const id2 = await newEntry('Second problem')
    const c2 = commit(repo, `Fix two things\n\nResolves-KB: ${id2}\nResolves-KB: 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980`)
    expect(c2.code, c2.stderr).toBe(0)
    expect(c2.stderr).toMatch(/could not resolve 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980/)
    expect((await d.request('GET', `/knowledge/${id2}`)).body.status).toBe('resolved')

    const un = await kb(user, ['hook', 'uninstall'], {cwd: repo})
    expect(un.stdout).toBe(
      ['post-commit', 'post-merge', 'post-checkout'].map((h) => `removed\t${join(repo, '.git', 'hooks', h)}\n`).join(''),
    )
    expect(existsSync(hook)).toBe(false)
  })

  it('never blocks a commit: daemon down, or kb missing', async () => {
    const repo = gitRepo(user, 'down', {origin: 'https://gitlab.com/group/sub/down.git'})
    expect((await kb(user, ['hook', 'install'], {cwd: repo})).code).toBe(0)
    const port = await freePort()
    const offline = {KB_BASE_URL: `http://127.0.0.1:${port}/api/v1`, KB_NO_AUTOSTART: '1'}
    // Queueing off (CI): the commit goes through with a warning.
    const down = commit(repo, 'Fix\n\nResolves-KB: 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980', {...offline, KB_NO_QUEUE: '1'})
    expect(down.code, down.stderr).toBe(0)
    expect(down.stderr).toContain('kb: warning: the Resolves-KB trailer was not applied')
    expect(down.stderr).toContain('not reachable')
    expect(git(user, repo, 'log', '-1', '--format=%s')).toBe('Fix')
    // Queueing on (the default): the resolution waits for `kb sync`, without a word (test/cli/outbox-session.test.ts sends it).
    const queued = commit(repo, 'Fix again\n\nResolves-KB: 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980', offline)
    expect(queued.code, queued.stderr).toBe(0)
    expect(queued.stderr).toBe('')
    const waiting = JSON.parse((await kb(user, ['sync', '--status', '--json'], {env: offline})).stdout)
    expect(waiting.items.map((i: {command: string; base_url: string}) => [i.command, i.base_url])).toEqual([
      ['hook resolve', offline.KB_BASE_URL],
    ])

    // kb gone: the recorded binary is missing and there is no kb on PATH
    const hook = join(repo, '.git', 'hooks', 'post-commit')
    writeFileSync(hook, readFileSync(hook, 'utf8').replace(/^KB_BIN=.*$/m, "KB_BIN='/nonexistent/kb/bin/run.js'"))
    const missing = commit(repo, 'Another\n\nResolves-KB: 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980', {PATH: '/usr/bin:/bin'})
    expect(missing.code, missing.stderr).toBe(0)
    expect(missing.stderr).toContain('kb hook: kb is not installed')
  })

  it('uses a GitLab commit URL and honours core.hooksPath', async () => {
    const repo = gitRepo(user, 'lab', {upstream: 'https://gitlab.com/group/sub/lab.git'})
    git(user, repo, 'config', 'core.hooksPath', '.githooks')
    const install = await kb(user, ['hook', 'install'], {cwd: repo})
    expect(install.stdout.split('\n')[0]).toBe(`installed\t${join(repo, '.githooks', 'post-commit')}`)
    expect(existsSync(join(repo, '.git', 'hooks', 'post-commit'))).toBe(false)
    const id = await newEntry('Lab issue')
    expect(commit(repo, `Lab fix\n\nResolves-KB: ${id}`).code).toBe(0)
    const sha = git(user, repo, 'rev-parse', 'HEAD')
    expect((await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body.resolution.url).toBe(
      `https://gitlab.com/group/sub/lab/-/commit/${sha}`,
    )
  })

  it('does not overwrite a foreign hook: says what to add, or chains with --chain', async () => {
    const repo = gitRepo(user, 'foreign', {origin: 'git@github.com:acme/foreign.git'})
    const hook = join(repo, '.git', 'hooks', 'post-commit')
    const theirs = '#!/bin/sh\necho "their hook ran" >> "$(git rev-parse --git-dir)/theirs.log"\n'
    writeFileSync(hook, theirs, {mode: 0o755})

    const refused = await kb(user, ['hook', 'install'], {cwd: repo})
    expect(refused.code, refused.stderr).toBe(5)
    expect(refused.stderr).toContain('kb hook install --chain')
    expect(refused.stderr).toContain('"$(dirname "$0")/kb-post-commit" "$@" || true')
    // The hooks that were free are installed all the same.
    expect(existsSync(join(repo, '.git', 'hooks', 'post-merge'))).toBe(true)
    expect(readFileSync(hook, 'utf8')).toBe(theirs)

    const chained = await kb(user, ['hook', 'install', '--chain'], {cwd: repo})
    expect(chained.code, chained.stderr).toBe(0)
    expect(chained.stdout.split('\n')[0]).toBe(`chained\t${hook}`)
    expect(readFileSync(hook, 'utf8').startsWith(theirs)).toBe(true)

    const id = await newEntry('Foreign hook issue')
    expect(commit(repo, `Chained fix\n\nResolves-KB: ${id}`).code).toBe(0)
    expect(readFileSync(join(repo, '.git', 'theirs.log'), 'utf8')).toBe('their hook ran\n')
    expect((await d.request('GET', `/knowledge/${id}`)).body.status).toBe('resolved')

    const un = await kb(user, ['hook', 'uninstall'], {cwd: repo})
    expect(un.code, un.stderr).toBe(0)
    expect(readFileSync(hook, 'utf8')).toBe(theirs)
    expect(existsSync(join(repo, '.git', 'hooks', 'kb-post-commit'))).toBe(false)
  })

  it('with nothing to do, runs no kb in the foreground: the check goes to the background and the hook returns', async () => {
    // What it costs is measured by bench/cli.js ("post-commit hook, no trailer"); here, that it waits for nothing.
    const repo = gitRepo(user, 'fast', {origin: 'git@github.com:acme/fast.git'})
    expect((await kb(user, ['hook', 'install'], {cwd: repo})).code).toBe(0)
    git(user, repo, 'commit', '-q', '--allow-empty', '-m', 'A commit without a trailer')
    const hook = join(repo, '.git', 'hooks', 'post-commit')
    // A stand-in for node that records what kb was asked to do, then takes 3 s.
    const calls = join(repo, 'calls.txt')
    const slow = join(repo, 'slow-node.sh')
    writeFileSync(slow, `#!/bin/sh\nshift\necho "$*" >>'${calls}'\nsleep 3\n`, {mode: 0o755})
    writeFileSync(hook, readFileSync(hook, 'utf8').replace(/^KB_NODE=.*$/m, `KB_NODE='${slow}'`))
    const t = process.hrtime.bigint()
    execFileSync('sh', [hook], {cwd: repo, env: user.env})
    const ms = Number(process.hrtime.bigint() - t) / 1e6
    expect(ms).toBeLessThan(2500) // it did not wait for the 3 s the stand-in takes
    // The shell creates the file before echo writes to it: wait for the whole line, not for the file.
    const recorded = (): boolean => existsSync(calls) && readFileSync(calls, 'utf8').endsWith('\n')
    for (let i = 0; i < 100 && !recorded(); i++) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toEqual(['check --changed-in HEAD'])
  })
})
