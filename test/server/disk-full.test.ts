/**
 * A full disk is a 503 with its reason, not a 500 (issue 24; docs/api.md, "Errors"): the errors a full disk
 * really raises — better-sqlite3's SQLITE_FULL (a database held to its page limit) and the file system's
 * ENOSPC (a write to /dev/full) — become `unavailable` with `Retry-After`, which a CLI queues. And `/health`
 * says so (docs/api.md, "Service"): a daemon whose data directory is a 4 MB tmpfs of its own (a mount
 * namespace, `unshare`), filled for real, reports `disk_full` before a write meets it.
 */
import {spawnSync} from 'node:child_process'
import {closeSync, openSync, readFileSync, rmSync, writeSync, existsSync, unlinkSync} from 'node:fs'
import {join} from 'node:path'
import Database from 'better-sqlite3'
import {afterAll, describe, expect, it} from 'vitest'
import {toKbError} from '../../server/http/problem.js'
import {KB_BIN, startChildDaemon, tempDir, type ChildDaemon} from '../helpers/daemon.js'
import {requireSystem} from '../helpers/system.js'

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

/** Writes zeros to `path` until the file system is full. */
function fill(path: string): void {
  const fd = openSync(path, 'w')
  const chunk = Buffer.alloc(64 * 1024)
  try {
    for (;;) writeSync(fd, chunk)
  } catch (e) {
    if ((e as {code?: string}).code !== 'ENOSPC') throw e
  } finally {
    closeSync(fd)
  }
  // What a 64 KiB write could not take, byte by byte.
  const again = openSync(path, 'a')
  try {
    for (;;) writeSync(again, Buffer.alloc(1024))
  } catch (e) {
    if ((e as {code?: string}).code !== 'ENOSPC') throw e
  } finally {
    closeSync(again)
  }
}

const unshare = requireSystem('unshare')

unshare.describe('/health on a full disk', () => {
  let d: ChildDaemon | undefined
  afterAll(async () => {
    await d?.stop()
  })

  it('says disk_full before a write meets it, writes are 503, and ok again once there is room', {timeout: 120_000}, async () => {
    const mountPoint = tempDir('kb-health-full-')
    const dataDir = join(mountPoint, 'data')
    // A mount namespace of the daemon's own (a user namespace too, so no privilege is needed): its data directory
    // is on a 4 MB tmpfs that nothing else on the machine shares.
    const script = 'mount -t tmpfs -o size=4m,mode=0700 kb-test "$0" && exec "$@"'
    d = await startChildDaemon({dataDir, wrap: ['unshare', '--user', '--map-root-user', '--mount', 'sh', '-c', script, mountPoint]})
    // The daemon's files, seen through its own mount namespace.
    const inside = (name: string): string => `/proc/${d!.child.pid}/root${dataDir}/${name}`
    const key = readFileSync(inside('owner.key'), 'utf8').trim()
    const health = async (headers: Record<string, string> = {}): Promise<{status: number; body: any}> => {
      const res = await fetch(`${d!.url}/health`, {headers})
      return {status: res.status, body: await res.json()}
    }
    const create = (title: string): Promise<Response> =>
      fetch(`${d!.url}/knowledge`, {
        method: 'POST',
        headers: {authorization: `Bearer ${key}`, 'content-type': 'application/json'},
        body: JSON.stringify({title, body: 'x'.repeat(50_000), scope: 'private'}),
      })

    expect((await create('before')).status).toBe(201)
    const roomy = await health()
    expect(roomy.status).toBe(200)
    expect(roomy.body).toMatchObject({status: 'ok', store: {kind: 'sqlite', answers: true, writable: true}})

    fill(inside('ballast'))
    // Said before any write meets the full disk.
    const full = await health()
    expect(full.status).toBe(200)
    expect(full.body).toMatchObject({status: 'disk_full', store: {kind: 'sqlite', answers: true, writable: false}})
    expect(full.body.data_dir).toBe(dataDir)
    // And `kb daemon status` says so.
    const status = spawnSync(process.execPath, [KB_BIN, 'daemon', 'status', '--json'], {
      env: {...process.env, KB_BASE_URL: d.url, KB_DATA_DIR: tempDir('kb-health-full-cli-')},
      encoding: 'utf8',
    })
    expect(status.status, status.stderr).toBe(0)
    expect(JSON.parse(status.stdout)).toMatchObject({running: true, disk_full: true, data_dir: dataDir})
    // A web page learns it too, and still neither the process nor the data directory.
    const fromPage = await health({origin: 'https://example.com'})
    expect(fromPage.body).toMatchObject({status: 'disk_full', store: {writable: false}})
    expect(fromPage.body).not.toHaveProperty('pid')
    expect(fromPage.body).not.toHaveProperty('data_dir')

    const refused = await create('on a full disk')
    expect(refused.status, await refused.clone().text()).toBe(503)
    expect(((await refused.json()) as {code: string}).code).toBe('unavailable')
    expect(refused.headers.get('retry-after')).toBe('60')
    expect((await health()).body).toMatchObject({status: 'disk_full', store: {writable: false}})
    // Reads are still served.
    const listed = await fetch(`${d.url}/knowledge?limit=5`, {headers: {authorization: `Bearer ${key}`}})
    expect(listed.status).toBe(200)

    unlinkSync(inside('ballast'))
    // The failed write is remembered until a write succeeds (or a minute passes): this one does.
    expect((await create('after')).status).toBe(201)
    expect((await health()).body).toMatchObject({status: 'ok', store: {writable: true}})
  })
})
