/**
 * A second base URL: the same commands pointed at another server with --base-url or config base_url,
 * with that server's own stored credential; a remote base URL is never autostarted.
 */
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {startChildDaemon, tempDir} from '../helpers/daemon.js'
import {cleanup, kb, makeUser, type KbEnv} from './helpers.js'

const users: KbEnv[] = []
afterAll(async () => {
  for (const u of users) await cleanup(u)
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
      // B is a daemon of another data directory: signing in at a loopback URL needs its proof, so name that
      // directory once; the stored key remembers it (docs/security.md).
      const login = await kb(user, ['auth', 'login', '--with-token', '--base-url', b.url], {
        input: `${b.ownerKey}\n`,
        env: {KB_DATA_DIR: bDir},
      })
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
