/**
 * owner.key after a restore (docs/operations.md, "Restore a backup"): a data directory whose owner.key is
 * not a live owner key of the store the daemon starts on gets a new one at start, the old file kept as
 * owner.key.stale; an empty owner.key asks for one the same way; a missing one stays missing.
 */
import {copyFileSync, existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, tempDir} from '../helpers/daemon.js'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, {recursive: true, force: true})
})

/** A data directory with a store of its own (one entry), its daemon stopped; returns its owner key. */
async function store(title: string): Promise<{dir: string; key: string}> {
  const dir = tempDir('kb-owner-key-')
  dirs.push(dir)
  const d = await startInProcessDaemon({dataDir: dir})
  expect((await d.request('POST', '/knowledge', {body: {title, body: 'b'}})).status).toBe(201)
  await d.stop()
  return {dir, key: d.ownerKey}
}

const key = (dir: string): string => readFileSync(join(dir, 'owner.key'), 'utf8').trim()

describe('owner.key when the store changed under it', () => {
  it('a store restored from another data directory: a new owner key, the old one kept as owner.key.stale', async () => {
    const a = await store('from A')
    const b = await store('from B')
    copyFileSync(join(a.dir, 'kb.sqlite'), join(b.dir, 'kb.sqlite'))
    const d = await startInProcessDaemon({dataDir: b.dir})
    try {
      const fresh = key(b.dir)
      expect(fresh).not.toBe(b.key)
      expect(readFileSync(join(b.dir, 'owner.key.stale'), 'utf8').trim()).toBe(b.key)
      const list = await d.request('GET', '/knowledge', {key: fresh})
      expect(list.status).toBe(200)
      expect(list.body.items.map((e: {title: string}) => e.title)).toEqual(['from A'])
      expect((await d.request('GET', '/knowledge', {key: b.key})).status).toBe(401)
      // A's key is a key of this store too (the backup's owner key): both work.
      expect((await d.request('GET', '/knowledge', {key: a.key})).status).toBe(200)
    } finally {
      await d.stop()
    }
    // A key that works is left alone.
    const again = await startInProcessDaemon({dataDir: b.dir})
    await again.stop()
    expect(key(b.dir)).toBe(again.ownerKey)
    expect(again.ownerKey).not.toBe(b.key)
  })

  it('an empty owner.key asks for a new owner key; a missing one stays missing', async () => {
    const s = await store('scratch')
    writeFileSync(join(s.dir, 'owner.key'), '')
    const d = await startInProcessDaemon({dataDir: s.dir})
    expect(d.ownerKey).toMatch(/^kb_/)
    expect((await d.request('GET', '/knowledge')).status).toBe(200)
    await d.stop()
    rmSync(join(s.dir, 'owner.key'))
    const {startDaemon} = await import('../../server/daemon.js')
    const none = await startDaemon({dataDir: s.dir, host: '127.0.0.1', port: 0, version: 'test', logLevel: 'silent'})
    await none.stop()
    expect(existsSync(join(s.dir, 'owner.key'))).toBe(false)
  })
})
