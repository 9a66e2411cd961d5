/**
 * @module The project membership commands (docs/cli.md, "Project members") with the built `kb` binary in a real git
 * checkout against a real daemon, each principal with its own key: a join that waits (exit 0, `--json` the 202 body),
 * requests, approve and deny by name, members (a table within 80 columns), invite by name and by link, remove, leave,
 * role, and the only maintainer kept.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, type ChildDaemon} from '../helpers/daemon.js'
import {ANSI_RE, cleanup, gitRepo, kb, kbTty, type KbEnv, type RunResult, userWithDaemon} from './helpers.js'

let d: ChildDaemon
let user: KbEnv
let repo: string
const keys: Record<string, string> = {}

const as = (who: string, args: string[]): Promise<RunResult> => kb(user, args, {cwd: repo, env: {KB_API_KEY: keys[who]!}})
const json = async (who: string, args: string[]): Promise<any> => {
  const r = await as(who, [...args, '--json'])
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}

beforeAll(async () => {
  ;({user, d} = await userWithDaemon())
  for (const name of ['alice', 'bob', 'carol', 'dave', 'eve']) keys[name] = await newPrincipal(d, name)
  repo = gitRepo(user, 'members', {origin: 'git@github.com:acme/cli-members.git'})
  const created = await as('alice', ['project', 'join'])
  expect(created.code, created.stderr).toBe(0)
  expect(created.stdout).toMatch(/\tcreated\n$/)
})
afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('kb project membership commands', () => {
  it('a join of an existing project is a request (exit 0); a maintainer lists and approves it by name', async () => {
    const asked = await as('bob', ['project', 'join'])
    expect(asked.code, asked.stderr).toBe(0)
    expect(asked.stdout).toMatch(/^[0-9a-f-]{36}\tgithub\.com\/acme\/cli-members\trequested\n$/)
    const tty = await kbTty(user, ['project', 'join'], {cwd: repo, env: {KB_API_KEY: keys.bob!}})
    expect(tty.code).toBe(0)
    expect(tty.stdout.replace(ANSI_RE, '')).toContain('a maintainer must approve (kb project requests / approve)')
    const body = await json('bob', ['project', 'join'])
    expect(body).toMatchObject({request: {status: 'pending'}, project: {name: 'cli-members'}})
    expect((await json('bob', ['project', 'list'])).items).toEqual([])

    const requests = await json('alice', ['project', 'requests'])
    expect(requests.items.map((r: {principal: {name: string}}) => r.principal.name)).toEqual(['bob'])
    const approved = await as('alice', ['project', 'approve', 'bob'])
    expect(approved.code, approved.stderr).toBe(0)
    expect(approved.stdout).toMatch(/\tbob\tapproved\n$/)
    const joined = await as('bob', ['project', 'join'])
    expect(joined.code, joined.stderr).toBe(0)
    expect(joined.stdout).toMatch(/\tjoined\n$/)
    // A plain member may not manage members: 403, exit 4.
    expect((await as('bob', ['project', 'requests'])).code).toBe(4)
  })

  it('deny by name: the principal stays outside', async () => {
    expect((await as('eve', ['project', 'join'])).code).toBe(0)
    const denied = await as('alice', ['project', 'deny', 'eve'])
    expect(denied.code, denied.stderr).toBe(0)
    expect(denied.stdout).toMatch(/\teve\tdenied\n$/)
    expect((await json('eve', ['project', 'list'])).items).toEqual([])
    expect((await as('alice', ['project', 'deny', 'nobody'])).code).toBe(3)
  })

  it('invites by name and by a one-time link', async () => {
    const invited = await as('alice', ['project', 'invite', 'carol'])
    expect(invited.code, invited.stderr).toBe(0)
    expect(invited.stdout).toMatch(/\tcarol\t/)
    expect((await as('carol', ['project', 'join'])).stdout).toMatch(/\tjoined\n$/)

    const link = await as('alice', ['project', 'invite', '--link'])
    expect(link.code, link.stderr).toBe(0)
    const token = link.stdout.trim()
    expect(token).toMatch(/^kbinv_[0-9A-Za-z]{43}$/)
    const used = await as('dave', ['project', 'join', '--invitation', token])
    expect(used.code, used.stderr).toBe(0)
    expect(used.stdout).toMatch(/\tjoined\n$/)
    // Used once: eve cannot use it again (403, exit 4).
    expect((await as('eve', ['project', 'join', '--invitation', token])).code).toBe(4)
    // A name and --link together, or neither: a usage error.
    expect((await as('alice', ['project', 'invite'])).code).toBe(2)
    expect((await as('alice', ['project', 'invite', 'eve', '--link'])).code).toBe(2)
  })

  it('lists members in a table within 80 columns, and as JSON', async () => {
    const members = await json('alice', ['project', 'members'])
    expect(members.items.map((m: {principal: {name: string}; role: string}) => [m.principal.name, m.role])).toEqual([
      ['alice', 'maintainer'],
      ['bob', 'member'],
      ['carol', 'member'],
      ['dave', 'member'],
    ])
    const table = await kbTty(user, ['project', 'members'], {cwd: repo, env: {KB_API_KEY: keys.alice!}, cols: 80})
    expect(table.code).toBe(0)
    const lines = table.stdout.replace(new RegExp(ANSI_RE.source, 'g'), '').trimEnd().split('\n')
    expect(lines[0]).toMatch(/^NAME\s+ROLE\s+JOINED\s+ID$/)
    expect(lines).toHaveLength(5)
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80)
  })

  it('removes a member, who then sees no project; a member leaves; the only maintainer stays until another is made', async () => {
    const removed = await as('alice', ['project', 'remove', 'bob'])
    expect(removed.code, removed.stderr).toBe(0)
    expect(removed.stdout).toMatch(/\tbob\tremoved\n$/)
    expect((await json('bob', ['project', 'list'])).items).toEqual([])

    const left = await as('carol', ['project', 'leave'])
    expect(left.code, left.stderr).toBe(0)
    expect((await json('carol', ['project', 'list'])).items).toEqual([])

    const refused = await as('alice', ['project', 'leave'])
    expect(refused.code).toBe(5)
    expect(refused.stderr).toMatch(/only maintainer/)
    const role = await as('alice', ['project', 'role', 'dave', 'maintainer'])
    expect(role.code, role.stderr).toBe(0)
    expect(role.stdout).toMatch(/\tdave\tmaintainer\n$/)
    expect((await as('alice', ['project', 'leave'])).code).toBe(0)
    expect((await json('dave', ['project', 'members'])).items.map((m: {principal: {name: string}}) => m.principal.name)).toEqual(['dave'])
  })
})
