/**
 * @module Crash safety of the store: a child daemon is SIGKILLed in the middle of a burst of concurrent
 * creates, restarted on the same data directory, and every create that was answered 201 must be there,
 * intact — and the store must open cleanly and pass SQLite's and FTS5's integrity checks. Several rounds
 * on one directory, so recovery is exercised on top of recovered state.
 */
import {existsSync, readFileSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import Database from 'better-sqlite3'
import {afterAll, describe, expect, it} from 'vitest'
import {startChildDaemon, tempDir, type ChildDaemon} from '../helpers/daemon.js'

const ROUNDS = 3
const PER_ROUND = 200
const CONCURRENCY = 16

interface Sent {
  title: string
  body: string
  tags: string[]
  /** A word only this entry contains, to find it by search. */
  marker: string
}

interface Created extends Sent {
  id: string
  /** The entry as the 201 answered it. */
  answered: Record<string, unknown>
}

function payload(round: number, i: number): Sent {
  const marker = `zq${round}x${i}w`
  return {
    marker,
    title: `Round ${round} entry ${i}: EADDRINUSE on port ${7000 + i} ${marker}`,
    // Unicode, Markdown and a size that varies, so a torn write would show in the text.
    body: `# Crash ${i}\n\nThe daemon crashed — «${'données '.repeat(i % 17)}» 😀 ${marker}.\n\n\`\`\`sh\nkb daemon run --port ${i}\n\`\`\`\n${'x'.repeat((i * 97) % 3000)}`,
    tags: ['crash', `round-${round}`, `n${i % 7}`],
  }
}

/** Fires the round's creates with bounded concurrency and SIGKILLs the daemon after `killAfter` answers. */
async function burst(
  d: ChildDaemon,
  round: number,
  killAfter: number,
): Promise<{created: Created[]; unknown: Sent[]; refusedAfterKill: number}> {
  const queue = Array.from({length: PER_ROUND}, (_, i) => payload(round, i))
  const created: Created[] = []
  const unknown: Sent[] = []
  let killed = false
  let refusedAfterKill = 0
  const worker = async (): Promise<void> => {
    for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
      if (killed) {
        refusedAfterKill++
        continue
      }
      try {
        const res = await d.request('POST', '/knowledge', {body: {title: p.title, body: p.body, tags: p.tags}})
        // An answer other than 201 (say a 503 while going down) promised nothing: treat it as unknown.
        if (res.status !== 201) unknown.push(p)
        else {
          created.push({...p, id: res.body.id, answered: res.body})
          if (created.length === killAfter && !killed) {
            killed = true
            d.child.kill('SIGKILL')
          }
        }
      } catch {
        unknown.push(p) // the connection died with the daemon: the create may or may not have committed
      }
    }
  }
  await Promise.all(Array.from({length: CONCURRENCY}, worker))
  return {created, unknown, refusedAfterKill}
}

/** Every entry the daemon lists, following cursors. */
async function listAll(d: ChildDaemon): Promise<Array<Record<string, unknown>>> {
  const all: Array<Record<string, unknown>> = []
  let cursor: string | undefined
  for (;;) {
    const res = await d.request('GET', '/knowledge', {query: {limit: 100, detail: 'standard', ...(cursor ? {cursor} : {})}})
    expect(res.status).toBe(200)
    all.push(...res.body.items)
    if (!res.body.next_cursor) return all
    cursor = res.body.next_cursor
  }
}

function expectIntact(entry: Record<string, unknown>, sent: Sent): void {
  expect(entry.title).toBe(sent.title)
  expect(entry.body).toBe(sent.body)
  expect(entry.tags).toEqual(sent.tags)
  expect(entry.version).toBe(1)
  expect(entry.status).toBe('open')
  expect(entry.scope).toBe('private')
}

