/**
 * The outbox end to end with real daemons and the built `kb` (docs/cli.md, "Offline writes"): a session whose
 * daemon stops mid-way (writes queue, exit 0, one line each), a restart on the same port after which one
 * `kb sync` sends each exactly once (counted on the server), an answer lost on the way back (a proxy drops it)
 * that sync does not repeat, the git hook queueing silently, the queue sent behind the next command, and
 * the local daemon: nothing queued while it can autostart, queued when it cannot.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, readdirSync, statSync} from 'node:fs'
import {createServer} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startChildDaemon, type ChildDaemon} from '../helpers/daemon.js'
import {startDropProxy} from '../helpers/drop-proxy.js'
import {cleanup, freePort, gitRepo, kb, makeUser, UUID_RE, type KbEnv} from './helpers.js'
import {shortId} from '../../src/shared/short-id.js'

let user: KbEnv
let d: ChildDaemon
let port: number
const OFF = {KB_NO_AUTOSTART: '1'}

beforeAll(async () => {
  port = await freePort()
  user = makeUser()
  d = await startChildDaemon({dataDir: user.dataDir, port})
  user.env.KB_BASE_URL = d.url
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

const stateDir = (): string => join(user.home, '.local', 'state', 'kb')
/** The queue files (one per server); none when nothing waits. */
const queueFiles = (): string[] =>
  existsSync(stateDir())
    ? readdirSync(stateDir())
        .filter((n) => /^outbox-.*\.json$/.test(n))
        .map((n) => join(stateDir(), n))
    : []

/** Every entry the owner sees, by title. */
async function titled(title: string): Promise<Array<Record<string, any>>> {
  const all: Array<Record<string, any>> = []
  let cursor: string | undefined
  do {
    const res = await d.request('GET', '/knowledge', {query: {limit: 100, cursor}})
    all.push(...res.body.items)
    cursor = res.body.next_cursor ?? undefined
  } while (cursor)
  return all.filter((e) => e.title === title)
}

