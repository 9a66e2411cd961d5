/**
 * One rule for the project of a checkout (docs/cli.md, "The project of a checkout"), with the built `kb`
 * binary in real git repositories: a clone that never joined finds its project by remote for `kb add`,
 * `kb list` and `kb project show` alike; upstream comes before origin for the project and for the hook's
 * commit link; the stored project is per server, so switching base URL does not leave a stale id.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startChildDaemon, tempDir, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, freePort, git, gitRepo, kb, type KbEnv, userWithDaemon} from './helpers.js'

let d: ChildDaemon
let other: ChildDaemon | undefined
let user: KbEnv

beforeAll(async () => {
  ;({user, d} = await userWithDaemon())
  user.env.KB_API_KEY = d.ownerKey
})

afterAll(async () => {
  await d?.stop()
  await other?.stop()
  if (user) await cleanup(user)
})

async function join(cwd: string, remote?: string): Promise<string> {
  const r = await kb(user, ['project', 'join', ...(remote ? ['--remote', remote] : [])], {cwd})
  expect(r.code, r.stderr).toBe(0)
  return r.stdout.split('\t')[0]!
}

describe('the project of a checkout', () => {
  it('a clone that never ran kb project join: add, list and project show all use the project of its remote', async () => {
    const joined = gitRepo(user, 'first', {origin: 'git@github.com:acme/one.git'})
    const id = await join(joined)
    const clone = gitRepo(user, 'clone', {origin: 'https://github.com/Acme/one.git'})

    const show = await kb(user, ['project', 'show', '--json'], {cwd: clone})
    expect(show.code, show.stderr).toBe(0)
    expect(JSON.parse(show.stdout)).toMatchObject({id, source: 'git remote github.com/acme/one'})

    const add = await kb(user, ['add', 'From the clone', '--body', 'project by remote', '--json'], {cwd: clone})
    expect(add.code, add.stderr).toBe(0)
    expect(JSON.parse(add.stdout)).toMatchObject({scope: 'project', project_id: id})

    const list = await kb(user, ['list', '--scope', 'project'], {cwd: clone})
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toContain('From the clone')
  })

  it('a checkout whose remotes are none of your projects: private entries, and project show says why', async () => {
    const repo = gitRepo(user, 'stranger', {origin: 'https://github.com/nobody/else.git'})
    const add = await kb(user, ['add', 'Mine alone', '--body', 'no project', '--json'], {cwd: repo})
    expect(add.code, add.stderr).toBe(0)
    expect(JSON.parse(add.stdout)).toMatchObject({scope: 'private', project_id: null})
    const show = await kb(user, ['project', 'show'], {cwd: repo})
    expect(show.code).toBe(3)
    expect(show.stderr).toMatch(
      /^kb: no project here: none of your projects on .* has this checkout's remote \(github\.com\/nobody\/else\); run `kb project join`/,
    )
  })

  it("upstream comes before origin: for the project and for the git hook's commit link", async () => {
    const up = await join(gitRepo(user, 'up', {origin: 'https://github.com/acme/lib.git'}))
    await join(gitRepo(user, 'fork', {origin: 'https://github.com/ada/lib.git'}))
    const repo = gitRepo(user, 'both', {origin: 'https://github.com/ada/lib.git', upstream: 'https://github.com/acme/lib.git'})
    const show = await kb(user, ['project', 'show', '--json'], {cwd: repo})
    expect(JSON.parse(show.stdout)).toMatchObject({id: up, source: 'git remote github.com/acme/lib, github.com/ada/lib'})

    const entry = await kb(user, ['add', 'Fixed upstream', '--body', 'b'], {cwd: repo})
    expect(entry.code, entry.stderr).toBe(0)
    const entryId = entry.stdout.trim()
    expect((await kb(user, ['hook', 'install'], {cwd: repo})).code).toBe(0)
    git(user, repo, 'commit', '-q', '--allow-empty', '-m', `Fix\n\nResolves-KB: ${entryId}`)
    const sha = git(user, repo, 'rev-parse', 'HEAD')
    const e = (await d.request('GET', `/knowledge/${entryId}`, {query: {detail: 'full'}})).body
    expect(e.resolution.url).toBe(`https://github.com/acme/lib/commit/${sha}`)
  })

  it('the joined project is stored per server: another base URL neither sends it nor fails with exit 3', async () => {
    const repo = gitRepo(user, 'switch', {origin: 'https://github.com/acme/switch.git'})
    const id = await join(repo)
    expect(git(user, repo, 'config', `kb.${d.url}.project`)).toBe(id)
    // A bare kb.project of earlier versions is dropped by join and never read.
    git(user, repo, 'config', 'kb.project', id)
    await join(repo)
    expect(() => git(user, repo, 'config', 'kb.project')).toThrow()

    other = await startChildDaemon()
    const there = {KB_BASE_URL: other.url, KB_API_KEY: other.ownerKey}
    const add = await kb(user, ['add', 'On the other server', '--body', 'b', '--json'], {cwd: repo, env: there})
    expect(add.code, add.stderr).toBe(0)
    expect(JSON.parse(add.stdout)).toMatchObject({scope: 'private', project_id: null})
    const list = await kb(user, ['list', '--json'], {cwd: repo, env: there})
    expect(list.code, list.stderr).toBe(0)
    expect(JSON.parse(list.stdout).items.map((e: {title: string}) => e.title)).toEqual(['On the other server'])

    // Joining there stores a second key; each server keeps its own project.
    const otherId = (await kb(user, ['project', 'join'], {cwd: repo, env: there})).stdout.split('\t')[0]!
    expect(git(user, repo, 'config', `kb.${other.url}.project`)).toBe(otherId)
    const here = await kb(user, ['project', 'show', '--json'], {cwd: repo})
    expect(JSON.parse(here.stdout)).toMatchObject({id, source: `git config kb.${d.url}.project`})
  })

  it('offline in a clone that never joined: the queued add gets its project when kb sync sends it', async () => {
    const dir = tempDir('kb-offline-')
    const port = await freePort()
    let down = await startChildDaemon({dataDir: dir, port})
    const env = {KB_BASE_URL: down.url, KB_API_KEY: down.ownerKey, KB_NO_AUTOSTART: '1'}
    try {
      const joined = await kb(user, ['project', 'join', '--remote', 'https://github.com/acme/offline.git'], {env})
      expect(joined.code, joined.stderr).toBe(0)
      const id = joined.stdout.split('\t')[0]!
      await down.stop()
      const clone = gitRepo(user, 'offline', {origin: 'git@github.com:acme/offline.git'})
      const queued = await kb(user, ['add', 'Written offline', '--body', 'b', '--json'], {cwd: clone, env})
      expect(queued.code, queued.stderr).toBe(0)
      expect(JSON.parse(queued.stdout)).toMatchObject({queued: true})
      down = await startChildDaemon({dataDir: dir, port})
      const sync = await kb(user, ['sync'], {cwd: clone, env})
      expect(sync.code, sync.stderr).toBe(0)
      const list = (await down.request('GET', '/knowledge', {query: {project_id: id}})).body
      expect(list.items.map((e: {title: string; scope: string}) => [e.title, e.scope])).toEqual([['Written offline', 'project']])
    } finally {
      await down.stop()
    }
  })
})