describe('crash safety: SIGKILL in the middle of a burst of creates', () => {
  const dataDir = tempDir('kb-crash-')
  let d: ChildDaemon | undefined
  afterAll(async () => {
    await d?.stop()
    rmSync(dataDir, {recursive: true, force: true})
  })

  it(`keeps every acknowledged create across ${ROUNDS} kill-and-restart rounds, and the store stays sound`, async () => {
    const acked = new Map<string, Created>()
    const maybe = new Map<string, Sent>() // by title
    d = await startChildDaemon({dataDir})
    const lockPath = join(dataDir, 'daemon.lock')
    let kills = 0

    for (let round = 0; round < ROUNDS; round++) {
      // Kill at a different point each round: early, middle, late.
      const killAfter = [40, 100, 160][round]!
      const {created, unknown, refusedAfterKill} = await burst(d, round, killAfter)
      const code = await d.exited
      expect(d.child.signalCode ?? code).toBe('SIGKILL')
      kills++
      // The kill really landed mid-burst: answers had come in, and requests were still outstanding.
      expect(created.length).toBeGreaterThanOrEqual(killAfter)
      expect(unknown.length + refusedAfterKill).toBeGreaterThan(0)
      for (const c of created) {
        expectIntact(c.answered, c)
        acked.set(c.id, c)
      }
      for (const u of unknown) maybe.set(u.title, u)
      // A SIGKILLed daemon leaves its lock (with its dead pid) and daemon.json behind; the restart takes them over.
      expect(existsSync(lockPath)).toBe(true)
      expect(Number(readFileSync(lockPath, 'utf8'))).toBe(d.child.pid)

      d = await startChildDaemon({dataDir})
      expect(Number(readFileSync(lockPath, 'utf8'))).toBe(d.child.pid)

      // This round's acknowledged creates, one by one at full detail…
      for (const c of created) {
        const res = await d.request('GET', `/knowledge/${c.id}`, {query: {detail: 'full'}})
        expect(res.status, c.title).toBe(200)
        expectIntact(res.body, c)
        expect(res.body.comments).toEqual([])
        expect(res.headers.get('etag')).toBe('"1"')
        expect(res.body.created_at).toBe(c.answered.created_at)
      }
      // …and every acknowledged create of every round so far in the listing, intact. Nothing else is
      // there but in-flight creates that happened to commit, and those are whole too.
      const listed = await listAll(d)
      const byId = new Map(listed.map((e) => [e.id as string, e]))
      expect(byId.size).toBe(listed.length)
      for (const c of acked.values()) {
        expect(byId.has(c.id), c.title).toBe(true)
        expectIntact(byId.get(c.id)!, c)
      }
      for (const e of listed) {
        if (acked.has(e.id as string)) continue
        const sent = maybe.get(e.title as string)
        expect(sent, `unexpected entry ${String(e.title)}`).toBeDefined()
        expectIntact(e, sent!)
      }
      expect(listed.length).toBeLessThanOrEqual(acked.size + maybe.size)
      // The full-text index agrees with the table: acknowledged entries of this round are found by their marker.
      for (const c of created.filter((_, i) => i % 25 === 0)) {
        const found = await d.request('GET', '/search', {query: {q: c.marker, limit: 5}})
        expect(found.status).toBe(200)
        expect(found.body.items.map((i: {id: string}) => i.id)).toContain(c.id)
      }
    }
    expect(kills).toBe(ROUNDS)

    // The recovered store takes writes, and a clean stop leaves no lock behind.
    const after = await d.request('POST', '/knowledge', {body: {title: 'after the crashes', body: 'still writable'}})
    expect(after.status).toBe(201)
    await d.stop()
    expect(await d.exited).toBe(0)
    expect(existsSync(lockPath)).toBe(false)

    // SQLite's own checks, with no daemon attached.
    const db = new Database(join(dataDir, 'kb.sqlite'))
    try {
      expect(db.pragma('integrity_check', {simple: true})).toBe('ok')
      expect(db.pragma('foreign_key_check')).toEqual([])
      expect(() => db.prepare("INSERT INTO entries_fts(entries_fts) VALUES('integrity-check')").run()).not.toThrow()
      const rows = db.prepare('SELECT count(*) AS n FROM entries').get() as {n: number}
      expect(rows.n).toBeGreaterThanOrEqual(acked.size + 1)
      expect(rows.n).toBeLessThanOrEqual(acked.size + maybe.size + 1)
    } finally {
      db.close()
    }
  }, 120_000)
})
