/**
 * @module Trust in reading (docs/search.md, "Freshness and confidence"): a flagged twin ranks below its fresh twin,
 * `explain` shows the factor, `freshness=fresh|stale` on list and search, the state word at summary, `unverified`
 * by a project's verify_after_days (an entry imported with an old updated_at: an older export file, without the
 * trust fields), and an export → import round trip that keeps anchors, flags and verifications.
 */
import {randomUUID} from 'node:crypto'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {exportText, importText, lines, toNdjson} from '../transfer/support.js'
import {createEntry, joinProject} from './support.js'

const COMMIT = 'a1b2c3d'
const HASH = 'c'.repeat(64)
let d: TestDaemon
let ben: string
let projectId: string
let fresh: Record<string, any>
let flagged: Record<string, any>

beforeAll(async () => {
  d = await startInProcessDaemon()
  projectId = (await joinProject(d, 'git@github.com:acme/ranking.git')).id
  ben = await newPrincipal(d, 'ben', projectId)
  const twin = {title: 'Quagga connection pool exhausted', body: 'Raise quagga max_conns to 40.', scope: 'global', tags: ['twin']}
  fresh = await createEntry(d, twin)
  // The flagged twin is the newer one: on a tie it would rank first, so only the confidence factor puts it second.
  flagged = await createEntry(d, {...twin, anchors: [{path: 'src/pool.ts', lines: '1-9', commit: COMMIT, hash: HASH}]})
  const res = await d.request('POST', `/knowledge/${flagged.id}/flags`, {body: {reason: 'incorrect'}, key: ben})
  expect(res.status).toBe(201)
})
afterAll(async () => {
  await d?.stop()
})

describe('ranking by relevance × confidence', () => {
  it('ranks a flagged twin below its fresh twin; explain shows relevance and the confidence factor', async () => {
    const res = await d.request('GET', '/search', {query: {q: 'quagga pool', explain: true, detail: 'standard'}})
    expect(res.status).toBe(200)
    expect(res.body.items.map((i: any) => i.id)).toEqual([fresh.id, flagged.id])
    const [a, b] = res.body.items
    expect(a.factors.relevance).toBe(b.factors.relevance)
    expect(b.factors.confidence).toBeLessThan(a.factors.confidence)
    expect(b.factors.confidence).toBe(b.confidence)
    for (const hit of [a, b]) expect(hit.score).toBeCloseTo(hit.factors.relevance * hit.factors.confidence, 3)
    // Without explain there are no factors; the order is the same.
    const plain = await d.request('GET', '/search', {query: {q: 'quagga pool'}})
    expect(plain.body.items.map((i: any) => i.id)).toEqual([fresh.id, flagged.id])
    expect(plain.body.items[0].factors).toBeUndefined()
  })

  it('summary items carry the state word', async () => {
    const res = await d.request('GET', '/search', {query: {q: 'quagga', detail: 'summary'}})
    expect(res.body.items.map((i: any) => i.freshness)).toEqual(['fresh', 'stale'])
    const listed = await d.request('GET', '/knowledge', {query: {tag: 'twin', detail: 'summary'}})
    expect(Object.fromEntries(listed.body.items.map((i: any) => [i.id, i.freshness]))).toEqual({[fresh.id]: 'fresh', [flagged.id]: 'stale'})
  })

  it('freshness=fresh|stale filters list and search, with total counting only what passes', async () => {
    const ids = async (path: string, query: Record<string, string>): Promise<string[]> =>
      (await d.request('GET', path, {query})).body.items.map((i: any) => i.id)
    expect(await ids('/knowledge', {tag: 'twin', freshness: 'stale'})).toEqual([flagged.id])
    expect(await ids('/knowledge', {tag: 'twin', freshness: 'fresh'})).toEqual([fresh.id])
    expect(await ids('/search', {q: 'quagga', freshness: 'stale'})).toEqual([flagged.id])
    expect(await ids('/search', {q: 'quagga', freshness: 'fresh'})).toEqual([fresh.id])
    expect((await d.request('GET', '/search', {query: {q: 'quagga', freshness: 'fresh'}})).body.total).toBe(1)
    expect((await d.request('GET', '/knowledge', {query: {freshness: 'old'}})).status).toBe(400)
  })
})

