/**
 * The daemon managed for you: autostart from cold on a loopback base URL, `kb daemon status|stop|logs`,
 * KB_NO_AUTOSTART, replacing a daemon of another version, and a second (non-default) base URL with its
 * own stored credential.
 */
import {spawn} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {startChildDaemon, tempDir} from '../helpers/daemon.js'
import {cleanup, freePort, kb, makeUser, UUID_RE, type KbEnv} from './helpers.js'

const users: KbEnv[] = []
afterAll(async () => {
  for (const u of users) await cleanup(u)
})

describe('autostart', () => {
  it('starts the daemon from cold, then stop, status and logs manage it', async () => {
    const user = makeUser()
    users.push(user)
    const port = await freePort()
    user.env.KB_BASE_URL = `http://127.0.0.1:${port}/api/v1`

    const add = await kb(user, ['add', 'Cold start', '--body', 'the daemon was not running'])
    expect(add.stderr).toBe('')
    expect(add.code, add.stderr).toBe(0)
    expect(add.stdout.trim()).toMatch(UUID_RE)
    const info = JSON.parse(readFileSync(join(user.dataDir, 'daemon.json'), 'utf8'))
    expect(info).toMatchObject({url: `http://127.0.0.1:${port}/api/v1`, version: '0.1.0'})
    expect(existsSync(join(user.dataDir, 'owner.key'))).toBe(true)

    const status = await kb(user, ['daemon', 'status', '--json'])
    expect(status.code, status.stderr).toBe(0)
    expect(JSON.parse(status.stdout)).toMatchObject({running: true, version: '0.1.0', cli_version: '0.1.0', pid: info.pid, data_dir: user.dataDir})

    const logs = await kb(user, ['daemon', 'logs', '-n', '200'])
    expect(logs.code, logs.stderr).toBe(0)
    expect(logs.stdout).toContain('kb daemon listening')

    const stop = await kb(user, ['daemon', 'stop'])
    expect(stop.code, stop.stderr).toBe(0)
    expect(stop.stdout).toBe(`stopped\t${info.pid}\n`)
    expect(existsSync(join(user.dataDir, 'daemon.json'))).toBe(false)
    const down = await kb(user, ['daemon', 'status'])
    expect(down.code, down.stderr).toBe(6)
    expect(down.stdout.startsWith('stopped\t')).toBe(true)

    // With autostart off, nothing is started: one line, exit 6.
    const off = await kb(user, ['search', 'cold'], {env: {KB_NO_AUTOSTART: '1'}})
    expect(off.code, off.stderr).toBe(6)
    expect(off.stderr).toContain('KB_NO_AUTOSTART')
    expect(off.stderr).toContain('`kb daemon start`')
    expect(existsSync(join(user.dataDir, 'daemon.json'))).toBe(false)

    // The data survived the restart that `kb daemon start` makes.
    const start = await kb(user, ['daemon', 'start'])
    expect(start.code, start.stderr).toBe(0)
    const search = await kb(user, ['search', 'cold', '--json'])
    expect(search.stderr).toBe('')
    const found = JSON.parse(search.stdout)
    expect(found.items.map((e: {title: string}) => e.title)).toEqual(['Cold start'])
  })

  it('replaces a daemon of another version that this data directory started', async () => {
    const user = makeUser()
    users.push(user)
    const port = await freePort()
    user.env.KB_BASE_URL = `http://127.0.0.1:${port}/api/v1`
    const old = spawn(process.execPath, [join(import.meta.dirname, 'fixtures', 'old-daemon.mjs'), String(port), user.dataDir], {stdio: ['ignore', 'pipe', 'inherit']})
    const exited = new Promise<number | null>((r) => old.on('exit', (code) => r(code)))
    await new Promise<void>((r) => old.stdout!.once('data', () => r()))

    const r = await kb(user, ['list', '--json'])
    expect(r.stderr).toBe('')
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({items: [], next_cursor: null})
    expect(await exited).toBe(0)
    const status = JSON.parse((await kb(user, ['daemon', 'status', '--json'])).stdout)
    expect(status).toMatchObject({running: true, version: '0.1.0'})
    expect(status.pid).not.toBe(old.pid)
  })
})

describe('a second base URL', () => {
  it('points the same commands at another server, with its own stored credential', async () => {
    const user = makeUser()
    users.push(user)
    const a = await startChildDaemon({dataDir: user.dataDir})
    const bDir = tempDir()
    const b = await startChildDaemon({dataDir: bDir})
    try {
      user.env.KB_BASE_URL = a.url
      const login = await kb(user, ['auth', 'login', '--with-token', '--base-url', b.url], {input: `${b.ownerKey}\n`})
      expect(login.stderr).toBe('')
      expect(login.code, login.stderr).toBe(0)
      expect(login.stdout).toBe(`${b.url}\tfile\towner\n`)

      expect((await kb(user, ['add', 'Only on A', '--body', 'a'])).code).toBe(0)
      expect((await kb(user, ['add', 'Only on B', '--body', 'b', '--base-url', b.url])).code).toBe(0)
      const onA = JSON.parse((await kb(user, ['list', '--json'])).stdout).items.map((e: {title: string}) => e.title)
      const onB = JSON.parse((await kb(user, ['list', '--json', '--base-url', b.url])).stdout).items.map((e: {title: string}) => e.title)
      expect(onA).toEqual(['Only on A'])
      expect(onB).toEqual(['Only on B'])

      // config base_url, when KB_BASE_URL is not set
      expect((await kb(user, ['config', 'set', 'base_url', b.url])).code).toBe(0)
      const viaConfig = await kb(user, ['list', '--json'], {env: {KB_BASE_URL: ''}})
      expect(JSON.parse(viaConfig.stdout).items.map((e: {title: string}) => e.title)).toEqual(['Only on B'])
      const got = JSON.parse((await kb(user, ['config', 'get', 'base_url', '--json'], {env: {KB_BASE_URL: ''}})).stdout)
      expect(got).toMatchObject({value: b.url, source: 'config'})
      expect((await kb(user, ['config', 'unset', 'base_url'])).code).toBe(0)
    } finally {
      await a.stop()
      await b.stop()
    }
  })

  it('never autostarts for a remote base URL', async () => {
    const user = makeUser()
    users.push(user)
    const r = await kb(user, ['list'], {env: {KB_BASE_URL: 'http://kb.invalid:7411/api/v1'}})
    expect(r.code, r.stderr).toBe(6)
    expect(existsSync(join(user.dataDir, 'daemon.json'))).toBe(false)
    expect(existsSync(join(user.dataDir, 'daemon.log'))).toBe(false)
  })
})
