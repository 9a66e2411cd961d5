/**
 * Error hints name the fix of the command at hand (src/shared/hints.ts, per-command words; docs/cli.md, "Exit codes").
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, kb, type KbEnv, userWithDaemon} from './helpers.js'

let d: ChildDaemon
let user: KbEnv

beforeAll(async () => {
  ;({user, d} = await userWithDaemon())
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('hints per command', () => {
  it('kb api-key revoke <unknown> points at kb api-key list, not at entries', async () => {
    const r = await kb(user, ['api-key', 'revoke', '0193e0a1-0000-7000-8000-000000000000'])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/`kb api-key list`/)
    expect(r.stderr).not.toMatch(/kb search/)
  })

  it("a refusal says once who may (the server's words) and then what to do", async () => {
    const id = (await d.request('POST', '/knowledge', {body: {title: 'Owner note', body: 'x', scope: 'global'}})).body.id
    const bob = await newPrincipal(d, 'bob')
    const r = await kb(user, ['resolve', id, '--note', 'done'], {env: {KB_API_KEY: bob}})
    expect(r.code).toBe(4)
    expect(r.stderr.match(/only the author/g)).toHaveLength(1)
    expect(r.stderr).toMatch(/`kb auth status` shows who you are/)
  })

  it('a malformed id is "not an id", not a regular expression', async () => {
    const r = await kb(user, ['show', 'not-an-id'])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe('kb: "not-an-id" is not an entry id: an id, or its start or end, is hexadecimal digits (0-9, a-f)\n')
    expect(r.stderr).not.toMatch(/pattern|\[0-9a-f/)
  })

  it('kb auth status with a refused credential exits 4 with one kb: line saying why', async () => {
    const r = await kb(user, ['auth', 'status'], {env: {KB_API_KEY: 'kb_nottherightkey0000000000000000'}})
    expect(r.code).toBe(4)
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^kb: not authenticated at http:\/\/127\.0\.0\.1:\d+\/api\/v1: the credential is unknown, revoked or expired; /,
    )
    // KB_API_KEY wins over any login, so the fix is the variable itself, not `kb auth login`.
    expect(lines[0]).toMatch(/; KB_API_KEY wins over any login: set it to a key the server accepts, or unset it$/)
  })

  it('kb auth status with no credential at all says to log in', async () => {
    const r = await kb(user, ['auth', 'status'], {env: {KB_DATA_DIR: user.root}})
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(
      /^kb: not authenticated at http:\/\/127\.0\.0\.1:\d+\/api\/v1 \(no credential\); log in with `kb auth login --web`/,
    )
  })

  it('an unknown KB_PROJECT points at kb project join, not at the HTTP route', async () => {
    for (const args of [['add', 'In no project', '--body', 'x'], ['list']]) {
      const r = await kb(user, args, {env: {KB_PROJECT: '0193e0a1-0000-7000-8000-000000000000'}})
      expect(r.code, r.stderr).toBe(3)
      expect(r.stderr).toMatch(/not a member.*; join it with `kb project join`/)
      expect(r.stderr).not.toMatch(/POST \/projects/)
    }
  })

  it('kb backup into a missing directory says so in one line, before copying anything', async () => {
    const r = await kb(user, ['backup', '/nonexistent-kb-dir/kb.sqlite'])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(
      'kb: cannot write /nonexistent-kb-dir/kb.sqlite: there is no directory /nonexistent-kb-dir; create it first (mkdir -p /nonexistent-kb-dir)\n',
    )
  })

  it('kb auth login --with-token with a refused key points at owner.key', async () => {
    const r = await kb(user, ['auth', 'login', '--with-token'], {input: 'kb_nottherightkey0000000000000000\n'})
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/owner\.key/)
    expect(r.stderr).not.toMatch(/kb api-key create/)
  })
})
