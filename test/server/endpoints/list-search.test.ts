/**
 * @module GET /knowledge (defaults, keyset pagination over a whole list, every filter) and GET /search
 * (defaults, detail levels, score, total, filters) against a real daemon.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {createEntry, joinProject, keysOf, listAll, STANDARD_FIELDS, SUMMARY_FIELDS, FULL_FIELDS, tick} from './support.js'

let d: TestDaemon
let bob: string
let bobId: string
let projectId: string
let otherProjectId: string
const created: Array<Record<string, any>> = []

beforeAll(async () => {
  d = await startInProcessDaemon()
  projectId = (await joinProject(d, 'https://github.com/acme/list.git')).id
  otherProjectId = (await joinProject(d, 'https://github.com/acme/other.git')).id
  bob = await newPrincipal(d, 'bob', projectId)
  bobId = (await d.request('GET', '/api-keys', {key: bob})).body.items[0].principal.id
  // 47 entries: 2.35 pages of 20, with a spread of scopes, projects, tags, statuses and authors.
  for (let i = 0; i < 47; i++) {
    const byBob = i % 5 === 0
    const scope = i % 3 === 0 ? 'global' : i % 3 === 1 ? 'project' : 'private'
    const project = scope === 'project' ? (i % 2 === 0 || byBob ? projectId : otherProjectId) : null
    const e = await createEntry(
      d,
      {
        title: `Entry number ${i}`,
        body: `Body of entry ${i}. ${i % 4 === 0 ? 'The widget crashed again.' : 'Nothing special.'}`,
        scope,
        project_id: project,
        tags: i % 2 === 0 ? ['even', `n${i}`] : ['odd'],
      },
      byBob ? bob : undefined,
    )
    created.push(e)
  }
  // Resolve a few, which also moves them to the front (newest updated_at first).
  for (const i of [3, 9, 12]) {
    await tick()
    const res = await d.request('POST', `/knowledge/${created[i]!.id}/resolve`)
    expect(res.status).toBe(200)
    created[i] = res.body
  }
})
afterAll(async () => {
  await d.stop()
})

/** What the owner may see of `created` (it is a member of both projects; bob's private entries are hidden). */
function ownerVisible(): Array<Record<string, any>> {
  return created.filter((e) => e.scope !== 'private' || e.author.name === 'owner')
}

function newestFirst(a: Record<string, any>, b: Record<string, any>): number {
  return a.updated_at === b.updated_at ? (a.id < b.id ? 1 : -1) : a.updated_at < b.updated_at ? 1 : -1
}