describe('unverified: older than the project asks', () => {
  it("an entry last changed 400 days ago is stale under the default 180 days; the project's setting decides", async () => {
    const id = randomUUID()
    const old = new Date(Date.now() - 400 * 86_400_000).toISOString()
    // A line as a kb before trust wrote it: no anchors, flags or verifications.
    const file = toNdjson([
      {kind: 'kb-export', version: 1},
      {
        kind: 'entry',
        id,
        title: 'Wombat cache warmup',
        body: 'Warm the wombat cache.',
        scope: 'project',
        project_id: projectId,
        created_at: old,
        updated_at: old,
      },
    ])
    const imported = await importText(d, file)
    expect(imported.status, JSON.stringify(imported.body)).toBe(200)
    const get = async (): Promise<Record<string, any>> => (await d.request('GET', `/knowledge/${id}`)).body
    const before = await get()
    expect(before.freshness.state).toBe('stale')
    expect(before.freshness.reasons).toMatchObject([{kind: 'unverified', detail: 'not verified in 400 days (the project asks every 180)'}])
    // Age alone never takes a score below 0.7.
    expect(before.confidence).toBeGreaterThanOrEqual(0.7)
    expect(
      (await d.request('GET', '/knowledge', {query: {project_id: projectId, freshness: 'stale'}})).body.items.map((i: any) => i.id),
    ).toContain(id)
    expect((await d.request('PATCH', `/projects/${projectId}`, {body: {verify_after_days: 0}})).status).toBe(200)
    expect((await get()).freshness).toMatchObject({state: 'fresh', reasons: []})
    expect(
      (await d.request('GET', '/knowledge', {query: {project_id: projectId, freshness: 'fresh'}})).body.items.map((i: any) => i.id),
    ).toContain(id)
    await d.request('PATCH', `/projects/${projectId}`, {body: {verify_after_days: 500}})
    expect((await get()).freshness.state).toBe('fresh')
    await d.request('PATCH', `/projects/${projectId}`, {body: {verify_after_days: 30}})
    expect((await get()).freshness.state).toBe('stale')
    // A verification makes it fresh again and raises its confidence.
    const verified = await d.request('POST', `/knowledge/${id}/verify`, {body: {}, key: ben})
    expect(verified.body.freshness.state).toBe('fresh')
    expect(verified.body.confidence).toBeGreaterThan(before.confidence)
    expect(verified.body.updated_at).toBe(old)
    await d.request('PATCH', `/projects/${projectId}`, {body: {verify_after_days: 180}})
  })
})

describe('export → import', () => {
  it('keeps anchors, open flags, verifications and the project setting, and a second import changes nothing', async () => {
    await d.request('POST', `/knowledge/${fresh.id}/verify`, {body: {}, key: ben})
    await d.request('PATCH', `/projects/${projectId}`, {body: {verify_after_days: 90}})
    const text = await exportText(d)
    const line = lines(text).find((r) => r.id === flagged.id)
    expect(line.open_flags).toMatchObject([{by: {name: 'ben'}, reason: 'incorrect'}])
    expect(line.flags).toBeUndefined()
    const dst = await startInProcessDaemon()
    try {
      const first = await importText(dst, text)
      expect(first.status, JSON.stringify(first.body)).toBe(200)
      for (const id of [fresh.id, flagged.id]) {
        const [a, b] = await Promise.all([d.request('GET', `/knowledge/${id}`), dst.request('GET', `/knowledge/${id}`)])
        for (const field of ['anchors', 'flags', 'freshness', 'confidence', 'version', 'updated_at'])
          expect(b.body[field], `${id} ${field}`).toEqual(a.body[field])
      }
      expect((await dst.request('GET', `/projects/${projectId}`)).body.verify_after_days).toBe(90)
      const again = await importText(dst, text, {on_conflict: 'overwrite'})
      expect(again.body).toMatchObject({created: 0, updated: 0})
    } finally {
      await dst.stop()
      await d.request('PATCH', `/projects/${projectId}`, {body: {verify_after_days: 180}})
    }
  })
})
