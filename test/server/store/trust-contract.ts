/**
 * @module The contract of the Store's trust records (docs/api.md, "Anchors, freshness, verify and flags"), through the
 * interface alone so every driver runs it unchanged: `runTrustContract('postgres', make)`. Anchors, verifications,
 * flags with their counts on the entry row, corrections, a project's verify_after_days and the freshness filter.
 */
import {randomUUID} from 'node:crypto'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {entryRow} from '../../../bench/entry-row.js'
import type {Anchor} from '../../../src/shared/types.js'
import type {EntryRow, FlagRow, PrincipalRecord, Store} from '../../../server/store/store.js'

const T0 = Date.parse('2026-06-01T00:00:00.000Z')
const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString()
const DAY = 86_400
const NOW = at(0)

const anchor = (path: string, o: Partial<Anchor> = {}): Anchor => ({
  path,
  lines: null,
  symbol: null,
  commit: null,
  hash: null,
  state: 'unknown',
  moved_to: null,
  checked_at: null,
  checked_commit: null,
  ...o,
})

export function runTrustContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store trust contract: ${name}`, () => {
    let s: Store
    let ann: PrincipalRecord
    let ben: PrincipalRecord
    beforeEach(async () => {
      s = await makeStore()
      ann = {id: randomUUID(), name: 'ann', role: 'member', created_at: at(-1000 * DAY)}
      ben = {id: randomUUID(), name: 'ben', role: 'member', created_at: at(-1000 * DAY)}
      await s.insertPrincipal(ann)
      await s.insertPrincipal(ben)
    })
    afterEach(async () => {
      await s.close()
    })

    async function entry(o: Partial<EntryRow> = {}): Promise<EntryRow> {
      const e = entryRow({id: randomUUID(), title: 'Pool timeouts', body: 'Raise the pool size.', author: ann, created_at: at(-DAY), ...o})
      await s.insertEntry(e)
      return (await s.getEntry(e.id))!
    }
    const flag = (e: EntryRow, p: PrincipalRecord, reason: FlagRow['reason'], seconds: number): FlagRow => ({
      entry_id: e.id,
      principal_id: p.id,
      reason,
      note: null,
      duplicate_of: null,
      created_at: at(seconds),
    })

    it('stores anchors on insert and on update, and reads them back as written', async () => {
      const a = [anchor('src/db/pool.ts', {lines: '40-62', commit: 'abcdef1', hash: 'a'.repeat(64), state: 'current'})]
      const e = await entry({anchors: a})
      expect(e.anchors).toEqual(a)
      const b = [anchor('src/db/pool.ts', {symbol: 'connect'}), anchor('README.md')]
      const u = await s.updateEntry(e.id, {anchors: b}, {at: at(1)})
      expect(u.ok && u.entry.anchors).toEqual(b)
      expect(u.ok && u.entry.version).toBe(2)
    })

    it('records a verification without touching version or updated_at; the latest per principal, newest first', async () => {
      const e = await entry({corrections: 2})
      const by = {id: ann.id, name: ann.name}
      await s.updateTrust(e.id, () => ({verified: {by, at: at(10)}}))
      await s.updateTrust(e.id, () => ({verified: {by: {id: ben.id, name: ben.name}, at: at(20)}}))
      const r = await s.updateTrust(e.id, () => ({verified: {by, at: at(30)}}))
      expect(r!.entry).toMatchObject({verified_at: at(30), verified_by: by, corrections: 0, version: e.version, updated_at: e.updated_at})
      expect(r!.entry.verifications).toEqual([
        {principal_id: ann.id, at: at(30)},
        {principal_id: ben.id, at: at(20)},
      ])
      expect(await s.updateTrust(randomUUID(), () => ({}))).toBeNull()
    })

    it('keeps one open flag per principal, counted on the row with flagged_at; withdraws; a duplicate flag does not make it stale', async () => {
      const e = await entry()
      const first = await s.updateTrust(e.id, () => ({flag: flag(e, ann, 'stale', 10)}))
      expect(first!.replaced).toBe(false)
      const again = await s.updateTrust(e.id, () => ({flag: flag(e, ann, 'incorrect', 20)}))
      expect(again!.replaced).toBe(true)
      expect(again!.entry.flags).toEqual({stale: 0, incorrect: 1, duplicate: 0, obsolete: 0})
      const two = await s.updateTrust(e.id, () => ({flag: flag(e, ben, 'duplicate', 30)}))
      expect(two!.entry.flags).toEqual({stale: 0, incorrect: 1, duplicate: 1, obsolete: 0})
      expect(two!.entry.flagged_at).toBe(at(20))
      expect((await s.listFlags(e.id)).map((f) => [f.principal_id, f.reason])).toEqual([
        [ann.id, 'incorrect'],
        [ben.id, 'duplicate'],
      ])
      const withdrawn = await s.updateTrust(e.id, () => ({withdraw: ann.id}))
      expect(withdrawn!.replaced).toBe(true)
      expect(withdrawn!.entry).toMatchObject({flags: {stale: 0, incorrect: 0, duplicate: 1, obsolete: 0}, flagged_at: null})
      expect((await s.updateTrust(e.id, () => ({withdraw: ann.id})))!.replaced).toBe(false)
      expect(withdrawn!.entry.version).toBe(e.version)
    })

    it("an author's edit with closeFlags closes every flag and restarts corrections; deleting the entry takes its flags", async () => {
      const e = await entry()
      await s.updateTrust(e.id, () => ({flag: flag(e, ben, 'obsolete', 10)}))
      await s.addComment({
        id: randomUUID(),
        entry_id: e.id,
        body: 'No: it is 30.',
        type: 'correction',
        author_id: ben.id,
        created_at: at(11),
      })
      await s.addComment({id: randomUUID(), entry_id: e.id, body: 'Thanks.', type: 'note', author_id: ben.id, created_at: at(12)})
      expect((await s.getEntry(e.id))!.corrections).toBe(1)
      const kept = await s.updateEntry(e.id, {tags: ['x']}, {at: at(13)})
      expect(kept.ok && kept.entry.flags.obsolete).toBe(1)
      const u = await s.updateEntry(e.id, {body: 'Raise it to 30.'}, {at: at(14), closeFlags: true})
      expect(u.ok && u.entry).toMatchObject({flags: {stale: 0, incorrect: 0, duplicate: 0, obsolete: 0}, flagged_at: null, corrections: 0})
      expect(await s.listFlags(e.id)).toEqual([])
      await s.updateTrust(e.id, () => ({flag: flag(e, ben, 'stale', 20)}))
      expect(await s.deleteEntry(e.id)).toBe(true)
      expect(await s.listFlags(e.id)).toEqual([])
    })

    it("keeps a project's verify_after_days (180 by default) and changes it", async () => {
      const {project} = await s.createProject({
        id: randomUUID(),
        name: 'api',
        remote: 'github.com/acme/api',
        created_by: ann.id,
        created_at: at(0),
        verify_after_days: 180,
      })
      expect((await s.getProject(project.id))!.verify_after_days).toBe(180)
      expect((await s.updateProject(project.id, {verify_after_days: 7}))!.verify_after_days).toBe(7)
      expect((await s.listProjects(ann.id, {limit: 10}))[0]!.verify_after_days).toBe(7)
      expect(await s.updateProject(randomUUID(), {verify_after_days: 7})).toBeNull()
    })

    it('filters lists and searches by freshness as freshness.ts decides it', async () => {
      const {project} = await s.createProject({
        id: randomUUID(),
        name: 'never',
        remote: 'github.com/acme/never',
        created_by: ann.id,
        created_at: at(0),
        verify_after_days: 0,
      })
      const old = at(-400 * DAY)
      const fresh = await entry({title: 'Pool fresh'})
      const changed = await entry({title: 'Pool changed', anchors: [anchor('a.ts', {state: 'changed'})]})
      const moved = await entry({title: 'Pool moved', anchors: [anchor('b.ts', {state: 'moved'})]})
      const deleted = await entry({title: 'Pool deleted', anchors: [anchor('c.ts', {state: 'deleted'})]})
      const flagged = await entry({title: 'Pool flagged'})
      await s.updateTrust(flagged.id, () => ({flag: flag(flagged, ben, 'stale', 1)}))
      const duplicate = await entry({title: 'Pool duplicate'})
      await s.updateTrust(duplicate.id, () => ({flag: flag(duplicate, ben, 'duplicate', 1)}))
      const aged = await entry({title: 'Pool aged', created_at: old, updated_at: old})
      const verified = await entry({title: 'Pool verified', created_at: old, updated_at: old})
      await s.updateTrust(verified.id, () => ({verified: {by: ann, at: at(-DAY)}}))
      const neverAsked = await entry({
        title: 'Pool never asked',
        created_at: old,
        updated_at: old,
        project_id: project.id,
        scope: 'project',
      })
      await s.addMember(project.id, ann.id, 'maintainer', at(0))
      const viewer = {principalId: ann.id}
      const ids = (rows: Array<{id: string}>): string[] => rows.map((r) => r.id).sort()
      const staleIds = ids([changed, deleted, flagged, aged])
      const freshIds = ids([fresh, moved, duplicate, verified, neverAsked])
      const list = async (state: 'fresh' | 'stale'): Promise<string[]> =>
        ids(await s.listEntries(viewer, {freshness: {state, now: NOW}}, {limit: 50}))
      const named = (xs: string[]): string[] =>
        xs.map((x) => [fresh, changed, moved, deleted, flagged, duplicate, aged, verified, neverAsked].find((e) => e.id === x)!.title)
      expect(named(await list('stale'))).toEqual(named(staleIds))
      expect(await list('fresh')).toEqual(freshIds)
      const search = async (state: 'fresh' | 'stale'): Promise<string[]> =>
        ids(
          (await s.searchEntries(viewer, {freshness: {state, now: NOW}}, {query: 'pool', limit: 50, explain: false})).hits.map(
            (h) => h.entry,
          ),
        )
      expect(await search('stale')).toEqual(staleIds)
      expect(await search('fresh')).toEqual(freshIds)
    })

    it('weighs search candidates before the cut: a factor reorders equally relevant hits', async () => {
      const a = await entry({title: 'Twin timeout', body: 'Same words.'})
      const b = await entry({title: 'Twin timeout', body: 'Same words.'})
      const weigh = async (rows: EntryRow[]): Promise<number[]> => rows.map((r) => (r.id === a.id ? 1 : 0.5))
      const r = await s.searchEntries({principalId: ann.id}, {}, {query: 'twin', limit: 1, explain: true, weigh})
      expect(r.hits.map((h) => h.entry.id)).toEqual([a.id])
      expect(r.hits[0]!.factors).toEqual({relevance: expect.any(Number), confidence: 1})
      const flipped = await s.searchEntries(
        {principalId: ann.id},
        {},
        {query: 'twin', limit: 2, explain: false, weigh: async (rows) => rows.map((x) => (x.id === b.id ? 1 : 0.5))},
      )
      expect(flipped.hits.map((h) => h.entry.id)).toEqual([b.id, a.id])
      expect(flipped.hits[1]!.score).toBeCloseTo(flipped.hits[0]!.score / 2, 4)
    })
  })
}
