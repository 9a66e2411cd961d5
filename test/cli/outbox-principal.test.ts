/**
 * A queued write belongs to the credential that queued it (issue 24; docs/cli.md, "Offline writes"): an add
 * queued with one `KB_API_KEY` is not sent by `kb sync` under another principal's key — it is held, kept in
 * the queue and listed — and goes out, as its own author, once `kb sync` runs with the key that queued it.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startChildDaemon, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, freePort, kb, makeUser, type KbEnv} from './helpers.js'

let user: KbEnv
let d: ChildDaemon
let port: number
let alice: string
let bob: string

beforeAll(async () => {
  port = await freePort()
  user = makeUser()
  d = await startChildDaemon({dataDir: user.dataDir, port})
  user.env.KB_BASE_URL = d.url
  alice = await newPrincipal(d, 'alice')
  bob = await newPrincipal(d, 'bob')
})
afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('queued writes and who sends them', () => {
  it("bob's sync holds alice's add (kept, listed, exit 6); alice's sync sends it as hers", async () => {
    await d.stop()
    const add = await kb(user, ['add', 'Queued by alice', '--body', 'offline', '--scope', 'global'], {
      env: {KB_NO_AUTOSTART: '1', KB_API_KEY: alice},
    })
    expect(add.code, add.stderr).toBe(0)
    expect(add.stderr).toMatch(/queued add "Queued by alice"/)
    d = await startChildDaemon({dataDir: user.dataDir, port})

    const asBob = await kb(user, ['sync'], {env: {KB_API_KEY: bob}})
    expect(asBob.code, asBob.stderr).toBe(6)
    expect(asBob.stdout).toMatch(/held +add Queued by alice: queued under another credential/)
    expect(asBob.stdout).toMatch(/1 held \(queued under another credential; kept\); 1 still waiting/)
    const search = async (): Promise<Array<{title: string; author: {name: string}}>> =>
      (await d.request('GET', '/knowledge', {query: {limit: 100, detail: 'standard'}})).body.items
    expect((await search()).filter((e) => e.title === 'Queued by alice')).toEqual([])
    const status = await kb(user, ['sync', '--status', '--json'])
    expect(JSON.parse(status.stdout).items).toMatchObject([
      {label: 'Queued by alice', principal: expect.stringMatching(/^key:[0-9a-f]{16}$/)},
    ])
    // Not the background send behind bob's next command either.
    expect((await kb(user, ['search', 'anything'], {env: {KB_API_KEY: bob}})).code).toBe(0)
    expect((await search()).filter((e) => e.title === 'Queued by alice')).toEqual([])

    const asAlice = await kb(user, ['sync'], {env: {KB_API_KEY: alice}})
    expect(asAlice.code, asAlice.stdout + asAlice.stderr).toBe(0)
    expect(asAlice.stdout).toMatch(/sent +add Queued by alice/)
    expect((await search()).filter((e) => e.title === 'Queued by alice').map((e) => e.author.name)).toEqual(['alice'])
    // A daemon restart and eight kb runs: past the default 30 s on a loaded 2-core machine.
  }, 120_000)
})
