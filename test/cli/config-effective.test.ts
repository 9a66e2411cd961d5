/**
 * `kb config get|list` show the value in effect and its source, defaults included (docs/cli.md, "Configuration").
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanup, kb, makeUser} from './helpers.js'

const user = makeUser({KB_NO_AUTOSTART: '1'})

afterAll(async () => {
  await cleanup(user)
})

describe('kb config get/list', () => {
  it('an unset key prints its default, naming it per command where commands differ', async () => {
    const r = await kb(user, ['config', 'get', 'default_limit'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('20 (kb list), 10 (kb search)\n')
    const q = JSON.parse((await kb(user, ['config', 'get', 'queue_writes', '--json'])).stdout)
    expect(q).toEqual({key: 'queue_writes', value: true, source: 'default', env: null})
  })

  it('the config file, then the environment, win over the default', async () => {
    expect((await kb(user, ['config', 'set', 'default_limit', '7'])).code).toBe(0)
    expect(JSON.parse((await kb(user, ['config', 'get', 'default_limit', '--json'])).stdout)).toMatchObject({value: 7, source: 'config'})
    const e = JSON.parse((await kb(user, ['config', 'get', 'editor', '--json'], {env: {EDITOR: 'nano'}})).stdout)
    expect(e).toMatchObject({value: 'nano', source: 'env', env: 'EDITOR'})
  })

  it('kb config list leaves no value blank', async () => {
    const all = JSON.parse((await kb(user, ['config', 'list', '--json'], {env: {KB_NO_QUEUE: '1'}})).stdout)
    for (const s of Object.values(all) as {value: unknown}[]) expect(s.value).not.toBeNull()
    expect(all.queue_writes).toMatchObject({value: false, source: 'env', env: 'KB_NO_QUEUE'})
    expect(all.base_url).toMatchObject({value: 'http://127.0.0.1:7411/api/v1', source: 'default'})
  })
})
