/**
 * `kb auth grants` and `kb auth revoke-grant` with the real binary and daemon: the grants an application
 * holds for you, and ending one — after which its tokens are refused.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, type ChildDaemon} from '../helpers/daemon.js'
import {obtainTokens} from '../server/oauth/support.js'
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

describe('kb auth grants / revoke-grant', () => {
  it('lists the grant, ends it (its access token is refused after), and a second revoke is not found', async () => {
    const key = await newPrincipal(d, 'frank')
    const {tokens, client} = await obtainTokens(d, key)
    const env = {KB_API_KEY: key}

    const listed = await kb(user, ['auth', 'grants', '--json'], {env})
    expect(listed.code, listed.stderr).toBe(0)
    const [grant, ...rest] = JSON.parse(listed.stdout).items
    expect(rest).toEqual([])
    expect(grant).toMatchObject({client_id: client.client_id, client_name: 'test client'})
    const piped = await kb(user, ['auth', 'grants'], {env})
    expect(piped.stdout.split('\t').slice(0, 2)).toEqual([grant.id, 'test client'])

    const revoked = await kb(user, ['auth', 'revoke-grant', grant.id], {env})
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(revoked.stdout).toBe(`${grant.id}\n`)
    expect((await d.request('GET', '/knowledge', {key: tokens.access_token})).status).toBe(401)
    expect(JSON.parse((await kb(user, ['auth', 'grants', '--json'], {env})).stdout).items).toEqual([])
    const again = await kb(user, ['auth', 'revoke-grant', grant.id], {env})
    expect(again.code, again.stderr).toBe(3)
    // Another principal's view of the same store: none of frank's grants.
    expect(JSON.parse((await kb(user, ['auth', 'grants', '--json'])).stdout).items).toEqual([])
  })
})
