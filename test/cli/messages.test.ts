/**
 * Messages that lead somewhere (docs/cli.md, "Exit codes" and "Global flags"), through the built `kb`: a base URL
 * without `/api/v1` gets it or is refused with the reason, a member signs in to a team server on loopback, a missing
 * project names `kb project join`, mistyped commands and flags get a "did you mean", and `--author me` is the caller.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startChildDaemon, tempDir, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, gitRepo, kb, kbTty, type KbEnv, userWithDaemon} from './helpers.js'

let d: ChildDaemon
let team: ChildDaemon
let user: KbEnv

beforeAll(async () => {
  ;({user, d} = await userWithDaemon())
  team = await startChildDaemon({dataDir: tempDir('kb-team-')})
})
afterAll(async () => {
  await Promise.all([d?.stop(), team?.stop()])
  if (user) await cleanup(user)
})

describe('base_url', () => {
  it('a bare origin gets /api/v1 added; any other path is refused with the reason', async () => {
    const origin = new URL(d.url).origin
    const set = await kbTty(user, ['config', 'set', 'base_url', origin], {env: {KB_BASE_URL: ''}})
    expect(set.code, set.stderr + set.stdout).toBe(0)
    expect(set.stdout).toContain(`/api/v1, where kb's API is served, was added`)
    const got = await kb(user, ['config', 'get', 'base_url', '--json'], {env: {KB_BASE_URL: ''}})
    expect(JSON.parse(got.stdout)).toMatchObject({value: d.url, source: 'config'})
    // The same server answers as before: no "held by a program that is not the kb daemon".
    const listed = await kb(user, ['list'], {env: {KB_BASE_URL: ''}})
    expect(listed.code, listed.stderr).toBe(0)
    expect((await kb(user, ['list', '--base-url', `${origin}/`])).code).toBe(0)

    const wrong = await kb(user, ['config', 'set', 'base_url', `${origin}/kb`])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toBe(
      `kb: base URL ${origin}/kb must end in /api/v1, where kb's API is served; did you mean ${origin}/kb/api/v1?\n`,
    )
    const half = await kb(user, ['list', '--base-url', `${origin}/api`])
    expect(half.code).toBe(2)
    expect(half.stderr).toContain(`did you mean ${origin}/api/v1?`)
    expect((await kb(user, ['config', 'unset', 'base_url'])).code).toBe(0)
  })
})

describe('kb auth login to a team server on loopback', () => {
  it("a member's key is stored for that URL and used; this data directory's owner key is still refused", async () => {
    const bob = await newPrincipal(team, 'bob')
    const login = await kb(user, ['auth', 'login', '--with-token', '--base-url', team.url], {input: bob})
    expect(login.code, login.stderr).toBe(0)
    expect(login.stdout).toBe(`${team.url}\tfile\tbob\n`)
    const added = await kb(user, ['add', 'Team note', '-b', 'from bob', '--scope', 'global', '-y', '--json', '--base-url', team.url], {
      env: {KB_API_KEY: ''},
    })
    expect(added.code, added.stderr).toBe(0)
    expect(JSON.parse(added.stdout).author.name).toBe('bob')
    const status = await kb(user, ['auth', 'status', '--base-url', team.url])
    expect(status.stdout).toContain('\tbob\t')
    // The owner key of this user's own data directory never goes to a daemon that cannot prove it owns it.
    const own = await kb(user, ['auth', 'login', '--with-token', '--base-url', team.url], {input: d.ownerKey})
    expect(own.code).toBe(5)
    expect(own.stderr).toContain('could not prove it owns that data directory, so no credential was sent')
  })
})

describe('a missing project, mistyped commands and flags, --author me', () => {
  it('kb add --scope project outside a project names kb project join', async () => {
    const r = await kb(user, ['add', 'Somewhere', '-b', 'x', '--scope', 'project', '-y'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('run `kb project join` in the checkout to make its project yours')
    expect(r.stderr).not.toContain('kb help add')
  })

  it('did you mean: commands, subcommands and flags (exit 2)', async () => {
    const serch = await kb(user, ['serch', 'pool'])
    expect(serch.code).toBe(2)
    expect(serch.stderr).toBe('kb: unknown command "serch"; did you mean `kb search`? (`kb help` lists the commands)\n')
    expect((await kb(user, ['project', 'lst'])).stderr).toContain('did you mean `kb project list`?')
    const nothing = await kb(user, ['xyzzy'])
    expect(nothing.stderr).toBe('kb: unknown command "xyzzy"; see `kb help` for the commands\n')
    const limti = await kb(user, ['list', '--limti', '3'])
    expect(limti.code).toBe(2)
    // (Under vitest, NODE_ENV=test makes oclif add a development warning after kb's line.)
    expect(limti.stderr.split('\n')[0]).toBe('kb: unknown flag --limti; did you mean --limit? (see --help)')
  })

  it('--author me and @me are the caller', async () => {
    const repo = gitRepo(user, 'authors', {origin: 'git@github.com:acme/authors.git'})
    const carol = await newPrincipal(d, 'carol')
    expect((await kb(user, ['add', 'Mine', '-b', 'x', '--scope', 'global', '-y'], {cwd: repo})).code).toBe(0)
    expect((await kb(user, ['add', 'Carols', '-b', 'x', '--scope', 'global', '-y'], {cwd: repo, env: {KB_API_KEY: carol}})).code).toBe(0)
    for (const me of ['me', '@me']) {
      const mine = await kb(user, ['list', '--author', me, '--json'], {cwd: repo, env: {KB_API_KEY: carol}})
      expect(mine.code, mine.stderr).toBe(0)
      expect(JSON.parse(mine.stdout).items.map((e: {title: string}) => e.title)).toEqual(['Carols'])
    }
  })
})
