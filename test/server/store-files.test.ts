import {chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {acquireLock} from '../../server/daemon-files.js'
import {startInProcessDaemon, tempDir} from '../helpers/daemon.js'

describe('files of the data directory', () => {
  it('keeps every file it writes (database, WAL, owner.key, daemon.json, daemon.secret, lock) owner-only even in a world-readable directory', async () => {
    const dir = tempDir()
    chmodSync(dir, 0o755)
    const d = await startInProcessDaemon({dataDir: dir})
    try {
      await d.request('POST', '/knowledge', {body: {title: 'secret', body: 'private text'}})
      const files = readdirSync(dir)
      expect(files).toEqual(expect.arrayContaining(['kb.sqlite', 'owner.key', 'daemon.json', 'daemon.secret', 'daemon.lock']))
      for (const f of files) expect([f, statSync(join(dir, f)).mode & 0o777]).toEqual([f, 0o600])
    } finally {
      await d.stop()
    }
  })

  it('removes backup snapshots a dead daemon left behind, and nothing else', async () => {
    const dir = tempDir()
    const leftover = join(dir, '.kb-backup-0b6c1a2e-1111-4222-8333-444455556666.sqlite')
    const mine = join(dir, 'notes.sqlite')
    writeFileSync(leftover, 'x')
    writeFileSync(mine, 'y')
    const d = await startInProcessDaemon({dataDir: dir})
    await d.stop()
    expect(existsSync(leftover)).toBe(false)
    expect(existsSync(mine)).toBe(true)
  })

  it('creates the lock with its pid already in it and leaves nothing behind on release', () => {
    const lock = join(tempDir(), 'daemon.lock')
    const release = acquireLock(lock)
    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}\n`)
    expect(readdirSync(join(lock, '..'))).toEqual(['daemon.lock'])
    release()
    expect(() => statSync(lock)).toThrow()
    expect(readdirSync(join(lock, '..'))).toEqual([])
  })
})
