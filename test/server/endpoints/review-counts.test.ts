/**
 * @module The review queue's counts, kept by the writes (server/store/review-tally.ts), against a recount: for
 * every caller and project filter, each kind's count equals the number of entries its listing walks (docs/api.md,
 * "Review queue") — across scopes and memberships, projects with their own `verify_after_days`, entries aged by
 * hand on both sides of each cutoff (and on its very day), and writes that move an entry between kinds and buckets.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {REVIEW_KINDS, REVIEW_UNRETRIEVED_DAYS} from '../../../src/shared/contract.js'
import {POSTGRES_TALLY, rebuiltTallySql, SQLITE_TALLY} from '../../../server/store/review-tally.js'
import {newPrincipal, queryStore, startInProcessDaemon, tempDir, type TestDaemon} from '../../helpers/daemon.js'
import {createEntry, joinProject} from './support.js'

const DAY = 86_400_000

let d: TestDaemon
const keys: Record<string, string> = {}
const projects: Record<string, string> = {}

beforeAll(async () => {
  d = await startInProcessDaemon()
  keys.ann = d.ownerKey
  for (const name of ['ben', 'cat', 'dan']) keys[name] = await newPrincipal(d, name)
  projects.p1 = (await joinProject(d, 'git@github.com:acme/tally-one.git')).id
  projects.p2 = (await joinProject(d, 'git@github.com:acme/tally-two.git')).id
  await joinProject(d, 'git@github.com:acme/tally-one.git', keys.ben)
  await joinProject(d, 'git@github.com:acme/tally-two.git', keys.cat)
  // p1 asks for a verification every 30 days, p2 never; entries outside a project use 180.
  for (const [p, days] of [
    [projects.p1, 30],
    [projects.p2, 0],
  ] as const) {
    const res = await d.request('PATCH', `/projects/${p}`, {body: {verify_after_days: days}})
    expect(res.status, res.text).toBe(200)
  }
})
afterAll(async () => {
  await d?.stop()
})

/** Every entry of one kind the caller's listing walks, through its cursors. */
async function listed(key: string, kind: string, projectId?: string): Promise<number> {
  let n = 0
  let cursor: string | undefined
  for (let page = 0; page < 100; page++) {
    const res = await d.request('GET', '/review', {query: {kind, limit: 100, cursor, project_id: projectId}, key})
    expect(res.status, res.text).toBe(200)
    n += res.body.items.length
    if (res.body.next_cursor === null) return n
    cursor = res.body.next_cursor
  }
  throw new Error('the listing did not end')
}

/** For each caller and project filter: the counts, and the recount by listing, side by side. */
async function compare(): Promise<Array<Record<string, unknown>>> {
  const views: Array<[string, string | undefined]> = [
    ['ann', undefined],
    ['ann', projects.p1],
    ['ann', projects.p2],
    ['ben', undefined],
    ['ben', projects.p1],
    ['cat', undefined],
    ['cat', projects.p2],
    ['dan', undefined],
  ]
  const out = []
  for (const [who, projectId] of views) {
    const res = await d.request('GET', '/review', {query: {project_id: projectId}, key: keys[who]!})
    expect(res.status, res.text).toBe(200)
    const recount: Record<string, number> = {}
    for (const kind of REVIEW_KINDS) recount[kind] = await listed(keys[who]!, kind, projectId)
    out.push({who, projectId, counts: res.body.counts, recount})
  }
  return out
}

const iso = (ms: number): string => new Date(ms).toISOString()

