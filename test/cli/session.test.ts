/**
 * A whole session with the built `kb` binary against a real daemon, inside a real git repository with
 * an `origin` remote: project join, add (body on stdin), search --json, show, comment, resolve, publish,
 * fork, list, delete.
 */
import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ChildDaemon} from '../helpers/daemon.js'
import {cleanup, git, gitRepo, kb, UUID_RE, type KbEnv, userWithDaemon} from './helpers.js'

let d: ChildDaemon
let user: KbEnv
let repo: string

beforeAll(async () => {
  ;({user, d} = await userWithDaemon())
  repo = gitRepo(user, 'api', {origin: 'git@github.com:acme/api.git', fork: 'https://github.com/ada/api.git'})
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('a session in a git checkout', () => {
  let projectId: string
  let entryId: string
  let forkId: string

  it('joins the project of the origin remote and remembers it in git config', async () => {
    const r = await kb(user, ['project', 'join'], {cwd: repo})
    expect(r.stderr).toBe('')
    expect(r.code, r.stderr).toBe(0)
    const [id, remote, how] = r.stdout.trim().split('\t')
    expect(id).toMatch(UUID_RE)
    expect(remote).toBe('github.com/acme/api')
    expect(how).toBe('created')
    projectId = id!
    expect(git(user, repo, 'config', `kb.${d.url}.project`)).toBe(projectId)

    const again = await kb(user, ['project', 'join', '--json'], {cwd: repo})
    expect(again.code, again.stderr).toBe(0)
    const joined = JSON.parse(again.stdout)
    expect(joined).toMatchObject({created: false, project: {id: projectId, remote: 'github.com/acme/api', name: 'api', role: 'maintainer'}})

    const show = await kb(user, ['project', 'show', '--json'], {cwd: repo})
    expect(JSON.parse(show.stdout)).toMatchObject({id: projectId, remote: 'github.com/acme/api', source: `git config kb.${d.url}.project`})

    // kb reads kb.<base URL>.project from the repository's config file itself: from a subdirectory and from a
    // linked worktree (whose .git is a file pointing at the common git dir) it must agree with git.
    mkdirSync(join(repo, 'src', 'deep'), {recursive: true})
    git(user, repo, 'worktree', 'add', '-q', join(user.root, 'api-wt'))
    for (const cwd of [join(repo, 'src', 'deep'), join(user.root, 'api-wt')]) {
      const r = await kb(user, ['project', 'show'], {cwd})
      expect(r.stdout.split('\t')[0], cwd).toBe(projectId)
    }
  })

  it('adds an entry with its body piped on stdin and prints the bare id', async () => {
    const body = 'Another kb daemon already listens on 7411.\n\nStop it with `kb daemon stop` or pass --port.'
    const r = await kb(
      user,
      [
        'add',
        'Port 7411 already in use',
        '--tag',
        'daemon',
        '--tag',
        'Ports',
        '--thought',
        'observation: EADDRINUSE on start',
        '--thought',
        'conclusion: a stale daemon',
      ],
      {cwd: repo, input: body},
    )
    expect(r.stderr).toBe('')
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^[0-9a-f-]{36}\n$/)
    entryId = r.stdout.trim()
    const stored = await d.request('GET', `/knowledge/${entryId}`, {query: {detail: 'full'}})
    expect(stored.body).toMatchObject({
      title: 'Port 7411 already in use',
      body,
      scope: 'project',
      project_id: projectId,
      tags: ['daemon', 'ports'],
    })
    expect(stored.body.thought_chain).toEqual([
      {step: 1, kind: 'observation', thought: 'EADDRINUSE on start'},
      {step: 2, kind: 'conclusion', thought: 'a stale daemon'},
    ])
  })

  it('finds it with search --json', async () => {
    const r = await kb(user, ['search', 'port', 'in', 'use', '--json'], {cwd: repo})
    expect(r.code, r.stderr).toBe(0)
    const result = JSON.parse(r.stdout)
    expect(result.total).toBeGreaterThanOrEqual(1)
    expect(result.next_cursor).toBeNull()
    expect(result.items[0]).toMatchObject({id: entryId, title: 'Port 7411 already in use', status: 'open'})
    expect(typeof result.items[0].score).toBe('number')
    // summary detail by default: no standard-only fields
    expect(result.items[0].tags).toBeUndefined()
  })

  it('shows it piped as field lines and the body', async () => {
    const r = await kb(user, ['show', entryId], {cwd: repo})
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.split('\n')
    expect(lines[0]).toBe('title:\tPort 7411 already in use')
    expect(lines).toContain(`id:\t${entryId}`)
    expect(lines).toContain('status:\topen')
    expect(lines).toContain('scope:\tproject')
    expect(lines).toContain('tags:\tdaemon, ports')
    expect(r.stdout).toContain('--\nAnother kb daemon already listens on 7411.')
  })

  it('comments, resolves and publishes it', async () => {
    const c = await kb(user, ['comment', entryId, 'Also seen on macOS', '--type', 'supplement'], {cwd: repo})
    expect(c.code, c.stderr).toBe(0)
    expect(c.stdout.trim()).toMatch(UUID_RE)

    const piped = await kb(user, ['comment', entryId], {cwd: repo, input: 'A question from a pipe?'})
    expect(piped.code, piped.stderr).toBe(0)

    const r = await kb(user, ['resolve', entryId, '--note', 'Stopped the stale daemon', '--url', 'https://github.com/acme/api/pull/7'], {
      cwd: repo,
    })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe(`${entryId}\tresolved\n`)

    const p = await kb(user, ['publish', entryId], {cwd: repo})
    expect(p.code, p.stderr).toBe(0)
    expect(p.stdout).toBe(`${entryId}\tglobal\n`)

    const full = await kb(user, ['show', entryId, '--detail', 'full', '--json'], {cwd: repo})
    const e = JSON.parse(full.stdout)
    expect(e.scope).toBe('global')
    expect(e.status).toBe('resolved')
    expect(e.resolution).toMatchObject({note: 'Stopped the stale daemon', url: 'https://github.com/acme/api/pull/7'})
    expect(e.comments.map((x: {body: string; type: string}) => [x.type, x.body])).toEqual([
      ['supplement', 'Also seen on macOS'],
      ['note', 'A question from a pipe?'],
    ])
  })

  it('forks it and prints the bare id of the fork', async () => {
    const r = await kb(user, ['fork', entryId, '--title', 'Port in use on Windows'], {cwd: repo})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^[0-9a-f-]{36}\n$/)
    forkId = r.stdout.trim()
    const f = JSON.parse((await kb(user, ['show', forkId, '--json'], {cwd: repo})).stdout)
    expect(f).toMatchObject({title: 'Port in use on Windows', forked_from: entryId, scope: 'private', project_id: projectId})
    const parent = JSON.parse((await kb(user, ['show', entryId, '--detail', 'full', '--json'], {cwd: repo})).stdout)
    expect(parent.branches.map((b: {id: string}) => b.id)).toEqual([forkId])
  })

  it('lists entries piped as tab-separated rows, id first, no header', async () => {
    const r = await kb(user, ['list'], {cwd: repo})
    expect(r.code, r.stderr).toBe(0)
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'))
    expect(rows.map((x) => x[0]).sort()).toEqual([entryId, forkId].sort())
    // id, status, scope, title, updated, and the freshness word last (docs/cli.md, "Freshness").
    expect(rows.every((x) => x.length === 6 && x[5] === 'fresh')).toBe(true)
    const resolved = await kb(user, ['list', '--status', 'open', '--json'], {cwd: repo})
    expect(JSON.parse(resolved.stdout).items.map((x: {id: string}) => x.id)).toEqual([forkId])
  })

  it('edits with If-Match and reports a stale version as a conflict', async () => {
    const ok = await kb(user, ['edit', forkId, '--title', 'Port in use on Windows 11', '--add-tag', 'windows'], {cwd: repo})
    expect(ok.code, ok.stderr).toBe(0)
    const [id, version] = ok.stdout.trim().split('\t')
    expect(id).toBe(forkId)
    const stale = await kb(user, ['edit', forkId, '--title', 'Lost update', '--if-version', String(Number(version) - 1)], {cwd: repo})
    expect(stale.code, stale.stderr).toBe(5)
    expect(stale.stderr).toMatch(/changed since version \d+ was read.*edit again/)
    const e = (await d.request('GET', `/knowledge/${forkId}`)).body
    expect(e.title).toBe('Port in use on Windows 11')
    expect(e.tags).toContain('windows')
  })

  it('deletes only with --yes when not on a terminal', async () => {
    const refused = await kb(user, ['delete', entryId], {cwd: repo})
    expect(refused.code, refused.stderr).toBe(2)
    expect(refused.stderr).toContain('pass --yes')
    expect((await d.request('GET', `/knowledge/${entryId}`)).status).toBe(200)

    const r = await kb(user, ['delete', entryId, '--yes'], {cwd: repo})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe(`${entryId}\n`)
    const gone = await kb(user, ['show', entryId], {cwd: repo})
    expect(gone.code, gone.stderr).toBe(3)
  })

  it('works outside a repository without a project', async () => {
    const r = await kb(user, ['add', 'Outside any checkout', '--body', 'private by default'], {cwd: user.home})
    expect(r.code, r.stderr).toBe(0)
    const e = (await d.request('GET', `/knowledge/${r.stdout.trim()}`)).body
    expect(e).toMatchObject({scope: 'private', project_id: null})
    // --project takes the canonical remote too
    const p = await kb(user, ['add', 'Named project', '--body', 'x', '--project', 'github.com/acme/api', '--json'], {cwd: user.home})
    expect(p.code, p.stderr).toBe(0)
    expect(JSON.parse(p.stdout)).toMatchObject({scope: 'project', project_id: git(user, repo, 'config', `kb.${d.url}.project`)})
  })
})
