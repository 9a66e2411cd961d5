/**
 * Every exit code of docs/cli.md's table (0 ok, 1 failure, 2 usage, 3 not found, 4 auth, 5 conflict,
 * 6 unreachable), each with one stderr line that names the fix, and the --json error shape.
 */
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, freePort, kb, type KbEnv, userWithDaemon} from './helpers.js'

let d: ChildDaemon
let user: KbEnv
let entryId: string

beforeAll(async () => {
  ;({user, d} = await userWithDaemon())
  const r = await d.request('POST', '/knowledge', {body: {title: 'Global note', body: 'visible to all', scope: 'global'}})
  entryId = r.body.id
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

/** One line on stderr, prefixed `kb:`, that says what to do (a command, a flag or a variable). */
function expectOneFixLine(stderr: string): void {
  const lines = stderr
    .trim()
    .split('\n')
    .filter((l) => !l.startsWith('    '))
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^kb: /)
  expect(lines[0]).toMatch(/`kb [a-z-]+|--[a-z-]+|KB_[A-Z_]+|check the id/)
}

describe('exit codes', () => {
  it('0: success', async () => {
    const r = await kb(user, ['show', entryId])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
  })

  it('1: a failure the server reports as invalid data (422)', async () => {
    const r = await kb(user, ['add', 'Bad url', '--body', 'x', '--url', 'not a url'])
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr).toMatch(/url/)
    expectOneFixLine(r.stderr)
  })

  it('2: usage — unknown flag, missing argument, bad option value, refusing to prompt, bad id form', async () => {
    for (const args of [
      ['list', '--bogus'],
      ['show'],
      ['list', '--scope', 'galaxy'],
      ['delete', entryId],
      ['add', 'No body'],
      ['show', 'not-a-uuid'],
    ]) {
      const r = await kb(user, args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr, args.join(' ')).toMatch(/^kb: /)
    }
    const unknown = await kb(user, ['frobnicate'])
    expect(unknown.code, unknown.stderr).toBe(2)
    expect(unknown.stderr).toBe('kb: unknown command "frobnicate"; see `kb help` for the commands\n')
  })

  it('3: not found', async () => {
    const r = await kb(user, ['show', '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980'])
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toContain('`kb list`')
    expectOneFixLine(r.stderr)
    const noProject = await kb(user, ['project', 'show'])
    expect(noProject.code, noProject.stderr).toBe(3)
    expect(noProject.stderr).toContain('`kb project join`')
  })

  it('4: not authenticated, and forbidden', async () => {
    const r = await kb(user, ['list'], {env: {KB_API_KEY: 'kb_000000000000000000000000000000000000000000'}})
    expect(r.code, r.stderr).toBe(4)
    expect(r.stderr).toContain('kb auth login --with-token')
    expectOneFixLine(r.stderr)
    const bob = await newPrincipal(d, 'bob')
    const f = await kb(user, ['delete', entryId, '--yes'], {env: {KB_API_KEY: bob}})
    expect(f.code, f.stderr).toBe(4)
    expectOneFixLine(f.stderr)
  })

  it('5: conflict — publishing to a scope that is not wider', async () => {
    const r = await kb(user, ['publish', entryId, '--scope', 'private'])
    expect(r.code, r.stderr).toBe(5)
    expectOneFixLine(r.stderr)
  })

  it('6: unreachable — a dead daemon with autostart off, and an unknown remote host', async () => {
    const port = await freePort()
    const r = await kb(user, ['list'], {env: {KB_BASE_URL: `http://127.0.0.1:${port}/api/v1`, KB_NO_AUTOSTART: '1'}})
    expect(r.code, r.stderr).toBe(6)
    expect(r.stderr.trim()).toBe(
      `kb: kb daemon at http://127.0.0.1:${port} is not reachable (connection refused); start it with \`kb daemon start\` (autostart is off: KB_NO_AUTOSTART is set) or check --base-url`,
    )
    const remote = await kb(user, ['list', '--base-url', 'http://kb.invalid/api/v1'])
    expect(remote.code, remote.stderr).toBe(6)
    expect(remote.stderr).toContain('check --base-url')
  })

  it('6: a listener that takes the request and never answers is not called stopped', async () => {
    const silent = createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const {port} = silent.address() as AddressInfo
    try {
      const r = await kb(user, ['list'], {env: {KB_BASE_URL: `http://127.0.0.1:${port}/api/v1`, KB_NO_AUTOSTART: '1'}})
      expect(r.code, r.stderr).toBe(6)
      expect(r.stderr.trim()).toBe(
        `kb: kb daemon at http://127.0.0.1:${port} did not answer (no answer within 2 s); if it is a kb daemon, it is busy or stuck: see \`kb daemon logs\`, then retry`,
      )
    } finally {
      silent.closeAllConnections()
      silent.close()
    }
  })
})

describe('--json', () => {
  it('prints an error object on stdout with the code and exit code', async () => {
    const r = await kb(user, ['show', '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980', '--json'])
    expect(r.code, r.stderr).toBe(3)
    const body = JSON.parse(r.stdout)
    expect(body).toEqual({error: {code: 'not_found', message: expect.stringContaining('does not exist'), exit: 3, status: 404}})
  })

  it('shapes: list and api-key list are {items}, delete and revoke name the id', async () => {
    const list = JSON.parse((await kb(user, ['list', '--json'])).stdout)
    expect(Object.keys(list).sort()).toEqual(['items', 'next_cursor'])
    expect(list.items[0]).toMatchObject({id: entryId, title: 'Global note', scope: 'global', status: 'open', tags: [], version: 1})
    const created = JSON.parse((await kb(user, ['api-key', 'create', '--name', 'ci', '--json'])).stdout)
    expect(created).toMatchObject({
      name: 'ci',
      key: expect.stringMatching(/^kb_[A-Za-z0-9]{43}$/),
      prefix: expect.any(String),
      principal: {name: expect.any(String)},
    })
    const keys = JSON.parse((await kb(user, ['api-key', 'list', '--json'])).stdout)
    expect(keys.items.map((k: {id: string}) => k.id)).toContain(created.id)
    expect(JSON.stringify(keys)).not.toContain(created.key)
    const revoked = JSON.parse((await kb(user, ['api-key', 'revoke', created.id, '--json'])).stdout)
    expect(revoked).toEqual({id: created.id, revoked: true})
    const cfg = JSON.parse((await kb(user, ['config', 'get', 'base_url', '--json'])).stdout)
    expect(cfg).toEqual({key: 'base_url', value: d.url, source: 'env', env: 'KB_BASE_URL'})
  })
})