describe('review counts kept by the writes', () => {
  it('equal a recount for every caller, scope and project filter, on both sides of each cutoff', async () => {
    // Every scope and bucket: global, each principal's private entries (one carrying a project), each project's.
    const made: Array<{id: string; project: string | null}> = []
    const placements: Array<[string, Record<string, unknown>, string | null]> = [
      ['ann', {scope: 'global'}, null],
      ['ben', {scope: 'global'}, null],
      ['ann', {scope: 'private'}, null],
      ['ben', {scope: 'private'}, null],
      ['ben', {scope: 'private', project_id: projects.p1}, projects.p1!],
      ['cat', {scope: 'private'}, null],
      ['ann', {scope: 'project', project_id: projects.p1}, projects.p1!],
      ['ben', {scope: 'project', project_id: projects.p1}, projects.p1!],
      ['ann', {scope: 'project', project_id: projects.p2}, projects.p2!],
      ['cat', {scope: 'project', project_id: projects.p2}, projects.p2!],
      ['dan', {scope: 'private'}, null],
    ]
    let n = 0
    for (let round = 0; round < 4; round++)
      for (const [who, place, project] of placements) {
        const e = await createEntry(
          d,
          {...place, title: `Tally entry ${n}`, body: `Distinct words number ${n} ${'x'.repeat(n)}.`},
          keys[who],
        )
        made.push({id: e.id, project})
        n++
      }

    // Age them by hand, on both sides of each cutoff and on the cutoff's own day (a second before it, ten minutes
    // after: the requests below come within those ten minutes).
    const now = Date.now()
    const staleCutoff = (project: string | null): number => now - (project === projects.p1 ? 30 : 180) * DAY
    const unusedCutoff = now - REVIEW_UNRETRIEVED_DAYS * DAY
    const sides = (cutoff: number): number[] => [now, cutoff - 400 * DAY, cutoff - 1000, cutoff + 600_000, cutoff - 3 * DAY]
    for (const [i, e] of made.entries()) {
      const fresh = sides(staleCutoff(e.project))
      const used = sides(unusedCutoff)
      const updated = iso(fresh[i % 5]!)
      // Some verified later than their last edit (then that counts), some earlier, most never.
      const verified = i % 7 === 0 ? iso(fresh[(i + 2) % 5]!) : i % 7 === 1 ? iso(fresh[1]!) : null
      const created = iso(Math.min(used[(i + 1) % 5]!, Date.parse(updated)))
      const retrieved = i % 3 === 0 ? iso(used[(i + 3) % 5]!) : null
      await queryStore(d, 'UPDATE entries SET updated_at = ?, verified_at = ?, created_at = ?, last_retrieved_at = ? WHERE id = ?', [
        updated,
        verified,
        created,
        retrieved,
        e.id,
      ])
    }
    // Flags (a stale-making one and one that is not), an anchor changed, a supersede, a publish, a delete.
    const id = (i: number): string => made[i]!.id
    const flag = async (i: number, reason: string): Promise<void> => {
      const res = await d.request('POST', `/knowledge/${id(i)}/flags`, {body: {reason}})
      expect(res.status, res.text).toBe(201)
    }
    await flag(0, 'stale')
    await flag(6, 'duplicate')
    await flag(17, 'incorrect')
    await queryStore(d, `UPDATE entries SET anchors = ? WHERE id = ?`, [JSON.stringify([{path: 'src/a.ts', state: 'changed'}]), id(11)])
    expect((await d.request('POST', `/knowledge/${id(12)}/supersede`, {body: {by: id(1)}})).status).toBe(200)
    expect((await d.request('POST', `/knowledge/${id(7 + 11)}/supersede`, {body: {by: id(6)}, key: keys.ben})).status).toBe(200)
    expect((await d.request('POST', `/knowledge/${id(2)}/publish`, {body: {scope: 'global'}})).status).toBe(200)
    expect((await d.request('DELETE', `/knowledge/${id(22)}`)).status).toBe(204)

    const views = await compare()
    for (const v of views) expect(v.counts, `${v.who} ${v.projectId ?? ''}`).toEqual(v.recount)
    // The test reaches every kind, and the cutoffs' own days: not all zeros.
    const ann = views[0]!.counts as Record<string, number>
    for (const kind of ['stale', 'flagged', 'unverified', 'superseded', 'never_retrieved']) expect(ann[kind], kind).toBeGreaterThan(0)
    const onCutoffDay = await queryStore<{n: number}>(
      d,
      `SELECT count(*) AS n FROM entries WHERE substr(updated_at, 1, 10) = ? AND updated_at < ?`,
      [iso(staleCutoff(null)).slice(0, 10), iso(staleCutoff(null))],
    )
    expect(Number(onCutoffDay[0]!.n)).toBeGreaterThan(0)

    // The tally the writes kept is what a rebuild from the entries gives, key by key.
    const dialect = d.storeUrl ? POSTGRES_TALLY : SQLITE_TALLY
    // Summed over shards: PostgreSQL's shard is the writing connection's, which a rebuild cannot know.
    const key = 'scope, project_id, author_id, kind, verify_project, day'
    const order = (rows: Array<Record<string, unknown>>): string[] => rows.map((r) => JSON.stringify({...r, n: Number(r.n)})).sort()
    const kept = await queryStore(d, `SELECT ${key}, sum(n) AS n FROM review_tally GROUP BY ${key} HAVING sum(n) <> 0`)
    const rebuilt = await queryStore(d, `SELECT ${key}, sum(n) AS n FROM (${rebuiltTallySql(dialect)}) r GROUP BY ${key}`)
    expect(kept.length).toBeGreaterThan(10)
    expect(order(kept)).toEqual(order(rebuilt))
  })
})

describe('the tally of ended connections', () => {
  it("is folded into one row per key when a daemon starts, the counts unchanged (PostgreSQL; SQLite's one writer keeps one shard)", async () => {
    const dataDir = tempDir()
    let own = await startInProcessDaemon({dataDir})
    const storeUrl = own.storeUrl
    try {
      for (let i = 0; i < 4; i++) {
        const e = await createEntry(own, {scope: 'global', title: `Folded tally entry ${i}`})
        if (i % 2 === 0)
          expect((await own.request('POST', `/knowledge/${e.id}/flags`, {body: {reason: 'incorrect'}})).status).toBeLessThan(300)
      }
      const counts = (await own.request('GET', '/review')).body.counts
      expect(counts.flagged).toBe(2)
      const shards = async (): Promise<number[]> =>
        (await queryStore<{shard: number}>(own, 'SELECT DISTINCT shard FROM review_tally ORDER BY shard')).map((r) => Number(r.shard))
      if (!storeUrl) {
        expect(await shards()).toEqual([0])
        return
      }
      // As if every connection that wrote had ended: no backend has a negative pid.
      expect((await shards()).some((s) => s > 0)).toBe(true)
      await queryStore(own, 'UPDATE review_tally SET shard = -shard WHERE shard <> 0')
      await own.stop()
      own = await startInProcessDaemon({dataDir, storeUrl})
      const deadline = Date.now() + 20_000
      while ((await shards()).some((s) => s < 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
      expect((await shards()).every((s) => s >= 0)).toBe(true)
      expect(await queryStore(own, 'SELECT * FROM review_tally WHERE shard = 0 AND n = 0')).toEqual([])
      expect((await own.request('GET', '/review')).body.counts).toEqual(counts)
    } finally {
      await own.stop()
    }
  }, 60_000)
})
