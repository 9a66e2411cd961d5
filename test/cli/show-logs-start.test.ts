/**
 * Day-one gaps closed (docs/cli.md): `kb show` gives the resolution note, the newest comments (`--comments all`: every
 * one, past the full view's 50) and the project by name; `kb daemon logs` is for people on a terminal and raw piped;
 * `kb daemon start --port` serves where it is told. The built `kb` against real daemons.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ChildDaemon} from '../helpers/daemon.js'
import {ANSI_RE, cleanup, freePort, gitRepo, kb, kbTty, makeUser, type KbEnv, userWithDaemon} from './helpers.js'

let d: ChildDaemon
let user: KbEnv
const strip = (s: string): string => s.replace(new RegExp(ANSI_RE.source, 'g'), '')

beforeAll(async () => {
  ;({user, d} = await userWithDaemon({TERM: 'xterm'}))
})
afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('kb show', () => {
  it('shows the resolution note, the newest comments and the project by name', async () => {
    const repo = gitRepo(user, 'show', {origin: 'git@github.com:acme/show-gaps.git'})
    expect((await kb(user, ['project', 'join'], {cwd: repo})).code).toBe(0)
    const id = (await kb(user, ['add', 'Pool leak', '-b', 'The body.', '--scope', 'project', '-y'], {cwd: repo})).stdout.trim()
    for (let i = 1; i <= 52; i++)
      expect((await d.request('POST', `/knowledge/${id}/comments`, {body: {body: `comment ${i}`}})).status).toBe(201)
    expect((await kb(user, ['resolve', id, '-n', 'raised the **pool** size'], {cwd: repo})).code).toBe(0)

    const tty = strip((await kbTty(user, ['show', id, '--no-pager'], {cwd: repo, env: {NO_COLOR: '1'}})).stdout)
    expect(tty).toMatch(/^project +show-gaps$/m)
    expect(tty).toMatch(/^resolution +raised the \*\*pool\*\* size$/m)
    expect(tty).toContain('Comments (newest 3 of 52) — `--comments all` shows every one')
    expect(tty).toContain('comment 52')
    expect(tty).not.toContain('comment 49')

    const piped = await kb(user, ['show', id, '--comments', '3'], {cwd: repo})
    expect(piped.stdout).toMatch(/^project:\t[0-9a-f-]{36}\nproject name:\tshow-gaps$/m)
    expect(piped.stdout).toContain('resolution:\traised the **pool** size')
    expect(piped.stdout).toContain('-- comments (newest 3 of 52)')
    const all = await kb(user, ['show', id, '--comments', 'all'], {cwd: repo})
    for (const n of [1, 2, 51, 52]) expect(all.stdout).toContain(`\ncomment ${n}\n`)
    expect(all.stdout).not.toContain('newest')
    const json = JSON.parse((await kb(user, ['show', id, '--json', '--comments', 'all'], {cwd: repo})).stdout)
    expect(json.comments).toHaveLength(52)
    // --json keeps the standard detail unless asked.
    expect(JSON.parse((await kb(user, ['show', id, '--json'], {cwd: repo})).stdout).comments).toBeUndefined()
    expect((await kb(user, ['show', id, '--comments', 'some'])).code).toBe(2)
  })
})

describe('kb daemon start --port and kb daemon logs', () => {
  it('starts on the port asked; its log reads as local times and levels on a terminal, raw piped', async () => {
    const me = makeUser({TERM: 'xterm'})
    try {
      const port = await freePort()
      const url = `http://127.0.0.1:${port}/api/v1`
      const started = await kb(me, ['daemon', 'start', '--port', String(port)])
      expect(started.code, started.stderr).toBe(0)
      expect(started.stdout).toMatch(new RegExp(`^${url}\\t\\d+\\tstarted\\n$`))
      expect((await kb(me, ['list', '--base-url', url])).code).toBe(0)
      expect((await kb(me, ['daemon', 'start', '--port', String(port), '--base-url', url])).code).toBe(2)

      const piped = await kb(me, ['daemon', 'logs', '-n', '3', '--base-url', url])
      for (const line of piped.stdout.trim().split('\n')) expect(JSON.parse(line)).toHaveProperty('level')
      const tty = strip((await kbTty(me, ['daemon', 'logs', '-n', '50', '--base-url', url])).stdout)
      expect(tty).toMatch(
        /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} {2}INFO {3}kb daemon listening {2}url=http:\/\/127\.0\.0\.1:\d+\/api\/v1/m,
      )
      expect(tty).toMatch(/INFO {3}request {2}GET \/api\/v1\/knowledge\S* {2}200 {2}[\d.]+ ms$/m)
      expect(tty).not.toContain('"level"')
      const json = JSON.parse((await kb(me, ['daemon', 'logs', '-n', '2', '--json', '--base-url', url])).stdout)
      expect(json.lines).toHaveLength(2)
      expect(JSON.parse(json.lines[0])).toHaveProperty('time')
    } finally {
      await kb(me, ['daemon', 'stop'])
      await cleanup(me)
    }
  })
})
