/**
 * A full disk is a 503 with its reason, not a 500 (issue 24; docs/api.md, "Errors"): the errors a full disk
 * really raises — better-sqlite3's SQLITE_FULL (a database held to its page limit) and the file system's
 * ENOSPC (a write to /dev/full) — become `unavailable` with `Retry-After`, which a CLI queues.
 */
import {closeSync, openSync, rmSync, writeSync, existsSync} from 'node:fs'
import {join} from 'node:path'
import Database from 'better-sqlite3'
import {afterAll, describe, expect, it} from 'vitest'
import {toKbError} from '../../server/http/problem.js'
import {tempDir} from '../helpers/daemon.js'

const dir = tempDir('kb-disk-full-')
afterAll(() => rmSync(dir, {recursive: true, force: true}))

function caught(f: () => void): unknown {
  try {
    f()
  } catch (e) {
    return e
  }
  throw new Error('no error')
}

describe('a full disk', () => {
  it('SQLITE_FULL is 503 unavailable with Retry-After and a reason', () => {
    const db = new Database(join(dir, 'full.sqlite'))
    db.exec('CREATE TABLE t (x TEXT)')
    db.pragma('max_page_count = 3')
    const e = caught(() => {
      for (let i = 0; i < 100; i++) db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(4000))
    })
    db.close()
    expect((e as {code?: string}).code).toBe('SQLITE_FULL')
    const kb = toKbError(e)
    expect(kb.code).toBe('unavailable')
    expect(kb.message).toMatch(/disk of the store is full/)
    expect(kb.headers).toEqual({'Retry-After': '60'})
  })

  it('ENOSPC too', () => {
    if (!existsSync('/dev/full')) return
    const fd = openSync('/dev/full', 'w')
    const e = caught(() => writeSync(fd, 'x'))
    closeSync(fd)
    expect((e as {code?: string}).code).toBe('ENOSPC')
    expect(toKbError(e).code).toBe('unavailable')
  })
})
