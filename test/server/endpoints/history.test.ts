/**
 * @module History, usage and the review queue over HTTP (docs/api.md, "History, usage and the review queue"): every
 * action recorded with its actor and `via` (API key, OAuth-less MCP and hook clients by header, import), a
 * redaction's record holding no secret, history and usage surviving export → import, usage counted without a write
 * per read (seen only after the daemon writes its batch), and the review queue's counts and order.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, tempDir, type TestDaemon} from '../../helpers/daemon.js'
import {fakeCorpus} from '../scan/fake-corpus.js'
import {exportText, importText, lines} from '../transfer/support.js'
import {createEntry, expectProblem, joinProject, MISSING_ID} from './support.js'

// Usage is written when the daemon stops (or after ten minutes): a read never writes.
process.env.KB_USAGE_FLUSH_MS = '600000'

const corpus = fakeCorpus(2727)
const line = (kind: string): string => corpus.find((s) => s.kind === kind)!.text
const secret = (kind: string): string => corpus.find((s) => s.kind === kind)!.secret

let d: TestDaemon
let ben: string
let projectId: string

beforeAll(async () => {
  d = await startInProcessDaemon()
  projectId = (await joinProject(d, 'git@github.com:acme/curation.git')).id
  ben = await newPrincipal(d, 'ben', projectId)
  await joinProject(d, 'git@github.com:acme/curation.git', ben)
})
afterAll(async () => {
  await d?.stop()
})

const history = async (id: string, key?: string): Promise<any[]> => {
  const res = await d.request('GET', `/knowledge/${id}/history`, key ? {key} : {})
  expect(res.status, res.text).toBe(200)
  return res.body.items
}

describe('history', () => {
  it('records every action, oldest first, with who, through what and which fields', async () => {
    const e = await createEntry(d, {scope: 'project', project_id: projectId, body: 'one\ntwo\nthree'})
    const id = e.id as string
    expect((await d.request('PATCH', `/knowledge/${id}`, {body: {body: 'one\n2\nthree\nfour', tags: ['db']}})).status).toBe(200)
    expect((await d.request('POST', `/knowledge/${id}/comments`, {body: {body: 'seen it too'}, key: ben})).status).toBe(201)
    const mcp = {'kb-via': 'mcp'}
    expect((await d.request('POST', `/knowledge/${id}/verify`, {body: {}, key: ben, headers: mcp})).status).toBe(200)
    expect((await d.request('POST', `/knowledge/${id}/flags`, {body: {reason: 'stale', note: 'old'}, key: ben})).status).toBe(201)
    expect((await d.request('DELETE', `/knowledge/${id}/flags/mine`, {key: ben})).status).toBe(200)
    // Withdrawing with no open flag records nothing.
    expect((await d.request('DELETE', `/knowledge/${id}/flags/mine`, {key: ben})).status).toBe(200)
    expect((await d.request('POST', `/knowledge/${id}/resolve`, {body: {note: 'fixed'}, headers: {'kb-via': 'hook'}})).status).toBe(200)
    expect((await d.request('PATCH', `/knowledge/${id}`, {body: {status: 'open'}})).status).toBe(200)
    expect((await d.request('POST', `/knowledge/${id}/publish`, {body: {scope: 'global'}})).status).toBe(200)
    const items = await history(id)
    expect(items.map((h) => h.action)).toEqual([
      'created',
      'edited',
      'commented',
      'verified',
      'flagged',
      'unflagged',
      'resolved',
      'reopened',
      'published',
    ])
    const [created, edited, commented, verified, flagged] = items
    expect(created.actor).toMatchObject({name: 'owner', via: 'api_key'})
    expect(typeof created.actor.client).toBe('string')
    expect(edited.changes).toEqual({body: '+2/−1 lines', tags: '+db'})
    expect(commented.actor).toEqual({id: expect.any(String), name: 'ben', via: 'api_key', client: 'ben key'})
    expect(verified.actor.via).toBe('mcp')
    expect(flagged).toMatchObject({changes: {reason: 'stale'}, note: 'old'})
    expect(items[6].actor.via).toBe('hook')
    expect(items[6].changes).toEqual({status: 'open → resolved'})
    expect(items.at(-1).changes).toEqual({scope: 'project → global'})
    // Whoever can see the entry reads its history; a hidden or missing one is 404.
    expect((await history(id, ben)).length).toBe(items.length)
    expectProblem(await d.request('GET', `/knowledge/${MISSING_ID}/history`), 404)
    const mine = await createEntry(d, {scope: 'private'})
    expectProblem(await d.request('GET', `/knowledge/${mine.id}/history`, {key: ben}), 404)
  })

  it('pages with a cursor', async () => {
    const e = await createEntry(d, {scope: 'global'})
    for (let i = 0; i < 3; i++) await d.request('POST', `/knowledge/${e.id}/comments`, {body: {body: `c${i}`}})
    const first = await d.request('GET', `/knowledge/${e.id}/history`, {query: {limit: 2}})
    expect(first.body.items.map((h: any) => h.action)).toEqual(['created', 'commented'])
    const rest = await d.request('GET', `/knowledge/${e.id}/history`, {query: {limit: 2, cursor: first.body.next_cursor}})
    expect(rest.body.items.map((h: any) => h.action)).toEqual(['commented', 'commented'])
    expect(rest.body.next_cursor).toBeNull()
    expectProblem(await d.request('GET', `/knowledge/${e.id}/history`, {query: {cursor: 'nope'}}), 400)
  })

  it('records a redaction by field and count, never the secret it removed; and an acknowledgement', async () => {
    const e = await createEntry(d, {scope: 'private', body: `Deploy with ${line('github-pat')}`})
    const res = await d.request('POST', `/knowledge/${e.id}/publish`, {body: {scope: 'global', redact: true}})
    expect(res.status, res.text).toBe(200)
    const raw = (await d.request('GET', `/knowledge/${e.id}/history`)).text
    expect(raw).not.toContain(secret('github-pat'))
    const items = JSON.parse(raw).items
    expect(items.map((h: any) => h.action)).toEqual(['created', 'published', 'redacted'])
    expect(items[2].changes).toEqual({body: '1 finding redacted'})
  })
})

describe('usage and the review queue', () => {
  it('counts reads at standard and full without a write per read; the counts appear once the daemon writes them', async () => {
    const dataDir = tempDir()
    let own = await startInProcessDaemon({dataDir})
    const storeUrl = own.storeUrl
    try {
      const a = await createEntry(own, {scope: 'global', title: 'Pool exhaustion under load'})
      const b = await createEntry(own, {scope: 'global', title: 'Another pool note'})
      for (let i = 0; i < 5; i++) await own.request('GET', `/knowledge/${a.id}`)
      await own.request('GET', `/knowledge/${a.id}`, {query: {detail: 'summary'}})
      await own.request('GET', '/search', {query: {q: 'pool', detail: 'standard'}})
      // Nothing written yet: the counts are held in memory.
      expect((await own.request('GET', `/knowledge/${a.id}`)).body.usage).toEqual({retrieved: 0, last_retrieved_at: null})
      const before = await own.request('GET', '/review', {query: {kind: 'never_retrieved'}})
      expect(before.status).toBe(200)
      await own.stop()
      // The same data directory (and on PostgreSQL the same database): what the daemon wrote as it stopped.
      own = await startInProcessDaemon({dataDir, ...(storeUrl ? {storeUrl} : {})})
      const after = (await own.request('GET', `/knowledge/${a.id}`, {query: {detail: 'summary'}})).body
      expect(after.usage).toBeUndefined()
      const full = (await own.request('GET', `/knowledge/${a.id}`, {query: {detail: 'full'}})).body
      // 5 GETs, the search hit and the GET after it (not the summary reads): 7.
      expect(full.usage.retrieved).toBe(7)
      expect(full.usage.last_retrieved_at).toMatch(/^\d{4}-/)
      const bUsage = (await own.request('GET', `/knowledge/${b.id}`)).body.usage
      expect(bUsage.retrieved).toBe(1)
      // The review queue lists the most retrieved first.
      const q = await own.request('GET', '/review', {query: {kind: 'unverified'}})
      expect(q.body.items.map((i: any) => i.entry.id)).toEqual([a.id, b.id])
      expect(q.body.items[0].reasons).toContainEqual({kind: 'unverified', detail: 'never verified'})
      // History and usage survive export → import.
      const exported = await exportText(own)
      const target = await startInProcessDaemon()
      try {
        const r = await importText(target, exported)
        expect(r.status, r.text).toBe(200)
        const moved = (await target.request('GET', `/knowledge/${a.id}`)).body
        // The export first wrote the count held in memory: the 7, and the full GET since the restart.
        expect(moved.usage.retrieved).toBe(8)
        const h = (await target.request('GET', `/knowledge/${a.id}/history`)).body.items
        expect(h.map((x: any) => x.action)).toEqual(['created', 'imported'])
        expect(h[1].actor.via).toBe('import')
        const line0 = lines(exported).find((x) => x.id === a.id)
        expect(line0.history.map((x: any) => x.action)).toEqual(['created'])
      } finally {
        await target.stop()
      }
    } finally {
      await own.stop()
    }
  })

  it('counts by kind and lists the reasons; a kind narrows the items', async () => {
    const e = await createEntry(d, {scope: 'project', project_id: projectId, title: 'Flag me for review'})
    await d.request('POST', `/knowledge/${e.id}/flags`, {body: {reason: 'incorrect'}, key: ben})
    const all = await d.request('GET', '/review', {query: {project_id: projectId}})
    expect(all.status, all.text).toBe(200)
    expect(Object.keys(all.body.counts).sort()).toEqual(['flagged', 'never_retrieved', 'similar', 'stale', 'superseded', 'unverified'])
    expect(all.body.counts.flagged).toBeGreaterThanOrEqual(1)
    expect(all.body.counts.stale).toBeGreaterThanOrEqual(1)
    // The counts' staleness is the list filter's, decided another way (a join of each project's cutoff).
    const staleList = await d.request('GET', '/knowledge', {query: {project_id: projectId, freshness: 'stale', limit: 100}})
    expect(all.body.counts.stale).toBe(staleList.body.items.length)
    const flagged = await d.request('GET', '/review', {query: {project_id: projectId, kind: 'flagged'}})
    expect(flagged.body.items.map((i: any) => i.entry.id)).toContain(e.id)
    const item = flagged.body.items.find((i: any) => i.entry.id === e.id)
    expect(item.reasons).toContainEqual({kind: 'flagged', detail: 'incorrect ×1'})
    expect(item.reasons.some((r: any) => r.kind === 'stale')).toBe(true)
    // Ben verifies it: his own flag goes, and it leaves the flagged kind.
    await d.request('POST', `/knowledge/${e.id}/verify`, {body: {}, key: ben})
    const again = await d.request('GET', '/review', {query: {project_id: projectId, kind: 'flagged'}})
    expect(again.body.items.map((i: any) => i.entry.id)).not.toContain(e.id)
    expectProblem(await d.request('GET', '/review', {query: {kind: 'nope'}}), 400)
    expectProblem(await d.request('GET', '/review', {query: {project_id: MISSING_ID}}), 404)
  })
})

describe('supersede and merge in the history and the review queue', () => {
  it('records supersede and merge; a superseded entry is in the queue as superseded alone', async () => {
    // A principal of their own: a principal's queue counts are kept a few seconds (server/services/review.ts).
    const cat = await newPrincipal(d, 'cat')
    const old = await createEntry(d, {scope: 'private', title: 'Restarting the pool by hand'}, cat)
    const kept = await createEntry(d, {scope: 'private', title: 'The pool restarts itself now', tags: ['pool']}, cat)
    const gone = await createEntry(d, {scope: 'private', title: 'A note merged away', tags: ['merged-tag']}, cat)
    const sup = await d.request('POST', `/knowledge/${old.id}/supersede`, {body: {by: kept.id, note: 'use the new one'}, key: cat})
    expect(sup.status, sup.text).toBe(200)
    const merged = await d.request('POST', `/knowledge/${gone.id}/merge`, {body: {into: kept.id}, key: cat})
    expect(merged.status, merged.text).toBe(200)

    const oldHistory = await history(old.id, cat)
    expect(oldHistory.map((h) => h.action)).toEqual(['created', 'superseded'])
    expect(oldHistory[1]).toMatchObject({changes: {superseded_by: `none → ${kept.id}`}, note: 'use the new one'})
    expect(oldHistory[1].actor).toMatchObject({name: 'cat', via: 'api_key'})
    expect((await history(gone.id, cat)).at(-1)).toMatchObject({action: 'superseded', changes: {superseded_by: `none → ${kept.id}`}})
    const keptHistory = await history(kept.id, cat)
    expect(keptHistory.map((h) => h.action)).toEqual(['created', 'edited', 'commented'])
    expect(keptHistory[1].changes).toEqual({tags: '+merged-tag'})

    const queue = await d.request('GET', '/review', {key: cat})
    expect(queue.status, queue.text).toBe(200)
    expect(queue.body.counts.superseded).toBe(2)
    const superseded = await d.request('GET', '/review', {query: {kind: 'superseded'}, key: cat})
    expect(superseded.body.items.map((i: any) => i.entry.id).sort()).toEqual([old.id, gone.id].sort())
    for (const i of superseded.body.items) expect(i.reasons).toEqual([{kind: 'superseded', detail: `superseded by ${kept.id}`}])
    // Retired, it is not also unverified work; the entry that replaced it is.
    const unverified = (await d.request('GET', '/review', {query: {kind: 'unverified'}, key: cat})).body.items.map((i: any) => i.entry.id)
    expect(unverified).toContain(kept.id)
    expect(unverified).not.toContain(old.id)

    // Withdrawn: recorded, and out of the queue's superseded kind.
    expect((await d.request('POST', `/knowledge/${old.id}/supersede`, {body: {by: null}, key: cat})).status).toBe(200)
    expect((await history(old.id, cat)).at(-1)).toMatchObject({
      action: 'superseded',
      changes: {superseded_by: `${kept.id} → none`},
      note: null,
    })
    const after = await d.request('GET', '/review', {query: {kind: 'superseded'}, key: cat})
    expect(after.body.items.map((i: any) => i.entry.id)).toEqual([gone.id])
  })
})
