/**
 * The outbox when things collide, with a real daemon and the built `kb` (docs/cli.md, "Offline writes"): a queued
 * edit whose entry changed meanwhile is merged into it when other fields changed, and becomes a fork with the edit
 * applied and a comment pointing at it when the same field changed — whether it was made without reading the entry
 * or met a 412 on its If-Match — while one that met no change (or only a comment) is applied; a
 * corrupted outbox file is reported and set aside, never lost; two `kb sync` at once send each item once.
 */
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startChildDaemon, type ChildDaemon} from '../helpers/daemon.js'
import {startDropProxy} from '../helpers/drop-proxy.js'
import {cleanup, freePort, kb, makeUser, type KbEnv} from './helpers.js'

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
const outboxFile = (): string => join(stateDir(), `outbox-http_127.0.0.1_${port}_api_v1.json`)

async function full(id: string): Promise<Record<string, any>> {
  return (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
}

async function entry(title: string, tags: string[] = []): Promise<Record<string, any>> {
  return (await d.request('POST', '/knowledge', {body: {title, body: 'as first written', scope: 'global', tags}})).body
}

async function syncJson(env: Record<string, string> = {}): Promise<any> {
  const r = await kb(user, ['sync', '--json'], {env: {...OFF, ...env}})
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}

describe('a queued edit whose entry changed meanwhile', () => {
  it('made without reading the entry: merged when the fields differ (tags as sets), a fork with a comment pointing at it when the same field changed', async () => {
    const e = await entry('Port clash', ['daemon'])
    const clash = await entry('Title fight')
    const untouched = await entry('Nobody touched this')
    await d.stop()
    expect((await kb(user, ['edit', e.id, '--title', 'Port clash on CI', '--add-tag', 'ci'], {env: OFF})).code).toBe(0)
    expect((await kb(user, ['edit', clash.id, '--title', 'Title fight: mine', '--add-tag', 'mine'], {env: OFF})).code).toBe(0)
    expect((await kb(user, ['edit', untouched.id, '--body', 'edited offline'], {env: OFF})).code).toBe(0)
    d = await startChildDaemon({dataDir: user.dataDir, port})
    // Someone changes the entries before the edits are sent: other fields of the first, the same field of the second.
    expect((await d.request('PATCH', `/knowledge/${e.id}`, {body: {body: 'changed meanwhile', tags: ['daemon', 'linux']}})).status).toBe(
      200,
    )
    expect((await d.request('PATCH', `/knowledge/${clash.id}`, {body: {title: 'Title fight: theirs'}})).status).toBe(200)
    // A comment is no change to merge with.
    expect((await d.request('POST', `/knowledge/${untouched.id}/comments`, {body: {body: 'seen'}})).status).toBe(201)

    const report = await syncJson()
    expect(report.items.map((i: {status: string}) => i.status)).toEqual(['sent', 'forked', 'sent'])
    expect(await full(e.id)).toMatchObject({title: 'Port clash on CI', body: 'changed meanwhile', tags: ['daemon', 'linux', 'ci']})
    expect((await full(e.id)).branches).toEqual([])

    const forkId = report.items[1].fork_id as string
    const original = await full(clash.id)
    expect(original).toMatchObject({title: 'Title fight: theirs', tags: []})
    expect(original.comments.map((c: {body: string}) => c.body)).toEqual([expect.stringContaining(forkId)])
    expect(original.branches.map((b: {id: string}) => b.id)).toEqual([forkId])
    expect(await full(forkId)).toMatchObject({forked_from: clash.id, title: 'Title fight: mine', tags: ['mine'], scope: 'private'})
    // The edit that met only a comment is simply applied.
    expect((await full(untouched.id)).body).toBe('edited offline')

    // Nothing more on a second sync.
    expect((await syncJson()).items).toEqual([])
    expect((await full(clash.id)).branches).toHaveLength(1)
    expect((await full(clash.id)).comments).toHaveLength(1)
  }, 180_000)

  it('made after reading the entry, its PATCH lost: meets a 412 on its If-Match and is merged, or forked on a true conflict', async () => {
    const e = await entry('Flaky on Mondays')
    const clash = await entry('Flaky on Fridays')
    const proxy = await startDropProxy(port)
    try {
      // A key of its own: owner.key goes only to a daemon that proves itself at the address reached, which a relay is not.
      const key = (await d.request<{key: string}>('POST', '/api-keys', {body: {name: 'through the proxy'}})).body.key
      const env = {KB_BASE_URL: proxy.url, KB_API_KEY: key}
      // The GET passes, the PATCH never reaches the daemon: the edit is queued with the version it read.
      for (const [x, title] of [
        [e, 'Flaky on Mondays (cron)'],
        [clash, 'Flaky on Fridays (mine)'],
      ] as const) {
        proxy.cutNextRequest('PATCH')
        const edit = await kb(user, ['edit', x.id, '--title', title, '--json'], {env: {...OFF, ...env}})
        expect(edit.code, edit.stderr).toBe(0)
        expect(JSON.parse(edit.stdout)).toMatchObject({queued: true, command: 'edit'})
      }
      expect(proxy.cut).toBe(2)
      const ifMatch = {'if-match': `"${e.version}"`}
      expect((await d.request('PATCH', `/knowledge/${e.id}`, {body: {tags: ['cron']}, headers: ifMatch})).status).toBe(200)
      expect(
        (await d.request('PATCH', `/knowledge/${clash.id}`, {body: {title: 'Flaky on Fridays (theirs)'}, headers: ifMatch})).status,
      ).toBe(200)
      const report = await syncJson(env)
      expect(report.items).toMatchObject([
        {command: 'edit', status: 'sent'},
        {command: 'edit', status: 'forked', fork_id: expect.any(String)},
      ])
      expect(await full(e.id)).toMatchObject({title: 'Flaky on Mondays (cron)', tags: ['cron'], version: 3})
      const original = await full(clash.id)
      expect(original).toMatchObject({title: 'Flaky on Fridays (theirs)'})
      expect(original.comments).toHaveLength(1)
      expect(await full(report.items[1].fork_id)).toMatchObject({title: 'Flaky on Fridays (mine)', forked_from: clash.id})
    } finally {
      await proxy.close()
    }
  }, 120_000)
})

describe('a corrupted outbox file', () => {
  it('is reported, moved aside with its contents, and a fresh queue starts beside it', async () => {
    mkdirSync(stateDir(), {recursive: true})
    const garbage = '{"version":1,"items":[{"key":"half-written'
    writeFileSync(outboxFile(), garbage)
    const status = await kb(user, ['sync', '--status', '--json'])
    expect(status.code, status.stderr).toBe(0)
    const aside = JSON.parse(status.stdout).set_aside as string[]
    expect(aside).toHaveLength(1)
    expect(status.stderr).toContain(`kb: warning: the outbox could not be read (`)
    expect(status.stderr).toContain(`it was moved to ${aside[0]}, nothing in it was sent`)
    expect(readFileSync(aside[0]!, 'utf8')).toBe(garbage)
    expect(existsSync(outboxFile())).toBe(false)

    await d.stop()
    try {
      expect((await kb(user, ['add', 'After the corruption', '--body', 'b'], {env: OFF})).code).toBe(0)
      const items = JSON.parse((await kb(user, ['sync', '--status', '--json'])).stdout)
      expect(items.items.map((i: {label: string}) => i.label)).toEqual(['After the corruption'])
      expect(items.set_aside).toEqual(aside)
      expect(readFileSync(aside[0]!, 'utf8')).toBe(garbage)
    } finally {
      d = await startChildDaemon({dataDir: user.dataDir, port})
    }
    expect((await syncJson()).items).toMatchObject([{label: 'After the corruption', status: 'sent'}])
  }, 120_000)
})

describe('two kb sync at once', () => {
  it('send each item once: one sends, the other waits for it and finds nothing left', async () => {
    await d.stop()
    const titles = Array.from({length: 5}, (_, i) => `Concurrent ${i}`)
    for (const t of titles) expect((await kb(user, ['add', t, '--body', 'b'], {env: OFF})).code).toBe(0)
    d = await startChildDaemon({dataDir: user.dataDir, port})
    const [a, b] = await Promise.all([syncJson(), syncJson()])
    const sentBy = (r: any): string[] => r.items.filter((i: {status: string}) => i.status === 'sent').map((i: {key: string}) => i.key)
    const all = [...sentBy(a), ...sentBy(b)]
    expect(all).toHaveLength(5)
    expect(new Set(all).size).toBe(5)
    expect(a.items.some((i: {replayed: boolean}) => i.replayed) || b.items.some((i: {replayed: boolean}) => i.replayed)).toBe(false)
    const listed = (await d.request('GET', '/knowledge', {query: {limit: 100}})).body.items as Array<{title: string}>
    for (const t of titles)
      expect(
        listed.filter((e) => e.title === t),
        t,
      ).toHaveLength(1)
  }, 180_000)
})
