/**
 * Offline gaps closed (docs/cli.md, "Offline writes"), with a real daemon stopped and started again and the built
 * `kb`: an offline `kb add` prints the id the entry will have (a UUIDv7 the CLI chose) and exits 0, and the entry
 * has that id once sent; a write the server refuses is listed by `kb sync --refused` (80 columns on a terminal)
 * and, once what was wrong is fixed, sent by `kb sync --retry <n>`.
 */
import {shortId} from '../../src/shared/short-id.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startChildDaemon, type ChildDaemon} from '../helpers/daemon.js'
import {fakeCorpus} from '../server/scan/fake-corpus.js'
import {cleanup, freePort, kb, kbTty, makeUser, type KbEnv} from './helpers.js'

const OFF = {KB_NO_AUTOSTART: '1'}
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const leak = fakeCorpus(77).find((s) => s.kind === 'aws-access-token')!.text

let user: KbEnv
let d: ChildDaemon
let port: number

beforeAll(async () => {
  port = await freePort()
  user = makeUser({TERM: 'xterm'})
  d = await startChildDaemon({dataDir: user.dataDir, port})
  user.env.KB_BASE_URL = d.url
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

async function offline<T>(fn: () => Promise<T>): Promise<T> {
  await d.stop()
  try {
    return await fn()
  } finally {
    d = await startChildDaemon({dataDir: user.dataDir, port})
  }
}

describe('kb add while the server is out of reach', () => {
  it('prints the id the entry will have, exits 0 with a note, and the entry has that id once sent', async () => {
    const [piped, json] = await offline(async () => [
      await kb(user, ['add', 'Written on the train', '--body', 'the tunnel drops the VPN', '--scope', 'private'], {env: OFF}),
      await kb(user, ['add', 'Also on the train', '--body', 'b', '--scope', 'private', '--json'], {env: OFF}),
    ])
    expect(piped.code, piped.stderr).toBe(0)
    const id = piped.stdout.trim()
    expect(id).toMatch(UUID_V7)
    expect(piped.stderr).toContain('queued add "Written on the train" for `kb sync`')
    expect(piped.stderr).toContain(`the entry will have id ${id} once \`kb sync\` sends it`)
    expect(json.code, json.stderr).toBe(0)
    const queued = JSON.parse(json.stdout)
    expect(queued).toMatchObject({queued: true, command: 'add', id: expect.stringMatching(UUID_V7)})

    const sync = await kb(user, ['sync'], {env: OFF})
    expect(sync.code, sync.stdout + sync.stderr).toBe(0)
    expect(sync.stdout).toContain(`sent     add Written on the train → ${shortId(id)}`)
    expect((await d.request('GET', `/knowledge/${id}`)).body).toMatchObject({id, title: 'Written on the train'})
    expect((await d.request('GET', `/knowledge/${queued.id}`)).body.title).toBe('Also on the train')
    // The id is the entry's for good: another create asking for it is refused.
    const again = await d.request('POST', '/knowledge', {body: {id, title: 'Copy', body: 'b', scope: 'private'}})
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('id_taken')
  }, 120_000)
})

describe('kb sync --refused and --retry', () => {
  it('lists a refused write, numbered; after the fix, --retry sends it', async () => {
    const e = (
      await d.request('POST', '/knowledge', {body: {title: 'CI deploy notes', body: `The job logged:\n\n    ${leak}\n`, scope: 'private'}})
    ).body
    const q = await offline(() => kb(user, ['publish', e.id, '--scope', 'global'], {env: OFF}))
    expect(q.code, q.stderr).toBe(0)
    const sync = await kb(user, ['sync'], {env: OFF})
    expect(sync.code).toBe(1)
    expect(sync.stdout).toMatch(/refused {2}publish /)

    const listed = await kb(user, ['sync', '--refused', '--json'])
    expect(listed.code, listed.stderr).toBe(0)
    const items = JSON.parse(listed.stdout).items
    expect(items).toMatchObject([{n: 1, code: 'sensitive_content', item: {command: 'publish', label: e.id}}])
    const piped = await kb(user, ['sync', '--refused'])
    expect(piped.stdout.trim().split('\t').slice(0, 1)).toEqual(['1'])
    const tty = await kbTty(user, ['sync', '--refused'], {cols: 80})
    expect(tty.code, tty.stdout).toBe(0)
    expect(tty.stdout).toContain('kb sync --retry N')
    for (const line of tty.stdout.replace(/\u001B\[[0-9;]*m/g, '').split('\n')) expect(line.length, line).toBeLessThanOrEqual(80)

    expect((await kb(user, ['sync', '--retry', '2'])).code).toBe(2)
    // The fix: the secret leaves the entry; then the same publish goes through.
    expect((await d.request('PATCH', `/knowledge/${e.id}`, {body: {body: 'The job logged a key; it was rotated.'}})).status).toBe(200)
    const retry = await kb(user, ['sync', '--retry', '1'])
    expect(retry.code, retry.stdout + retry.stderr).toBe(0)
    expect(retry.stdout).toContain(`Queued again: publish ${e.id}`)
    expect(retry.stdout).toContain(`sent     publish ${shortId(e.id)}`)
    expect((await d.request('GET', `/knowledge/${e.id}`)).body.scope).toBe('global')
    expect(JSON.parse((await kb(user, ['sync', '--refused', '--json'])).stdout).items).toEqual([])
  }, 120_000)
})