describe('GET /knowledge', () => {
  it('defaults to 20 items at standard detail, newest updated_at first, with a cursor', async () => {
    const res = await d.request('GET', '/knowledge')
    expect(res.status).toBe(200)
    expect(keysOf(res.body)).toEqual(['items', 'next_cursor'])
    expect(res.body.items).toHaveLength(20)
    for (const item of res.body.items) expect(keysOf(item)).toEqual(STANDARD_FIELDS)
    expect(typeof res.body.next_cursor).toBe('string')
    const expected = ownerVisible()
      .sort(newestFirst)
      .slice(0, 20)
      .map((e) => e.id)
    expect(res.body.items.map((e: {id: string}) => e.id)).toEqual(expected)
    // The resolved ones were touched last.
    expect(res.body.items.slice(0, 3).map((e: {id: string}) => e.id)).toEqual([created[12]!.id, created[9]!.id, created[3]!.id])
  })

  it('walks the whole list through cursors with no duplicates or omissions', async () => {
    for (const limit of [1, 7, 20, 100]) {
      const seen: string[] = []
      let cursor: string | undefined
      let pages = 0
      do {
        const res = await d.request('GET', '/knowledge', {query: {limit, cursor, detail: 'summary'}})
        expect(res.status).toBe(200)
        expect(res.body.items.length).toBeLessThanOrEqual(limit)
        for (const item of res.body.items) expect(keysOf(item)).toEqual(SUMMARY_FIELDS)
        seen.push(...res.body.items.map((e: {id: string}) => e.id))
        cursor = res.body.next_cursor ?? undefined
        pages++
      } while (cursor !== undefined)
      const expected = ownerVisible()
        .sort(newestFirst)
        .map((e) => e.id)
      expect(seen).toEqual(expected)
      expect(new Set(seen).size).toBe(seen.length)
      expect(pages).toBe(Math.max(1, Math.ceil(expected.length / limit)))
    }
  })

  it('a page that exactly ends the list has next_cursor null', async () => {
    const total = ownerVisible().length
    const res = await d.request('GET', '/knowledge', {query: {limit: total}})
    expect(res.body.items).toHaveLength(total)
    expect(res.body.next_cursor).toBeNull()
  })

  it('detail=full gives full items', async () => {
    const res = await d.request('GET', '/knowledge', {query: {limit: 2, detail: 'full'}})
    for (const item of res.body.items) expect(keysOf(item)).toEqual(FULL_FIELDS)
  })

  it('filters by tag (case-insensitively), status, author id or name, scope and project_id', async () => {
    const ids = (items: Array<{id: string}>): string[] => items.map((e) => e.id).sort()
    const expectIds = (items: Array<Record<string, any>>): string[] => items.map((e) => e.id).sort()
    const vis = ownerVisible()
    expect(ids(await listAll(d, {tag: 'even'}))).toEqual(expectIds(vis.filter((e) => e.tags.includes('even'))))
    expect(ids(await listAll(d, {tag: 'EVEN'}))).toEqual(expectIds(vis.filter((e) => e.tags.includes('even'))))
    expect(ids(await listAll(d, {tag: 'n4'}))).toEqual([created[4]!.id])
    expect(ids(await listAll(d, {tag: 'nope'}))).toEqual([])
    expect(ids(await listAll(d, {status: 'resolved'}))).toEqual(expectIds([created[3]!, created[9]!, created[12]!]))
    expect(ids(await listAll(d, {status: 'open'}))).toEqual(expectIds(vis.filter((e) => e.status === 'open')))
    const bobsVisible = expectIds(vis.filter((e) => e.author.name === 'bob'))
    expect(bobsVisible.length).toBeGreaterThan(0)
    expect(ids(await listAll(d, {author: 'bob'}))).toEqual(bobsVisible)
    expect(ids(await listAll(d, {author: bobId}))).toEqual(bobsVisible)
    expect(ids(await listAll(d, {author: bobId.toUpperCase()}))).toEqual(bobsVisible)
    expect(ids(await listAll(d, {author: 'nobody-at-all'}))).toEqual([])
    for (const scope of ['private', 'project', 'global']) {
      expect(ids(await listAll(d, {scope}))).toEqual(expectIds(vis.filter((e) => e.scope === scope)))
    }
    // With project_id: that project's entries, plus global ones, plus the caller's own private ones.
    const inProject =
      (p: string) =>
      (e: Record<string, any>): boolean =>
        e.project_id === p || e.scope === 'global' || (e.scope === 'private' && e.author.name === 'owner')
    expect(ids(await listAll(d, {project_id: projectId}))).toEqual(expectIds(vis.filter(inProject(projectId))))
    expect(ids(await listAll(d, {project_id: otherProjectId}))).toEqual(expectIds(vis.filter(inProject(otherProjectId))))
    expect(ids(await listAll(d, {project_id: projectId, scope: 'project'}))).toEqual(
      expectIds(vis.filter((e) => e.scope === 'project' && e.project_id === projectId)),
    )
    // Filters combine.
    expect(ids(await listAll(d, {tag: 'even', scope: 'global', status: 'open'}))).toEqual(
      expectIds(vis.filter((e) => e.tags.includes('even') && e.scope === 'global' && e.status === 'open')),
    )
  })

  it('a project_id you are not a member of (or that does not exist) is 404 on /knowledge and /search', async () => {
    for (const [path, extra] of [
      ['/knowledge', ''],
      ['/search', '&q=widget'],
    ] as const) {
      for (const [pid, key] of [
        [otherProjectId, bob],
        ['0193e0a1-0000-7000-8000-000000000000', undefined],
      ] as const) {
        const res = await d.request('GET', `${path}?project_id=${pid}${extra}`, key ? {key} : {})
        expect(res.status, `${path} ${pid}`).toBe(404)
        expect(res.body).toMatchObject({code: 'not_found', errors: [{path: 'project_id'}]})
      }
    }
    expect((await d.request('GET', `/search?project_id=${projectId}&q=widget`, {key: bob})).status).toBe(200)
  })

  it('shows bob only what bob may see', async () => {
    const items = await listAll(d, {}, bob)
    const expected = created.filter(
      (e) => e.scope === 'global' || e.author.name === 'bob' || (e.scope === 'project' && e.project_id === projectId),
    )
    expect(items.map((e) => e.id).sort()).toEqual(expected.map((e) => e.id).sort())
  })
})

