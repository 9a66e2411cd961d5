/**
 * The data directory before the daemon uses it (issue 24; docs/security.md, "Other local users"): an
 * existing store whose database is empty or gone refuses to start and says why — never a new store and a new
 * owner.key over the old one; a world-writable directory is refused; a missing owner.key is warned about at
 * every start.
 */
import {chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {startChildDaemon, startInProcessDaemon, tempDir} from '../helpers/daemon.js'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, {recursive: true, force: true})
})

/** A data directory with a store of its own (one entry), its daemon stopped; returns its owner key. */
async function store(): Promise<{dir: string; key: string}> {
  const dir = tempDir('kb-data-dir-')
  dirs.push(dir)
  const d = await startInProcessDaemon({dataDir: dir})
  expect((await d.request('POST', '/knowledge', {body: {title: 'kept', body: 'b'}})).status).toBe(201)
  await d.stop()
  return {dir, key: d.ownerKey}
}

const start = async (dir: string): Promise<unknown> => {
  const {startDaemon} = await import('../../server/daemon.js')
  const d = await startDaemon({dataDir: dir, host: '127.0.0.1', port: 0, version: 'test', logLevel: 'silent'})
  await d.stop()
  return d
}

describe('a store that lost its database', () => {
  it('a zero-length kb.sqlite: refused with the reason, owner.key untouched', async () => {
    const s = await store()
    for (const f of ['kb.sqlite', 'kb.sqlite-wal', 'kb.sqlite-shm']) rmSync(join(s.dir, f), {force: true})
    writeFileSync(join(s.dir, 'kb.sqlite'), '')
    await expect(start(s.dir)).rejects.toThrow(/kb\.sqlite is empty \(0 bytes\).*kb restore/)
    expect(readFileSync(join(s.dir, 'owner.key'), 'utf8').trim()).toBe(s.key)
    expect(statSync(join(s.dir, 'kb.sqlite')).size).toBe(0)
    // The lock was given back: a fixed directory starts.
    rmSync(join(s.dir, 'kb.sqlite'))
    rmSync(join(s.dir, 'owner.key'))
    await start(s.dir)
  })

  it('owner.key without kb.sqlite: refused, no new owner.key; an empty owner.key still asks for one', async () => {
    const s = await store()
    for (const f of ['kb.sqlite', 'kb.sqlite-wal', 'kb.sqlite-shm']) rmSync(join(s.dir, f), {force: true})
    await expect(start(s.dir)).rejects.toThrow(/owner\.key is here but the database .*kb\.sqlite is not/)
    expect(readFileSync(join(s.dir, 'owner.key'), 'utf8').trim()).toBe(s.key)
    expect(existsSync(join(s.dir, 'kb.sqlite'))).toBe(false)
    writeFileSync(join(s.dir, 'owner.key'), '')
    const d = await startInProcessDaemon({dataDir: s.dir})
    expect(d.ownerKey).toMatch(/^kb_/)
    await d.stop()
  })

  it('kb daemon run says why and exits 1', async () => {
    const s = await store()
    rmSync(join(s.dir, 'kb.sqlite'))
    writeFileSync(join(s.dir, 'kb.sqlite'), '')
    await expect(startChildDaemon({dataDir: s.dir})).rejects.toThrow(/exited with 1[\s\S]*is empty \(0 bytes\)/)
  })

  it('a missing owner.key is a warning at every start', async () => {
    const s = await store()
    rmSync(join(s.dir, 'owner.key'))
    const d = await startChildDaemon({dataDir: s.dir})
    await d.stop()
    const line = d
      .stderr()
      .split('\n')
      .find((l) => l.includes('owner.key is missing'))
    expect(line, d.stderr()).toBeDefined()
    expect(JSON.parse(line!).level).toBe(40)
  })
})

describe('a data directory others may write to', () => {
  it('is refused, and used once it is yours alone', async () => {
    const dir = join(tempDir('kb-data-dir-'), 'data')
    dirs.push(dir)
    mkdirSync(dir)
    chmodSync(dir, 0o777)
    await expect(start(dir)).rejects.toThrow(/writable by every user \(mode 0777\).*chmod 700/)
    expect(existsSync(join(dir, 'owner.key'))).toBe(false)
    chmodSync(dir, 0o700)
    await start(dir)
    expect(existsSync(join(dir, 'owner.key'))).toBe(true)
  })
})

describe('a full disk when the lock is taken', () => {
  it('fails with the reason and leaves no temp file behind', async () => {
    if (!existsSync('/dev/full')) return
    const dir = join(tempDir('kb-data-dir-'), 'data')
    dirs.push(dir)
    mkdirSync(dir, {mode: 0o700})
    // The lock is written aside first (daemon.lock.<pid>.tmp): here that name leads to /dev/full, whose every write is ENOSPC.
    const aside = join(dir, `daemon.lock.${process.pid}.tmp`)
    symlinkSync('/dev/full', aside)
    await expect(start(dir)).rejects.toThrow(/ENOSPC|no space/i)
    expect(existsSync(aside)).toBe(false)
    expect(existsSync(join(dir, 'daemon.lock'))).toBe(false)
  })
})
