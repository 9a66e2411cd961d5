/**
 * @module The Store contract: what every driver (SQLite, PostgreSQL) must do, exercised through the `Store`
 * interface alone so every driver runs it unchanged: `runStoreContract('postgres', make)`.
 * `makeStore` returns a fresh, empty, migrated store; the suite closes it after each test.
 */
import {randomUUID} from 'node:crypto'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import type {ApiKeyRow, EntryRow, PrincipalRecord, Store} from '../../../server/store/store.js'
import {entryRow as newEntryRow} from '../../../bench/entry-row.js'

const T0 = Date.parse('2026-01-01T00:00:00.000Z')
/** A distinct, ordered time: `at(n)` is n seconds after T0. */
const at = (n: number): string => new Date(T0 + n * 1000).toISOString()

export function runStoreContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store contract: ${name}`, () => {
    let s: Store
    let clock = 0
    const tick = (): string => at(++clock)

    beforeEach(async () => {
      s = await makeStore()
      clock = 0
    })
    afterEach(async () => {
      await s.close()
    })

    async function principal(pname: string, role: 'owner' | 'member' = 'member'): Promise<PrincipalRecord> {
      const p: PrincipalRecord = {id: randomUUID(), name: pname, role, created_at: tick()}
      await s.insertPrincipal(p)
      return p
    }

    async function project(remote: string, creator: PrincipalRecord): Promise<string> {
      const r = await s.createProject({
        id: randomUUID(),
        name: remote.split('/').pop()!,
        remote,
        created_by: creator.id,
        created_at: tick(),
        verify_after_days: 180,
      })
      return r.project.id
    }

    function entryRow(author: PrincipalRecord, o: Partial<EntryRow> = {}): EntryRow {
      const t = tick()
      const title = o.title ?? 'An entry'
      const body = o.body ?? 'Some body.'
      return newEntryRow({
        id: randomUUID(),
        title,
        body,
        summary: body.slice(0, 50),
        scope: 'private',
        author: {id: author.id, name: author.name},
        created_at: t,
        updated_at: t,
        ...o,
      })
    }

    async function entry(author: PrincipalRecord, o: Partial<EntryRow> = {}): Promise<EntryRow> {
      const e = entryRow(author, o)
      await s.insertEntry(e)
      return e
    }

    const idsOf = (rows: Array<{id: string}>): string[] => rows.map((r) => r.id)
    const sorted = (xs: string[]): string[] => [...xs].sort()

    describe('principals', () => {
      it('counts, inserts and finds by id and by name; names are unique', async () => {
        expect(await s.countPrincipals()).toBe(0)
        const owner = await principal('owner', 'owner')
        const ann = await principal('ann')
        expect(await s.countPrincipals()).toBe(2)
        expect(await s.getPrincipal(owner.id)).toEqual(owner)
        expect(await s.getPrincipalByName('ann')).toEqual(ann)
        expect(await s.getPrincipal(randomUUID())).toBeNull()
        expect(await s.getPrincipalByName('nobody')).toBeNull()
        await expect(s.insertPrincipal({id: randomUUID(), name: 'ann', role: 'member', created_at: tick()})).rejects.toThrow()
        expect(await s.countPrincipals()).toBe(2)
      })
    })

    describe('owner bootstrap and health', () => {
      it('creates the owner with its key only while the store has no principal; answers', async () => {
        expect(await s.answers()).toBe(true)
        const owner: PrincipalRecord = {id: randomUUID(), name: 'owner', role: 'owner', created_at: tick()}
        const key = (p: PrincipalRecord): ApiKeyRow => ({
          id: randomUUID(),
          principal_id: p.id,
          name: 'owner bootstrap key',
          prefix: 'kb_abcdefgh',
          hash: randomUUID(),
          project_id: null,
          created_at: tick(),
          expires_at: null,
          last_used_at: null,
          revoked_at: null,
        })
        const first = key(owner)
        expect(await s.bootstrapOwner(owner, first)).toBe(true)
        expect(await s.getPrincipal(owner.id)).toEqual(owner)
        expect(await s.findApiKeyByHash(first.hash)).toEqual(first)
        const other: PrincipalRecord = {id: randomUUID(), name: 'other', role: 'owner', created_at: tick()}
        const second = key(other)
        expect(await s.bootstrapOwner(other, second)).toBe(false)
        expect(await s.countPrincipals()).toBe(1)
        expect(await s.findApiKeyByHash(second.hash)).toBeNull()
      })
    })

    describe('API keys', () => {
      function keyRow(p: PrincipalRecord, o: Partial<ApiKeyRow> = {}): ApiKeyRow {
        return {
          id: randomUUID(),
          principal_id: p.id,
          name: 'k',
          prefix: 'kb_abcdefgh',
          hash: randomUUID().replaceAll('-', '') + randomUUID().replaceAll('-', ''),
          project_id: null,
          created_at: tick(),
          expires_at: null,
          last_used_at: null,
          revoked_at: null,
          ...o,
        }
      }

      it('finds a key by hash, lists live keys of a principal oldest first, revokes only its own, touches', async () => {
        const ann = await principal('ann')
        const ben = await principal('ben')
        const k1 = keyRow(ann, {name: 'one', expires_at: at(1000)})
        const k2 = keyRow(ann, {name: 'two'})
        const kb = keyRow(ben)
        for (const k of [k1, k2, kb]) await s.insertApiKey(k)
        expect(await s.findApiKeyByHash(k1.hash)).toEqual(k1)
        expect(await s.findApiKeyByHash('0'.repeat(64))).toBeNull()
        expect(await s.listApiKeys(ann.id)).toEqual([k1, k2])
        expect(await s.listApiKeys(ben.id)).toEqual([kb])
        // Not ben's to revoke; then ann's; not twice.
        expect(await s.revokeApiKey(k1.id, ben.id, tick())).toBe(false)
        const revokedAt = tick()
        expect(await s.revokeApiKey(k1.id, ann.id, revokedAt)).toBe(true)
        expect(await s.revokeApiKey(k1.id, ann.id, tick())).toBe(false)
        expect(await s.revokeApiKey(randomUUID(), ann.id, tick())).toBe(false)
        expect(await s.listApiKeys(ann.id)).toEqual([k2])
        // A revoked key is either gone or says so: it must never authenticate.
        const found = await s.findApiKeyByHash(k1.hash)
        if (found !== null) expect(found.revoked_at).toBe(revokedAt)
        const used = tick()
        await s.touchApiKey(k2.id, used)
        expect((await s.findApiKeyByHash(k2.hash))!.last_used_at).toBe(used)
      })

      it('hashes are unique', async () => {
        const ann = await principal('ann')
        const k = keyRow(ann)
        await s.insertApiKey(k)
        await expect(s.insertApiKey({...k, id: randomUUID()})).rejects.toThrow()
      })
    })

    describe('projects and memberships', () => {
      it('creates a project once per remote with its creator as maintainer', async () => {
        const ann = await principal('ann')
        const ben = await principal('ben')
        const row = {
          id: randomUUID(),
          name: 'api',
          remote: 'github.com/acme/api',
          created_by: ann.id,
          created_at: tick(),
          verify_after_days: 180,
        }
        expect(await s.createProject(row)).toEqual({project: row, created: true})
        const again = await s.createProject({...row, id: randomUUID(), created_by: ben.id})
        expect(again).toEqual({project: row, created: false})
        expect(await s.getProject(row.id)).toEqual(row)
        expect(await s.getProjectByRemote('github.com/acme/api')).toEqual(row)
        expect(await s.getProject(randomUUID())).toBeNull()
        expect(await s.getProjectByRemote('github.com/acme/none')).toBeNull()
        expect(await s.getMemberRole(row.id, ann.id)).toBe('maintainer')
        // The second creator did not become anything by losing the race.
        expect(await s.getMemberRole(row.id, ben.id)).toBeNull()
      })

      it("adds members without ever downgrading a maintainer, and lists a principal's projects in pages", async () => {
        const ann = await principal('ann')
        const ben = await principal('ben')
        const ps: string[] = []
        for (let i = 0; i < 5; i++) ps.push(await project(`github.com/acme/p${i}`, ann))
        await s.addMember(ps[0]!, ben.id, 'member', tick())
        await s.addMember(ps[0]!, ben.id, 'member', tick())
        await s.addMember(ps[0]!, ann.id, 'member', tick())
        await s.addMember(ps[3]!, ben.id, 'member', tick())
        expect(await s.getMemberRole(ps[0]!, ben.id)).toBe('member')
        expect(await s.getMemberRole(ps[0]!, ann.id)).toBe('maintainer')
        expect(await s.getMemberRole(ps[1]!, ben.id)).toBeNull()
        const bens = await s.listProjects(ben.id, {limit: 10})
        expect(sorted(idsOf(bens))).toEqual(sorted([ps[0]!, ps[3]!]))
        for (const p of bens) expect(p.role).toBe('member')
        // Paging: `after` is the last id of the previous page, ids ascending.
        const walked: string[] = []
        let after: string | undefined
        for (;;) {
          const page = await s.listProjects(ann.id, {limit: 2, ...(after ? {after} : {})})
          walked.push(...idsOf(page))
          for (const p of page) expect(p.role).toBe('maintainer')
          if (page.length < 2) break
          after = page.at(-1)!.id
        }
        expect(walked).toEqual(sorted(ps))
      })
    })

    describe('entries', () => {
      it('round-trips every field', async () => {
        const ann = await principal('ann')
        const p = await project('github.com/acme/rt', ann)
        const e = await entry(ann, {
          title: 'Round trip',
          body: '# Heading\n\nBody with ünïcode and "quotes".',
          scope: 'project',
          project_id: p,
          tags: ['a', 'b.c'],
          url: 'https://example.com/x',
          thought_chain: [{step: 1, thought: 'because', kind: 'hypothesis'}],
          forked_from: null,
          status: 'resolved',
          resolution: {note: 'n', url: null, resolved_by: {id: ann.id, name: 'ann'}, resolved_at: at(500)},
        })
        expect(await s.getEntry(e.id)).toEqual(e)
        expect(await s.getEntry(randomUUID())).toBeNull()
      })

      it('updates atomically: applies changes, bumps version, sets updated_at; honours expectedVersion', async () => {
        const ann = await principal('ann')
        const e = await entry(ann, {tags: ['old']})
        const t1 = tick()
        const r1 = await s.updateEntry(
          e.id,
          {title: 'New', tags: ['new'], status: 'resolved', resolution: {note: null, url: null, resolved_by: e.author, resolved_at: t1}},
          {at: t1},
        )
        expect(r1.ok).toBe(true)
        const after1 = {
          ...e,
          title: 'New',
          tags: ['new'],
          status: 'resolved' as const,
          resolution: {note: null, url: null, resolved_by: e.author, resolved_at: t1},
          updated_at: t1,
          version: 2,
        }
        if (r1.ok) expect(r1.entry).toEqual(after1)
        expect(await s.getEntry(e.id)).toEqual(after1)
        // The tag index follows.
        expect(idsOf(await s.listEntries({principalId: ann.id}, {tag: 'new'}, {limit: 10}))).toEqual([e.id])
        expect(await s.listEntries({principalId: ann.id}, {tag: 'old'}, {limit: 10})).toEqual([])
        // Stale: nothing changes.
        const stale = await s.updateEntry(e.id, {title: 'Lost'}, {at: tick(), expectedVersion: 1})
        expect(stale).toMatchObject({ok: false, reason: 'stale'})
        expect(await s.getEntry(e.id)).toEqual(after1)
        const t3 = tick()
        const fresh = await s.updateEntry(e.id, {resolution: null, status: 'open', url: 'http://x.y/'}, {at: t3, expectedVersion: 2})
        expect(fresh.ok).toBe(true)
        expect(await s.getEntry(e.id)).toEqual({
          ...after1,
          resolution: null,
          status: 'open',
          url: 'http://x.y/',
          updated_at: t3,
          version: 3,
        })
        expect(await s.updateEntry(randomUUID(), {title: 'x'}, {at: tick()})).toMatchObject({ok: false, reason: 'missing'})
      })

      it('updateEntries applies every step in one transaction, or none when a step fails', async () => {
        const ann = await principal('ann')
        const a = await entry(ann)
        const b = await entry(ann)
        const note = (id: string) => ({
          id: randomUUID(),
          entry_id: id,
          body: 'n',
          type: 'note' as const,
          author_id: ann.id,
          created_at: at(50),
        })
        const beforeA = await s.getEntry(a.id)
        const beforeB = await s.getEntry(b.id)
        // The second step expects a version that no longer holds: the first is undone.
        const failed = await s.updateEntries([
          {id: a.id, changes: {title: 'Changed'}, options: {at: tick(), comments: [note(a.id)]}},
          {id: b.id, changes: {superseded_by: a.id}, options: {at: tick(), expectedVersion: 9}},
        ])
        expect(failed).toEqual({ok: false, reason: 'stale', id: b.id})
        expect(await s.getEntry(a.id)).toEqual(beforeA)
        expect(await s.getEntry(b.id)).toEqual(beforeB)
        expect(await s.listComments(a.id, {limit: 10})).toEqual([])
        const missing = randomUUID()
        expect(
          await s.updateEntries([
            {id: a.id, changes: {title: 'x'}, options: {at: tick()}},
            {id: missing, changes: {}, options: {at: tick()}},
          ]),
        ).toEqual({ok: false, reason: 'missing', id: missing})
        const done = await s.updateEntries([
          {id: a.id, changes: {title: 'Changed'}, options: {at: tick(), comments: [note(a.id)], expectedVersion: 1}},
          {id: b.id, changes: {superseded_by: a.id}, options: {at: tick(), expectedVersion: 1}},
        ])
        expect(done.ok && done.entries.map((e) => [e.title, e.version, e.comment_count, e.superseded_by])).toEqual([
          ['Changed', 2, 1, null],
          [beforeB!.title, 2, 0, a.id],
        ])
      })

      it('keeps versions consistent under concurrent expectedVersion updates: exactly one wins', async () => {
        const ann = await principal('ann')
        const e = await entry(ann)
        const results = await Promise.all(
          Array.from({length: 8}, (_, i) => s.updateEntry(e.id, {title: `racer ${i}`}, {at: at(900 + i), expectedVersion: 1})),
        )
        expect(results.filter((r) => r.ok)).toHaveLength(1)
        expect((await s.getEntry(e.id))!.version).toBe(2)
      })

      it('deletes an entry with its comments; forks stay with forked_from', async () => {
        const ann = await principal('ann')
        const parent = await entry(ann, {scope: 'global'})
        const child = await entry(ann, {forked_from: parent.id})
        await s.addComment({id: randomUUID(), entry_id: parent.id, body: 'c', type: 'note', author_id: ann.id, created_at: tick()})
        expect(await s.deleteEntry(parent.id)).toBe(true)
        expect(await s.deleteEntry(parent.id)).toBe(false)
        expect(await s.getEntry(parent.id)).toBeNull()
        expect(await s.listComments(parent.id, {limit: 10})).toEqual([])
        expect((await s.getEntry(child.id))!.forked_from).toBe(parent.id)
        expect(
          await s.addComment({id: randomUUID(), entry_id: parent.id, body: 'late', type: 'note', author_id: ann.id, created_at: tick()}),
        ).toBeNull()
      })
    })

    describe('comments', () => {
      it('adds a comment, bumping comment_count but not version or updated_at (docs/api.md); lists oldest first', async () => {
        const ann = await principal('ann')
        const ben = await principal('ben')
        const e = await entry(ann, {scope: 'global'})
        const c1 = {id: randomUUID(), entry_id: e.id, body: 'first', type: 'note' as const, author_id: ben.id, created_at: tick()}
        const added = await s.addComment(c1)
        expect(added).not.toBeNull()
        expect(added!.comment).toEqual({
          id: c1.id,
          body: 'first',
          type: 'note',
          author: {id: ben.id, name: 'ben'},
          created_at: c1.created_at,
        })
        expect(added!.entry).toMatchObject({version: 1, comment_count: 1, updated_at: e.updated_at})
        const c2 = {id: randomUUID(), entry_id: e.id, body: 'second', type: 'correction' as const, author_id: ann.id, created_at: tick()}
        await s.addComment(c2)
        expect((await s.listComments(e.id, {limit: 10})).map((c) => [c.body, c.type, c.author.name])).toEqual([
          ['first', 'note', 'ben'],
          ['second', 'correction', 'ann'],
        ])
        expect(await s.getEntry(e.id)).toMatchObject({version: 1, comment_count: 2, updated_at: e.updated_at})
        expect(await s.listComments(randomUUID(), {limit: 10})).toEqual([])
      })

      it('pages comments in the order written, ties in created_at included: after a position, or the newest ones', async () => {
        const ann = await principal('ann')
        const e = await entry(ann, {scope: 'global'})
        const same = tick()
        const ids: string[] = []
        for (let i = 0; i < 7; i++) {
          // Random ids, several in one millisecond: the order is the writing order, not the ids'.
          const id = randomUUID()
          ids.push(id)
          await s.addComment({id, entry_id: e.id, body: `c${i}`, type: 'note', author_id: ann.id, created_at: i < 4 ? same : tick()})
        }
        const bodies = async (page: Parameters<typeof s.listComments>[1]): Promise<string[]> =>
          (await s.listComments(e.id, page)).map((c) => c.body)
        expect(await bodies({limit: 3})).toEqual(['c0', 'c1', 'c2'])
        expect(await bodies({limit: 3, after: {created_at: same, id: ids[2]!}})).toEqual(['c3', 'c4', 'c5'])
        const c5 = (await s.listComments(e.id, {limit: 10}))[5]!
        expect(await bodies({limit: 3, after: {created_at: c5.created_at, id: c5.id}})).toEqual(['c6'])
        expect(await bodies({limit: 3, newest: true})).toEqual(['c4', 'c5', 'c6'])
        expect(await bodies({limit: 50, newest: true})).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6'])
      })

      it('inserts an entry with comments, and updates one with comment bodies and a new comment, each in one step (safe publish)', async () => {
        const ann = await principal('ann')
        const e = entryRow(ann, {scope: 'project'})
        const record = {
          id: randomUUID(),
          entry_id: e.id,
          body: 'acknowledged',
          type: 'note' as const,
          author_id: ann.id,
          created_at: e.created_at,
        }
        await s.insertEntry(e, [record])
        expect(await s.getEntry(e.id)).toMatchObject({version: 1, comment_count: 1})
        expect((await s.listComments(e.id, {limit: 10})).map((c) => c.body)).toEqual(['acknowledged'])
        const note = {id: randomUUID(), entry_id: e.id, body: 'second record', type: 'note' as const, author_id: ann.id, created_at: tick()}
        const r = await s.updateEntry(
          e.id,
          {scope: 'global'},
          {at: tick(), expectedVersion: 1, commentBodies: [{id: record.id, body: 'redacted'}], comments: [note]},
        )
        expect(r).toMatchObject({ok: true, entry: {scope: 'global', version: 2, comment_count: 2}})
        expect((await s.listComments(e.id, {limit: 10})).map((c) => c.body)).toEqual(['redacted', 'second record'])
        // A stale update changes none of it.
        const stale = await s.updateEntry(
          e.id,
          {scope: 'private'},
          {at: tick(), expectedVersion: 1, commentBodies: [{id: record.id, body: 'lost'}], comments: [{...note, id: randomUUID()}]},
        )
        expect(stale).toMatchObject({ok: false, reason: 'stale'})
        expect((await s.listComments(e.id, {limit: 10})).map((c) => c.body)).toEqual(['redacted', 'second record'])
        // A comment of another entry is not rewritten through this one.
        const other = await entry(ann)
        const theirs = {id: randomUUID(), entry_id: other.id, body: 'theirs', type: 'note' as const, author_id: ann.id, created_at: tick()}
        await s.addComment(theirs)
        await s.updateEntry(e.id, {}, {at: tick(), commentBodies: [{id: theirs.id, body: 'hijacked'}]})
        expect((await s.listComments(other.id, {limit: 10})).map((c) => c.body)).toEqual(['theirs'])
      })
    })

    describe('visibility, listing and filters', () => {
      interface World {
        owner: PrincipalRecord
        ann: PrincipalRecord
        ben: PrincipalRecord
        p1: string
        p2: string
        all: EntryRow[]
      }

      async function world(): Promise<World> {
        const owner = await principal('owner', 'owner')
        const ann = await principal('ann')
        const ben = await principal('ben')
        const p1 = await project('github.com/acme/one', owner)
        await s.addMember(p1, ann.id, 'member', tick())
        const p2 = await project('github.com/acme/two', ann)
        await s.addMember(p2, ben.id, 'member', tick())
        const all: EntryRow[] = []
        const member: Record<string, string[]> = {[owner.id]: [p1], [ann.id]: [p1, p2], [ben.id]: [p2]}
        for (const who of [owner, ann, ben]) {
          all.push(await entry(who, {title: `${who.name} private`, tags: ['mine']}))
          all.push(await entry(who, {title: `${who.name} global`, scope: 'global', tags: ['shared', 'mine']}))
          for (const p of member[who.id]!) {
            all.push(await entry(who, {title: `${who.name} private in project`, project_id: p}))
            all.push(await entry(who, {title: `${who.name} project`, scope: 'project', project_id: p, status: 'resolved'}))
            all.push(await entry(who, {title: `${who.name} global in project`, scope: 'global', project_id: p}))
          }
        }
        return {owner, ann, ben, p1, p2, all}
      }

      function visibleTo(w: World, p: PrincipalRecord): EntryRow[] {
        const member: Record<string, string[]> = {[w.owner.id]: [w.p1], [w.ann.id]: [w.p1, w.p2], [w.ben.id]: [w.p2]}
        return w.all.filter(
          (e) =>
            e.scope === 'global' ||
            (e.scope === 'private' && e.author.id === p.id) ||
            (e.scope === 'project' && member[p.id]!.includes(e.project_id!)),
        )
      }

      it('returns only what the viewer may see, newest updated_at first, in keyset pages without gaps or repeats', async () => {
        const w = await world()
        for (const p of [w.owner, w.ann, w.ben]) {
          const expected = visibleTo(w, p).sort((a, b) =>
            a.updated_at === b.updated_at ? b.id.localeCompare(a.id) : b.updated_at.localeCompare(a.updated_at),
          )
          expect(idsOf(await s.listEntries({principalId: p.id}, {}, {limit: 100}))).toEqual(idsOf(expected))
          for (const limit of [1, 4]) {
            const walked: string[] = []
            let after: {updated_at: string; id: string} | undefined
            for (;;) {
              const page = await s.listEntries({principalId: p.id}, {}, {limit, ...(after ? {after} : {})})
              walked.push(...idsOf(page))
              if (page.length < limit) break
              after = {updated_at: page.at(-1)!.updated_at, id: page.at(-1)!.id}
            }
            expect(walked).toEqual(idsOf(expected))
          }
        }
      })

      it('breaks updated_at ties by id, descending, across pages', async () => {
        const ann = await principal('ann')
        const same = at(5000)
        const rows: EntryRow[] = []
        for (let i = 0; i < 6; i++) rows.push(await entry(ann, {created_at: same, updated_at: same}))
        const expected = idsOf(rows).sort().reverse()
        const first = await s.listEntries({principalId: ann.id}, {}, {limit: 4})
        const rest = await s.listEntries({principalId: ann.id}, {}, {limit: 4, after: {updated_at: same, id: first.at(-1)!.id}})
        expect([...idsOf(first), ...idsOf(rest)]).toEqual(expected)
      })

      it('filters by scope, project, status, tag and author, combined with visibility', async () => {
        const w = await world()
        for (const p of [w.owner, w.ann, w.ben]) {
          const vis = visibleTo(w, p)
          const v = {principalId: p.id}
          const list = async (f: Parameters<Store['listEntries']>[1]): Promise<string[]> =>
            sorted(idsOf(await s.listEntries(v, f, {limit: 100})))
          for (const scope of ['private', 'project', 'global'] as const)
            expect(await list({scope})).toEqual(sorted(idsOf(vis.filter((e) => e.scope === scope))))
          for (const proj of [w.p1, w.p2]) {
            const inView = vis.filter(
              (e) => e.project_id === proj || e.scope === 'global' || (e.scope === 'private' && e.author.id === p.id),
            )
            expect(await list({projectId: proj})).toEqual(sorted(idsOf(inView)))
            expect(await list({projectId: proj, scope: 'project'})).toEqual(sorted(idsOf(inView.filter((e) => e.scope === 'project'))))
          }
          expect(await list({status: 'resolved'})).toEqual(sorted(idsOf(vis.filter((e) => e.status === 'resolved'))))
          expect(await list({tag: 'mine'})).toEqual(sorted(idsOf(vis.filter((e) => e.tags.includes('mine')))))
          expect(await list({tag: 'shared', authorId: w.ann.id})).toEqual(
            sorted(idsOf(vis.filter((e) => e.tags.includes('shared') && e.author.id === w.ann.id))),
          )
          expect(await list({authorId: w.ben.id})).toEqual(sorted(idsOf(vis.filter((e) => e.author.id === w.ben.id))))
        }
      })

      it('lists branches the viewer may see, oldest first', async () => {
        const w = await world()
        const parent = w.all.find((e) => e.title === 'owner global')!
        const f1 = await entry(w.ann, {forked_from: parent.id, title: 'ann private fork'})
        const f2 = await entry(w.ben, {forked_from: parent.id, title: 'ben p2 fork', scope: 'project', project_id: w.p2})
        const f3 = await entry(w.owner, {forked_from: parent.id, title: 'owner global fork', scope: 'global'})
        const branches = async (p: PrincipalRecord): Promise<string[]> => idsOf(await s.listBranches(parent.id, {principalId: p.id}))
        expect(await branches(w.owner)).toEqual([f3.id])
        expect(await branches(w.ann)).toEqual([f1.id, f2.id, f3.id])
        expect(await branches(w.ben)).toEqual([f2.id, f3.id])
        expect((await s.listBranches(parent.id, {principalId: w.ann.id}))[0]).toEqual({
          id: f1.id,
          title: 'ann private fork',
          scope: 'private',
          author: {id: w.ann.id, name: 'ann'},
          created_at: f1.created_at,
        })
        expect(await s.listBranches(randomUUID(), {principalId: w.ann.id})).toEqual([])
      })
    })

    describe('search', () => {
      it('matches any term, with stemming, accent folding, over title, tags and body; counts a total; respects visibility and filters', async () => {
        const ann = await principal('ann')
        const ben = await principal('ben')
        const crashes = await entry(ann, {title: 'Daemon crashes on start', scope: 'global'})
        const crashed = await entry(ann, {title: 'Port problem', body: 'The worker crashed twice.', scope: 'global'})
        const crashing = await entry(ben, {title: 'Crashing builds', body: 'CI is red.', scope: 'global', status: 'resolved'})
        const zebra = await entry(ann, {title: 'Zebra stripes', body: 'Nothing else.', scope: 'global'})
        const tagged = await entry(ann, {title: 'Untitled', body: 'plain', tags: ['postgres'], scope: 'global'})
        const accented = await entry(ann, {title: 'Café crème', body: 'Résumé of the naïve approach.', scope: 'global'})
        const hidden = await entry(ann, {title: 'Secret crash', scope: 'private'})
        await entry(ann, {title: 'Unrelated', body: 'Lorem ipsum.', scope: 'global'})
        const search = async (
          query: string,
          viewer = ben,
          filter = {},
          limit = 50,
        ): Promise<{ids: string[]; total: number; scores: number[]}> => {
          const r = await s.searchEntries({principalId: viewer.id}, filter, {query, limit, explain: false})
          return {ids: sorted(r.hits.map((h) => h.entry.id)), total: r.total, scores: r.hits.map((h) => h.score)}
        }
        const stemmed = await search('crash ')
        expect(stemmed.ids).toEqual(sorted([crashes.id, crashed.id, crashing.id]))
        expect(stemmed.total).toBe(3)
        expect((await search('crashes ')).ids).toEqual(sorted([crashes.id, crashed.id, crashing.id]))
        // Any term, not all terms.
        expect((await search('crash zebra ')).ids).toEqual(sorted([crashes.id, crashed.id, crashing.id, zebra.id]))
        expect((await search('postgres ')).ids).toEqual([tagged.id])
        expect((await search('cafe ')).ids).toEqual([accented.id])
        expect((await search('resume naive ')).ids).toEqual([accented.id])
        // Ann sees her private entry; ben does not, and it is not counted for him.
        expect((await search('crash ', ann)).ids).toEqual(sorted([crashes.id, crashed.id, crashing.id, hidden.id]))
        expect((await search('secret ')).total).toBe(0)
        // Filters and limit; total counts every match, not the page.
        expect((await search('crash ', ben, {status: 'resolved'})).ids).toEqual([crashing.id])
        expect((await search('crash ', ben, {authorId: ann.id})).ids).toEqual(sorted([crashes.id, crashed.id]))
        const limited = await search('crash ', ben, {}, 2)
        expect(limited.ids).toHaveLength(2)
        expect(limited.total).toBe(3)
        // Best first: scores never increase down the list.
        for (let i = 1; i < stemmed.scores.length; i++) expect(stemmed.scores[i]!).toBeLessThanOrEqual(stemmed.scores[i - 1]!)
        expect(await search('xylophone ')).toEqual({ids: [], total: 0, scores: []})
        expect(await search('')).toEqual({ids: [], total: 0, scores: []})
      })

      it('follows updates and deletes', async () => {
        const ann = await principal('ann')
        const e = await entry(ann, {title: 'Kangaroo', scope: 'global'})
        const find = async (term: string): Promise<string[]> =>
          idsOf((await s.searchEntries({principalId: ann.id}, {}, {query: term, limit: 10, explain: false})).hits.map((h) => h.entry))
        expect(await find('kangaroo')).toEqual([e.id])
        await s.updateEntry(e.id, {title: 'Wombat', tags: ['marsupial']}, {at: tick()})
        expect(await find('kangaroo')).toEqual([])
        expect(await find('wombat')).toEqual([e.id])
        expect(await find('marsupial')).toEqual([e.id])
        await s.deleteEntry(e.id)
        expect(await find('wombat')).toEqual([])
      })

      it('explains matches when asked', async () => {
        const ann = await principal('ann')
        await entry(ann, {title: 'Timeout in tests', body: 'The request timed out after 5 s.', scope: 'global'})
        const r = await s.searchEntries({principalId: ann.id}, {}, {query: 'timeout', limit: 10, explain: true})
        expect(r.hits).toHaveLength(1)
        expect(r.hits[0]!.matched!.fields).toContain('title')
        expect(typeof r.hits[0]!.snippet).toBe('string')
      })
    })
  })
}
