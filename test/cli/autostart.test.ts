/**
 * The daemon managed for you: autostart from cold on a loopback base URL, `kb daemon status|stop|logs`,
 * KB_NO_AUTOSTART, and replacing a daemon of another version.
 */
import {spawn} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
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
    expect(JSON.parse(status.stdout)).toMatchObject({
      running: true,
      version: '0.1.0',
      cli_version: '0.1.0',
      pid: info.pid,
      data_dir: user.dataDir,
    })

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
    expect(down.stderr).toBe(`kb: nothing answers at ${user.env.KB_BASE_URL}; start the daemon with \`kb daemon start\`\n`)

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
    const old = spawn(process.execPath, [join(import.meta.dirname, 'fixtures', 'old-daemon.mjs'), String(port), user.dataDir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
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
