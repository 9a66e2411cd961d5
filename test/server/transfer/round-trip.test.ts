/**
 * Export and import through real HTTP: a lossless round trip into an empty daemon, idempotence, overwrite,
 * dry runs, what a non-owner may export and import, and the all-or-nothing rule.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {content, exportText, importText, lines, populate, toNdjson, type Populated} from './support.js'

let src: TestDaemon
let dst: TestDaemon
let pop: Populated
let exported: string

beforeAll(async () => {
  src = await startInProcessDaemon()
  dst = await startInProcessDaemon()
  pop = await populate(src)
  exported = await exportText(src)
})
afterAll(async () => {
  await src?.stop()
  await dst?.stop()
})

describe('GET /export', () => {
  it('starts with the version line, then projects, then entries with comments, thought chain, resolution and lineage', () => {
    const recs = lines(exported)
    expect(recs[0]).toMatchObject({
      kind: 'kb-export',
      version: 1,
      complete: true,
      exported_by: {id: pop.ownerId, name: 'owner'},
      entries: 5,
    })
    const kinds = recs.slice(1).map((r) => r.kind)
    expect(kinds).toEqual(['project', 'entry', 'entry', 'entry', 'entry', 'entry'])
    const project = recs[1]
    expect(project).toMatchObject({id: pop.projectId, remote: 'github.com/acme/api', created_by: {id: pop.ownerId}})
    expect(project.members.map((m: any) => m.name).sort()).toEqual(['alice', 'owner'])
    const root = recs.find((r) => r.id === pop.entryIds[0])
    expect(root.author).toEqual({id: pop.aliceId, name: 'alice'})
    expect(root.thought_chain.map((t: any) => t.kind)).toEqual(['observation', 'hypothesis', 'conclusion'])
    expect(root.comments.map((c: any) => [c.type, c.author.name])).toEqual([
      ['supplement', 'owner'],
      ['question', 'alice'],
    ])
    // Created, then two comments and a fork: none of those moves the version (docs/api.md, "Versions").
    expect(root.version).toBe(1)
    expect(root.tags).toEqual(['daemon', 'port'])
    const resolved = recs.find((r) => r.id === pop.entryIds[3])
    expect(resolved.resolution).toMatchObject({note: 'moved the cron', url: 'https://example.com/pr/2', resolved_by: {id: pop.ownerId}})
    const fork = recs.find((r) => r.id === pop.entryIds[4])
    expect(fork.forked_from).toBe(pop.entryIds[0])
    // The owner's export is a backup: private entries of every principal are in it.
    expect(
      recs
        .filter((r) => r.scope === 'private')
        .map((r) => r.title)
        .sort(),
    ).toEqual(['Alice private note', 'Owner private note'])
  })

  it("a member's export holds only what they may see, and filters narrow it", async () => {
    const mine = lines(await exportText(src, {}, pop.aliceKey))
    expect(mine[0]).toMatchObject({complete: false, exported_by: {name: 'alice'}, entries: 4})
    expect(
      mine
        .filter((r) => r.kind === 'entry')
        .map((r) => r.title)
        .sort(),
    ).toEqual(['Alice private note', 'EADDRINUSE on port 7411', 'Global: flaky CI on Mondays', 'Port clash on CI'])
    expect(mine.find((r) => r.kind === 'project').members).toBeUndefined()
    const global = lines(await exportText(src, {scope: 'global'}))
    expect(global.filter((r) => r.kind === 'entry').every((r) => r.scope === 'global')).toBe(true)
    const project = lines(await exportText(src, {project_id: pop.projectId}))
    // A project's export is every entry that belongs to it, whatever its scope.
    const ofProject = lines(exported)
      .filter((r) => r.kind === 'entry' && r.project_id === pop.projectId)
      .map((r) => r.id)
    expect(ofProject.length).toBeGreaterThanOrEqual(2)
    expect(project.filter((r) => r.kind === 'entry').map((r) => r.id)).toEqual(ofProject)
    expect(project.filter((r) => r.kind === 'project').map((r) => r.id)).toEqual([pop.projectId])
    const bob = await newPrincipal(src, 'bob')
    expect((await src.request('GET', '/export', {query: {project_id: pop.projectId}, key: bob})).status).toBe(404)
    expect((await src.request('GET', '/export', {query: {scope: 'nope'}})).status).toBe(400)
  })
})

describe('POST /import', () => {
  it('round trip: export → import into an empty daemon → export again gives the same content', async () => {
    const dry = await importText(dst, exported, {dry_run: true})
    expect(dry.status).toBe(200)
    expect(dry.body).toMatchObject({created: 6, updated: 0, skipped: 0, rejected: [], dry_run: true})
    expect(lines(await exportText(dst)).length).toBe(1) // the dry run changed nothing

    const r = await importText(dst, exported)
    expect(r.body).toMatchObject({created: 6, updated: 0, skipped: 0, principals_created: 1, rejected: [], dry_run: false})
    const again = await exportText(dst)
    const dstOwner = lines(again)[0].exported_by.id as string
    // The exporting owner is not a principal of the new store: what it wrote is the importing owner's.
    expect(content(again)).toEqual(content(exported.replaceAll(pop.ownerId, dstOwner)))

    // The imported entries behave like any others: searchable, listable, with their comments.
    const search = await dst.request('GET', '/search', {query: {q: 'EADDRINUSE'}})
    expect(search.body.items.map((i: any) => i.id)).toContain(pop.entryIds[0])
    const full = await dst.request('GET', `/knowledge/${pop.entryIds[0]}`, {query: {detail: 'full'}})
    expect(full.body.comments).toHaveLength(2)
    expect(full.body.branches.map((b: any) => b.id)).toEqual([pop.entryIds[4]])
    expect(full.headers.get('etag')).toBe('"1"')
  })

  it('importing the same file twice changes nothing', async () => {
    const before = await exportText(dst)
    const r = await importText(dst, exported)
    expect(r.body).toMatchObject({created: 0, updated: 0, skipped: 6, principals_created: 0, rejected: []})
    expect(content(await exportText(dst))).toEqual(content(before))
    // Overwriting with identical content is also no change.
    expect((await importText(dst, exported, {on_conflict: 'overwrite'})).body).toMatchObject({created: 0, updated: 0, skipped: 6})
  })

  it('overwrite replaces changed entries (comments included); skip leaves them', async () => {
    const recs = lines(exported)
    const changed = recs.map((r) =>
      r.id === pop.entryIds[0] ? {...r, title: 'Port 7411 taken (edited elsewhere)', version: 9, comments: r.comments.slice(0, 1)} : r,
    )
    expect((await importText(dst, toNdjson(changed))).body).toMatchObject({created: 0, updated: 0, skipped: 6})
    expect((await dst.request('GET', `/knowledge/${pop.entryIds[0]}`)).body.title).toBe('EADDRINUSE on port 7411')
    const r = await importText(dst, toNdjson(changed), {on_conflict: 'overwrite'})
    expect(r.body).toMatchObject({created: 0, updated: 1, skipped: 5, rejected: []})
    const e = await dst.request('GET', `/knowledge/${pop.entryIds[0]}`, {query: {detail: 'full'}})
    expect(e.body).toMatchObject({title: 'Port 7411 taken (edited elsewhere)', version: 9, comment_count: 1})
    expect(e.body.comments).toHaveLength(1)
    expect((await dst.request('GET', '/search', {query: {q: 'edited elsewhere'}})).body.items[0].id).toBe(pop.entryIds[0])
    expect((await dst.request('GET', '/search', {query: {q: 'EADDRINUSE'}})).body.items.map((i: any) => i.id)).not.toContain(
      pop.entryIds[0],
    )
    expect(
      (await dst.request('POST', '/import', {raw: 'x', contentType: 'application/x-ndjson', query: {on_conflict: 'merge'}})).status,
    ).toBe(400)
  })

  it('all or nothing: one bad line in the middle changes nothing and is reported with its number', async () => {
    const before = await exportText(dst)
    const recs = lines(exported)
    const fresh = (i: number) => ({
      kind: 'entry',
      id: `0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a79${String(i).padStart(2, '0')}`,
      title: `New ${i}`,
      body: 'text',
    })
    const text = toNdjson([recs[0], fresh(1), fresh(2), {...fresh(3), title: '   '}, fresh(4), {...fresh(5), scope: 'team'}])
    const r = await importText(dst, text)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({created: 0, updated: 0, skipped: 0})
    expect(r.body.rejected).toEqual([
      {line: 4, reason: 'title: must not be blank'},
      {line: 6, reason: expect.stringContaining('scope')},
    ])
    expect(content(await exportText(dst))).toEqual(content(before))
    // A rule only the store can check (a project that exists nowhere) also rolls everything back.
    const orphan = toNdjson([recs[0], fresh(7), {...fresh(8), scope: 'project', project_id: '0193a7e2-5c1e-7b3a-9f1e-000000000000'}])
    const o = await importText(dst, orphan)
    expect(o.body.rejected).toEqual([{line: 3, reason: expect.stringContaining('project 0193a7e2-5c1e-7b3a-9f1e-000000000000 is neither')}])
    expect((await dst.request('GET', `/knowledge/${fresh(7).id}`)).status).toBe(404)
  })

  it("a member may import only their own entries; the owner may import anyone's", async () => {
    const d = await startInProcessDaemon()
    try {
      const carol = await newPrincipal(d, 'carol')
      const carolId = (await d.request('GET', '/api-keys', {key: carol})).body.items[0].principal.id
      const header = {kind: 'kb-export', version: 1}
      const own = {
        kind: 'entry',
        id: '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7901',
        title: 'Mine',
        body: 'b',
        author: {id: carolId, name: 'carol'},
      }
      const other = {
        kind: 'entry',
        id: '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7902',
        title: 'Theirs',
        body: 'b',
        author: {id: pop.aliceId, name: 'alice'},
      }
      const refused = await importText(d, toNdjson([header, own, other]), {}, carol)
      expect(refused.body.rejected).toEqual([
        {line: 3, reason: expect.stringContaining('only the owner may import entries of other authors')},
      ])
      expect((await d.request('GET', `/knowledge/${own.id}`, {key: carol})).status).toBe(404)
      expect((await importText(d, toNdjson([header, own]), {}, carol)).body).toMatchObject({created: 1, rejected: []})
      expect((await d.request('GET', `/knowledge/${own.id}`, {key: carol})).body.author).toEqual({id: carolId, name: 'carol'})
      // A member's own export imports into another server under their id there (the exporter is aliased).
      const aliceExport = await exportText(src, {}, pop.aliceKey)
      const alice2 = await newPrincipal(d, 'alice')
      const r = await importText(d, aliceExport, {}, alice2)
      expect(r.body.rejected.map((x: any) => x.reason).join('\n')).toMatch(
        /only the owner may import (entries|comments|resolutions) of other|not a principal of this server/,
      )
      const ownOnly = toNdjson(
        lines(aliceExport).filter(
          (x) =>
            x.kind === 'kb-export' || x.kind === 'project' || (x.kind === 'entry' && x.author.id === pop.aliceId && x.scope === 'private'),
        ),
      )
      expect((await importText(d, ownOnly, {}, alice2)).body).toMatchObject({created: 2, rejected: []})
      const alice2Id = (await d.request('GET', '/api-keys', {key: alice2})).body.items[0].principal.id
      const note = (await d.request('GET', '/knowledge', {key: alice2, query: {scope: 'private'}})).body.items
      expect(note.map((n: any) => [n.title, n.author.id])).toEqual([['Alice private note', alice2Id]])
      // The project came along, with the importer as its maintainer (the exporter's other members stay behind).
      expect((await d.request('GET', '/projects', {key: alice2})).body.items).toMatchObject([{id: pop.projectId, role: 'maintainer'}])
    } finally {
      await d.stop()
    }
  })
})
