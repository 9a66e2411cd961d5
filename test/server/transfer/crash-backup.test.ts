/**
 * The two promises that need a real process: a daemon SIGKILLed in the middle of a large import restarts
 * with the store exactly as before it (the import is one transaction), and a backup taken while writes
 * go on opens cleanly and holds every write acknowledged before it began.
 */
import {statSync, writeFileSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import Database from 'better-sqlite3'
import {afterAll, describe, expect, it} from 'vitest'
import {newPrincipal, startChildDaemon, startInProcessDaemon, tempDir, type ChildDaemon} from '../../helpers/daemon.js'
import {content, exportText, importText, populate} from './support.js'

const dirs: string[] = []
let child: ChildDaemon | undefined
afterAll(async () => {
  await child?.stop()
  for (const d of dirs) rmSync(d, {recursive: true, force: true})
})

/** An export of `n` new entries, about 2 KB each, with a comment each. */
function largeExport(n: number): string {
  const out = [JSON.stringify({kind: 'kb-export', version: 1})]
  for (let i = 0; i < n; i++) {
    const hex = i.toString(16).padStart(12, '0')
    out.push(
      JSON.stringify({
        kind: 'entry',
        id: `0193a7e2-5c1e-7b3a-9f1e-${hex}`,
        title: `Imported ${i}: socket hang up in worker ${i % 97}`,
        body: `Body ${i} ${'lorem ipsum dolor sit amet '.repeat(70)}`,
        scope: 'global',
        tags: ['imported', `g${i % 13}`],
        comments: [{id: `0193a7e2-5c1e-7b3a-8f1e-${hex}`, body: `comment on ${i}`}],
      }),
    )
  }
  return `${out.join('\n')}\n`
}

describe('crash safety of an import', () => {
  it('SIGKILL in the middle of a large import leaves the store exactly as before', async () => {
    const dataDir = tempDir('kb-transfer-crash-')
    dirs.push(dataDir)
    child = await startChildDaemon({dataDir})
    await populate(child)
    const before = content(await exportText(child))
    const wal = join(dataDir, 'kb.sqlite-wal')
    const walBefore = statSync(wal).size

    // The import's transaction spills its pages into the WAL long before it commits: once the WAL has
    // grown by megabytes and no answer has come, the daemon is inside the transaction. Kill it there.
    let answered = false
    const pending = importText(child, largeExport(6_000)).then(
      (r) => {
        answered = true
        return r
      },
      () => null,
    )
    const started = Date.now()
    while (!answered && Date.now() - started < 60_000) {
      if (statSync(wal).size > walBefore + 4 * 1024 * 1024) break
      await new Promise((r) => setTimeout(r, 20))
    }
    expect(answered).toBe(false)
    child.child.kill('SIGKILL')
    await child.exited
    await pending
    expect(answered).toBe(false)

    child = await startChildDaemon({dataDir})
    expect(content(await exportText(child))).toEqual(before)
    expect((await child.request('GET', '/search', {query: {q: 'socket hang up'}})).body.total).toBe(0)
    await child.stop()
    child = undefined
    const db = new Database(join(dataDir, 'kb.sqlite'), {readonly: true})
    try {
      expect(db.pragma('integrity_check', {simple: true})).toBe('ok')
      expect(db.prepare("SELECT count(*) FROM entries WHERE title LIKE 'Imported %'").pluck().get()).toBe(0)
    } finally {
      db.close()
    }
  }, 120_000)
})

describe('GET /backup', () => {
  it('a backup taken during writes opens cleanly and holds every write acknowledged before it began', async () => {
    const d = await startInProcessDaemon()
    const dir = tempDir('kb-backup-')
    dirs.push(dir)
    try {
      const acknowledged: string[] = []
      let stop = false
      const writer = async (w: number): Promise<void> => {
        for (let i = 0; !stop; i++) {
          const r = await d.request('POST', '/knowledge', {
            body: {title: `Write ${w}.${i}`, body: `during the backup ${'x'.repeat(2000)}`, scope: 'global'},
          })
          if (r.status === 201) acknowledged.push(r.body.id)
        }
      }
      const writers = [writer(1), writer(2), writer(3)]
      while (acknowledged.length < 300) await new Promise((r) => setTimeout(r, 10))
      const before = [...acknowledged]
      const res = await fetch(`${d.url}/backup`, {headers: {authorization: `Bearer ${d.ownerKey}`}})
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/vnd.sqlite3')
      const file = join(dir, 'copy.sqlite')
      writeFileSync(file, Buffer.from(await res.arrayBuffer()))
      const duringOrAfter = acknowledged.length
      stop = true
      await Promise.all(writers)
      expect(duringOrAfter).toBeGreaterThan(before.length) // writes really went on meanwhile

      const db = new Database(file, {readonly: true})
      try {
        expect(db.pragma('integrity_check', {simple: true})).toBe('ok')
        const ids = new Set(db.prepare('SELECT id FROM entries').pluck().all() as string[])
        expect(before.filter((id) => !ids.has(id))).toEqual([])
        expect(db.prepare("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH 'backup'").pluck().get()).toBe(ids.size)
      } finally {
        db.close()
      }
      // The snapshot file is removed from the data directory once sent (its stream closes just after the last byte).
      const {readdirSync} = await import('node:fs')
      const leftovers = (): string[] => readdirSync(d.dataDir).filter((f) => f.includes('backup'))
      for (let i = 0; i < 100 && leftovers().length > 0; i++) await new Promise((r) => setTimeout(r, 20))
      expect(leftovers()).toEqual([])

      const member = await newPrincipal(d, 'member1')
      const refused = await d.request('GET', '/backup', {key: member})
      expect(refused.status).toBe(403)
      expect(refused.body.code).toBe('forbidden')
    } finally {
      await d.stop()
    }
  }, 60_000)
})