describe('GET /search', () => {
  it('defaults to summary items with a score, best first, limit 10, next_cursor null and total', async () => {
    const res = await d.request('GET', '/search', {query: {q: 'entry'}})
    expect(res.status).toBe(200)
    expect(keysOf(res.body)).toEqual(['items', 'next_cursor', 'total'])
    expect(res.body.items).toHaveLength(10)
    expect(res.body.next_cursor).toBeNull()
    expect(res.body.total).toBe(ownerVisible().length)
    for (const item of res.body.items) {
      expect(keysOf(item)).toEqual([...SUMMARY_FIELDS, 'score'].sort())
      expect(typeof item.score).toBe('number')
    }
    const scores = res.body.items.map((i: {score: number}) => i.score)
    expect([...scores].sort((a, b) => b - a)).toEqual(scores)
  })

  it('honours limit and detail', async () => {
    const res = await d.request('GET', '/search', {query: {q: 'entry', limit: 100, detail: 'standard'}})
    expect(res.body.items).toHaveLength(ownerVisible().length)
    for (const item of res.body.items) expect(keysOf(item)).toEqual([...STANDARD_FIELDS, 'score'].sort())
    const full = await d.request('GET', '/search', {query: {q: 'entry', limit: 3, detail: 'full'}})
    expect(full.body.items).toHaveLength(3)
    for (const item of full.body.items) expect(keysOf(item)).toEqual([...FULL_FIELDS, 'score'].sort())
  })

  it('matches stemmed forms and filters like the list', async () => {
    const crashy = ownerVisible().filter((e) => e.body.includes('crashed'))
    const res = await d.request('GET', '/search', {query: {q: 'crash', limit: 100}})
    expect(res.body.items.map((e: {id: string}) => e.id).sort()).toEqual(crashy.map((e) => e.id).sort())
    expect(res.body.total).toBe(crashy.length)
    const scoped = await d.request('GET', '/search', {query: {q: 'crash', limit: 100, scope: 'global', status: 'open', tag: 'even'}})
    expect(scoped.body.items.map((e: {id: string}) => e.id).sort()).toEqual(
      crashy
        .filter((e) => e.scope === 'global' && e.status === 'open' && e.tags.includes('even'))
        .map((e) => e.id)
        .sort(),
    )
    const byBob = await d.request('GET', '/search', {query: {q: 'crash', limit: 100, author: 'bob'}})
    expect(byBob.body.items.map((e: {id: string}) => e.id).sort()).toEqual(
      crashy
        .filter((e) => e.author.name === 'bob')
        .map((e) => e.id)
        .sort(),
    )
    const inProject = await d.request('GET', '/search', {query: {q: 'entry', limit: 100, project_id: otherProjectId}})
    expect(inProject.body.items.map((e: {id: string}) => e.id).sort()).toEqual(
      ownerVisible()
        .filter((e) => e.project_id === otherProjectId || e.scope === 'global' || e.scope === 'private')
        .map((e) => e.id)
        .sort(),
    )
  })

  it('says nothing matched with total 0', async () => {
    const res = await d.request('GET', '/search', {query: {q: 'xylophonequartz'}})
    expect(res.body).toEqual({items: [], next_cursor: null, total: 0})
  })

  it('explain adds matched and snippet; max_tokens packs and reports', async () => {
    const res = await d.request('GET', '/search', {query: {q: 'crashed widget', explain: true, limit: 2}})
    expect(res.body.items.length).toBeGreaterThan(0)
    for (const item of res.body.items) {
      expect(item.matched.fields).toContain('body')
      expect(typeof item.snippet).toBe('string')
    }
    const packed = await d.request('GET', '/search', {query: {q: 'entry', limit: 100, max_tokens: 300}})
    expect(packed.body.tokens_used).toBeLessThanOrEqual(300)
    expect(packed.body.truncated).toBe(true)
    expect(packed.body.items.length).toBeGreaterThan(0)
    expect(packed.body.items.length).toBeLessThan(ownerVisible().length)
  })
})