async function full(id: string): Promise<Record<string, any>> {
  return (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
}

async function restart(): Promise<void> {
  d = await startChildDaemon({dataDir: user.dataDir, port})
}

describe('a session whose daemon stops mid-way', () => {
  it('queues each write, and one sync after the restart sends each exactly once, in order', async () => {
    const shared = (await d.request('POST', '/knowledge', {body: {title: 'Before the outage', body: 'b', scope: 'global'}})).body
    const mine = (await d.request('POST', '/knowledge', {body: {title: 'Private before', body: 'b', scope: 'private', tags: ['daemon']}}))
      .body
    await d.stop()

    const add = await kb(user, ['add', 'Written offline', '--body', 'on a train'], {env: OFF})
    expect(add.code, add.stderr).toBe(0)
    // The id the entry will have, as online (docs/cli.md, "Offline writes").
    const offlineId = add.stdout.trim()
    expect(offlineId).toMatch(UUID_RE)
    expect(add.stderr).toMatch(
      /^kb: queued add "Written offline" for `kb sync` \(1 waiting\): kb daemon at http:\/\/127\.0\.0\.1:\d+ is not reachable \(connection refused\)\n/,
    )
    expect(add.stderr).toContain(`kb: the entry will have id ${offlineId} once \`kb sync\` sends it\n`)
    const json = await kb(user, ['add', 'Offline JSON', '--body', 'x', '--json'], {env: OFF})
    expect(json.code, json.stderr).toBe(0)
    expect(json.stderr).toBe('')
    expect(JSON.parse(json.stdout)).toMatchObject({
      queued: true,
      key: expect.stringMatching(UUID_RE),
      command: 'add',
      label: 'Offline JSON',
      base_url: d.url,
      waiting: 2,
      id: expect.stringMatching(UUID_RE),
    })
    for (const args of [
      ['comment', shared.id, 'said offline'],
      ['resolve', shared.id, '--note', 'fixed offline'],
      ['publish', mine.id, '--scope', 'global'],
      ['fork', shared.id, '--title', 'Forked offline'],
      ['edit', mine.id, '--add-tag', 'offline'],
    ]) {
      const r = await kb(user, args, {env: OFF})
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(0)
      expect(r.stderr, args[0]).toMatch(new RegExp(`^kb: queued ${args[0]} `))
    }

    // Failing instead of queueing: the flag, the environment, the setting.
    expect((await kb(user, ['add', 'Not queued', '--body', 'b', '--no-queue'], {env: OFF})).code).toBe(6)
    expect((await kb(user, ['comment', shared.id, 'not queued'], {env: {...OFF, KB_NO_QUEUE: '1'}})).code).toBe(6)
    expect((await kb(user, ['config', 'set', 'queue_writes', 'false'])).code).toBe(0)
    expect((await kb(user, ['resolve', shared.id], {env: OFF})).code).toBe(6)
    expect((await kb(user, ['config', 'unset', 'queue_writes'])).code).toBe(0)

    const status = JSON.parse((await kb(user, ['sync', '--status', '--json'], {env: OFF})).stdout)
    expect(status.items.map((i: {command: string}) => i.command)).toEqual(['add', 'add', 'comment', 'resolve', 'publish', 'fork', 'edit'])
    expect(new Set(status.items.map((i: {key: string}) => i.key)).size).toBe(7)
    expect(queueFiles()).toEqual([join(stateDir(), `outbox-http_127.0.0.1_${port}_api_v1.json`)])
    expect(statSync(queueFiles()[0]!).mode & 0o777).toBe(0o600)
    expect(statSync(stateDir()).mode & 0o777).toBe(0o700)

    // A sync while the daemon is still down sends nothing, loses nothing, and says so (exit 6).
    const early = await kb(user, ['sync'], {env: OFF})
    expect(early.code, early.stderr).toBe(6)
    expect(early.stderr).toMatch(/^kb: kb daemon at .* is not reachable/m)
    expect(JSON.parse((await kb(user, ['sync', '--status', '--json'], {env: OFF})).stdout).items).toHaveLength(7)

    await restart()
    const sync = await kb(user, ['sync', '--json'], {env: OFF})
    expect(sync.code, sync.stderr).toBe(0)
    const report = JSON.parse(sync.stdout)
    expect(report.items.map((i: {command: string; status: string}) => `${i.command} ${i.status}`)).toEqual([
      'add sent',
      'add sent',
      'comment sent',
      'resolve sent',
      'publish sent',
      'fork sent',
      'edit sent',
    ])
    expect(report.items.map((i: {key: string}) => i.key)).toEqual(status.items.map((i: {key: string}) => i.key))
    expect(report.remaining).toBe(0)
    expect(queueFiles()).toEqual([])

    // Counted on the server: each write once.
    const [written] = await titled('Written offline')
    expect(await titled('Written offline')).toHaveLength(1)
    expect(written!.id).toBe(offlineId)
    expect(report.items[0].id).toBe(written!.id)
    expect(await titled('Offline JSON')).toHaveLength(1)
    const after = await full(shared.id)
    expect(after.comments.filter((c: {body: string}) => c.body === 'said offline')).toHaveLength(1)
    expect(after.status).toBe('resolved')
    expect(after.resolution.note).toBe('fixed offline')
    expect(after.branches.map((b: {title: string}) => b.title)).toEqual(['Forked offline'])
    const priv = await full(mine.id)
    expect(priv.scope).toBe('global')
    expect(priv.tags).toEqual(['daemon', 'offline'])
    // publish (+1) and the edit (+1), each once.
    expect(priv.version).toBe(mine.version + 2)

    // Again: nothing to send, nothing done.
    const again = await kb(user, ['sync'], {env: OFF})
    expect(again.code).toBe(0)
    expect(again.stdout).toBe('Nothing waits to be sent.\n')
    expect(await titled('Written offline')).toHaveLength(1)
  }, 240_000)

  it('an answer lost on its way back (after the server acted) queues the write, and sync does not do it twice', async () => {
    const proxy = await startDropProxy(port)
    try {
      // A key of its own: owner.key goes only to a daemon that proves itself at the address reached, which a relay is not.
      const key = (await d.request<{key: string}>('POST', '/api-keys', {body: {name: 'through the proxy'}})).body.key
      const env = {...OFF, KB_BASE_URL: proxy.url, KB_API_KEY: key}
      proxy.dropNextAnswer('POST')
      const r = await kb(user, ['add', 'Answer lost', '--body', 'b', '--json'], {env})
      expect(proxy.dropped).toBe(1)
      expect(r.code, r.stderr).toBe(0)
      expect(JSON.parse(r.stdout)).toMatchObject({
        queued: true,
        reason: expect.stringMatching(/not reachable \((ECONNRESET|socket hang up)/),
      })
      // The daemon did create it: the client just never heard.
      const [created] = await titled('Answer lost')
      expect(await titled('Answer lost')).toHaveLength(1)
      const sync = await kb(user, ['sync'], {env})
      expect(sync.code, sync.stderr).toBe(0)
      expect(sync.stdout).toContain(
        `sent     add Answer lost → ${shortId(created!.id)} (an earlier attempt had arrived; it was not done twice)`,
      )
      expect(await titled('Answer lost')).toHaveLength(1)
    } finally {
      await proxy.close()
    }
  }, 120_000)
})

describe('the git hook and the background send', () => {
  it('the hook queues silently; the next command that reaches the server sends the queue behind its own work', async () => {
    const repo = gitRepo(user, 'hooked', {origin: 'https://github.com/acme/hooked.git'})
    expect((await kb(user, ['hook', 'install'], {cwd: repo})).code).toBe(0)
    const target = (await d.request('POST', '/knowledge', {body: {title: 'Fixed by a commit', body: 'b', scope: 'global'}})).body
    await d.stop()
    const c = spawnSync('git', ['commit', '-q', '--allow-empty', '-m', `Fix it\n\nResolves-KB: ${target.id}`], {
      cwd: repo,
      env: {...user.env, ...OFF},
      encoding: 'utf8',
    })
    expect(c.status, c.stderr).toBe(0)
    expect(c.stderr).toBe('')
    const status = JSON.parse((await kb(user, ['sync', '--status', '--json'], {env: OFF})).stdout)
    expect(status.items.map((i: {command: string}) => i.command)).toEqual(['hook resolve'])

    await restart()
    // Any command that reaches the server: the queue goes out before its process ends.
    const list = await kb(user, ['list', '--json'], {env: OFF})
    expect(list.code, list.stderr).toBe(0)
    expect(JSON.parse(list.stdout).items.length).toBeGreaterThan(0)
    expect(queueFiles()).toEqual([])
    const resolved = await full(target.id)
    expect(resolved.status).toBe('resolved')
    expect(resolved.resolution.note).toMatch(/^Resolved by commit [0-9a-f]+: Fix it$/)
  }, 120_000)
})

describe('the local daemon', () => {
  it('nothing queues while the daemon can autostart; a write queues when it cannot start', async () => {
    await d.stop()
    // Autostart on: the daemon comes back on its port and the write is sent, not queued.
    const sent = await kb(user, ['add', 'Autostarted', '--body', 'b'])
    expect(sent.code, sent.stderr).toBe(0)
    expect(sent.stdout.trim()).toMatch(UUID_RE)
    expect(queueFiles()).toEqual([])
    expect(await titled('Autostarted')).toHaveLength(1)
    // A port held by something that is not kb (it hangs up on every connection): autostart fails, so the write queues.
    const squat = createServer((s) => s.destroy())
    await new Promise<void>((resolve) => squat.listen(0, '127.0.0.1', resolve))
    try {
      const address = squat.address()
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1`
      const r = await kb(user, ['add', 'Cannot start', '--body', 'b', '--json'], {env: {KB_BASE_URL: url}})
      expect(r.code, r.stderr).toBe(0)
      expect(JSON.parse(r.stdout)).toMatchObject({
        queued: true,
        base_url: url,
        reason: expect.stringContaining('could not start the kb daemon'),
      })
      const waiting = JSON.parse((await kb(user, ['sync', '--status', '--json'])).stdout).items
      expect(waiting.map((i: {label: string; base_url: string}) => [i.label, i.base_url])).toEqual([['Cannot start', url]])
      const drop = await kb(user, ['sync', '--drop', waiting[0].key.slice(0, 8)])
      expect(drop.code, drop.stderr).toBe(0)
      expect(queueFiles()).toEqual([])
    } finally {
      squat.close()
    }
  }, 120_000)
})
