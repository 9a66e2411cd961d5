/**
 * @module Success paths of the /knowledge endpoints (docs/api.md) against a real daemon: exact shapes per
 * detail level, headers, defaults, version bumps, If-Match, reopen, delete and fork semantics.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, queryStore, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {
  createEntry,
  expectProblem,
  CREATED_FIELDS,
  FULL_FIELDS,
  ISO_RE,
  joinProject,
  keysOf,
  STANDARD_FIELDS,
  SUMMARY_FIELDS,
  tick,
  UUID_RE,
} from './support.js'

let d: TestDaemon
let ownerId: string
let projectId: string
let alice: string

beforeAll(async () => {
  d = await startInProcessDaemon()
  const p = await joinProject(d, 'git@github.com:acme/knowledge-tests.git')
  projectId = p.id
  alice = await newPrincipal(d, 'alice')
  const keys = await d.request('GET', '/api-keys')
  ownerId = keys.body.items[0].principal.id
})
afterAll(async () => {
  await d.stop()
})

describe('POST /knowledge', () => {
  it('answers 201 with the entry at full detail, Location and ETag', async () => {
    const res = await d.request('POST', '/knowledge', {
      body: {
        title: '  EADDRINUSE on start  ',
        body: '# Port taken\n\nThe daemon fails when port 7411 is held.\n\nMore text.',
        tags: ['Daemon', 'ports', 'daemon'],
        url: 'https://github.com/acme/api/issues/7',
        thought_chain: [
          {thought: 'The port is in use', kind: 'observation'},
          {thought: 'Stop the old daemon', kind: 'action'},
          {thought: 'Default kind'},
        ],
      },
    })
    expect(res.status).toBe(201)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const e = res.body
    expect(keysOf(e)).toEqual(CREATED_FIELDS)
    expect(e.similar).toEqual([])
    expect(e.id).toMatch(UUID_RE)
    expect(res.headers.get('location')).toBe(`/api/v1/knowledge/${e.id}`)
    expect(res.headers.get('etag')).toBe('"1"')
    expect(e).toMatchObject({
      title: 'EADDRINUSE on start',
      body: '# Port taken\n\nThe daemon fails when port 7411 is held.\n\nMore text.',
      status: 'open',
      tags: ['daemon', 'ports'],
      url: 'https://github.com/acme/api/issues/7',
      scope: 'private',
      project_id: null,
      forked_from: null,
      version: 1,
      comment_count: 0,
      comments: [],
      branches: [],
      resolution: null,
      author: {id: ownerId, name: 'owner'},
      thought_chain: [
        {step: 1, thought: 'The port is in use', kind: 'observation'},
        {step: 2, thought: 'Stop the old daemon', kind: 'action'},
        {step: 3, thought: 'Default kind', kind: 'observation'},
      ],
    })
    expect(e.created_at).toMatch(ISO_RE)
    expect(e.updated_at).toBe(e.created_at)
    // The Location names the entry.
    const got = await d.request('GET', res.headers.get('location')!.replace('/api/v1', ''))
    expect(got.status).toBe(200)
    expect(got.body.id).toBe(e.id)
  })

  it('gives a Location without doubled slashes when the path had a trailing slash', async () => {
    const res = await d.request('POST', '/knowledge/', {body: {title: 'Trailing slash', body: 'x'}})
    expect(res.status).toBe(201)
    expect(res.headers.get('location')).toBe(`/api/v1/knowledge/${res.body.id}`)
  })

  it('defaults scope to project when a project is known, else private', async () => {
    expect((await createEntry(d, {})).scope).toBe('private')
    const withProject = await createEntry(d, {project_id: projectId})
    expect(withProject).toMatchObject({scope: 'project', project_id: projectId})
    // A key bound to a project makes the project known.
    const bound = await d.request('POST', '/api-keys', {body: {name: 'bound', project_id: projectId}})
    expect(bound.status).toBe(201)
    const viaKey = await createEntry(d, {}, bound.body.key)
    expect(viaKey).toMatchObject({scope: 'project', project_id: projectId})
    // An explicit null means "no project" even with a bound key.
    expect(await createEntry(d, {project_id: null}, bound.body.key)).toMatchObject({scope: 'private', project_id: null})
    // A private entry may carry a project; a global one is global.
    expect(await createEntry(d, {project_id: projectId, scope: 'private'})).toMatchObject({scope: 'private', project_id: projectId})
    expect(await createEntry(d, {scope: 'global'})).toMatchObject({scope: 'global', project_id: null})
  })

  it('accepts upper-case project ids and stores them lower case', async () => {
    const e = await createEntry(d, {project_id: projectId.toUpperCase()})
    expect(e.project_id).toBe(projectId)
  })
})

describe('GET /knowledge/:id', () => {
  let e: Record<string, any>
  beforeAll(async () => {
    e = await createEntry(d, {
      title: 'Detail levels',
      body: 'First paragraph of the body.\n\nSecond paragraph with **more** detail.',
      tags: ['levels'],
      project_id: projectId,
      thought_chain: [{thought: 'why'}],
    })
  })

  it('defaults to standard: exactly the standard fields, whole body, ETag', async () => {
    const res = await d.request('GET', `/knowledge/${e.id}`)
    expect(res.status).toBe(200)
    // GET by id adds the entry's web page (docs/api.md, "Web view") to the standard fields.
    const {web_url, ...body} = res.body
    expect(web_url).toBe(`${d.url.replace(/\/api\/v1$/, '')}/e/${e.id}`)
    expect(keysOf(body)).toEqual(STANDARD_FIELDS)
    expect(res.headers.get('etag')).toBe('"1"')
    const {comments, comments_truncated, branches, thought_chain, resolution, ...standard} = e
    expect(body).toEqual(standard)
    expect(comments).toEqual([])
    expect(comments_truncated).toBe(false)
    expect(branches).toEqual([])
    expect(thought_chain).toHaveLength(1)
    expect(resolution).toBeNull()
  })

  it('summary is exactly id, title, body (summary form) and status', async () => {
    const res = await d.request('GET', `/knowledge/${e.id}`, {query: {detail: 'summary'}})
    expect(res.status).toBe(200)
    expect(keysOf(res.body)).toEqual(SUMMARY_FIELDS)
    expect(res.body).toEqual({id: e.id, title: 'Detail levels', body: 'First paragraph of the body.', status: 'open', freshness: 'fresh'})
    expect(res.headers.get('etag')).toBe('"1"')
  })

  it('full adds comments, thought_chain, branches and resolution', async () => {
    const res = await d.request('GET', `/knowledge/${e.id}`, {query: {detail: 'full'}})
    const {web_url, ...body} = res.body
    expect(web_url).toMatch(new RegExp(`/e/${e.id}$`))
    expect(keysOf(body)).toEqual(FULL_FIELDS)
    expect(body).toEqual(e)
  })

  it('accepts an upper-case id', async () => {
    const res = await d.request('GET', `/knowledge/${e.id.toUpperCase()}`)
    expect(res.status).toBe(200)
    expect(res.body.id).toBe(e.id)
  })
})

describe('PATCH /knowledge/:id', () => {
  it('changes fields, bumps version and updated_at, answers the full entry with ETag', async () => {
    const e = await createEntry(d, {title: 'Before', tags: ['a']})
    await tick()
    const res = await d.request('PATCH', `/knowledge/${e.id}`, {
      body: {
        title: 'After',
        body: 'New body.',
        tags: ['B', 'c'],
        url: 'http://example.com/x',
        thought_chain: [{thought: 'because', kind: 'conclusion'}],
      },
    })
    expect(res.status).toBe(200)
    expect(keysOf(res.body)).toEqual(FULL_FIELDS)
    expect(res.headers.get('etag')).toBe('"2"')
    expect(res.body).toMatchObject({
      id: e.id,
      title: 'After',
      body: 'New body.',
      tags: ['b', 'c'],
      url: 'http://example.com/x',
      version: 2,
      thought_chain: [{step: 1, thought: 'because', kind: 'conclusion'}],
      created_at: e.created_at,
    })
    expect(res.body.updated_at > e.updated_at).toBe(true)
    const summary = await d.request('GET', `/knowledge/${e.id}`, {query: {detail: 'summary'}})
    expect(summary.body).toEqual({id: e.id, title: 'After', body: 'New body.', status: 'open', freshness: 'fresh'})
    // url: null clears it.
    const cleared = await d.request('PATCH', `/knowledge/${e.id}`, {body: {url: null}})
    expect(cleared.body).toMatchObject({url: null, version: 3})
  })

  it('is guarded by If-Match: a stale version is 412 with the current ETag, the right one succeeds', async () => {
    const e = await createEntry(d, {title: 'Guarded'})
    const ok = await d.request('PATCH', `/knowledge/${e.id}`, {body: {title: 'Guarded 2'}, headers: {'if-match': '"1"'}})
    expect(ok.status).toBe(200)
    expect(ok.headers.get('etag')).toBe('"2"')
    const stale = await d.request('PATCH', `/knowledge/${e.id}`, {body: {title: 'Lost update'}, headers: {'if-match': '"1"'}})
    expectProblem(stale, 412)
    expect(stale.headers.get('etag')).toBe('"2"')
    const after = await d.request('GET', `/knowledge/${e.id}`)
    expect(after.body).toMatchObject({title: 'Guarded 2', version: 2})
    // Weak form, lists and * are accepted.
    expect((await d.request('PATCH', `/knowledge/${e.id}`, {body: {title: 'Guarded 3'}, headers: {'if-match': 'W/"2"'}})).status).toBe(200)
    expect((await d.request('PATCH', `/knowledge/${e.id}`, {body: {title: 'Guarded 4'}, headers: {'if-match': '"1", "3"'}})).status).toBe(
      200,
    )
    expect((await d.request('PATCH', `/knowledge/${e.id}`, {body: {title: 'Guarded 5'}, headers: {'if-match': '*'}})).status).toBe(200)
    expectProblem(await d.request('PATCH', `/knowledge/${e.id}`, {body: {title: 'x'}, headers: {'if-match': '"abc"'}}), 412)
  })

  it('under concurrent writes: one If-Match winner, the rest 412; unguarded edits all count, comments leave the version', async () => {
    const e = await createEntry(d, {title: 'Raced', scope: 'global'})
    const racers = await Promise.all(
      Array.from({length: 10}, (_, i) =>
        d.request('PATCH', `/knowledge/${e.id}`, {body: {title: `Racer ${i}`}, headers: {'if-match': '"1"'}}),
      ),
    )
    expect(racers.filter((r) => r.status === 200)).toHaveLength(1)
    for (const r of racers.filter((x) => x.status !== 200)) expectProblem(r, 412)
    const writes = await Promise.all([
      ...Array.from({length: 8}, (_, i) => d.request('PATCH', `/knowledge/${e.id}`, {body: {body: `Body ${i}`}})),
      ...Array.from({length: 8}, (_, i) => d.request('POST', `/knowledge/${e.id}/comments`, {key: alice, body: {body: `c${i}`}})),
    ])
    for (const w of writes) expect([200, 201]).toContain(w.status)
    const after = await d.request('GET', `/knowledge/${e.id}`, {query: {detail: 'full'}})
    expect(after.body).toMatchObject({version: 2 + 8, comment_count: 8})
    expect(after.body.comments).toHaveLength(8)
  })

  it('status "resolved" resolves, status "open" reopens and clears the resolution', async () => {
    const e = await createEntry(d, {title: 'Reopen me'})
    const resolved = await d.request('POST', `/knowledge/${e.id}/resolve`, {body: {note: 'fixed'}})
    expect(resolved.body).toMatchObject({status: 'resolved', version: 2})
    const reopened = await d.request('PATCH', `/knowledge/${e.id}`, {body: {status: 'open'}})
    expect(reopened.status).toBe(200)
    expect(reopened.body).toMatchObject({status: 'open', resolution: null, version: 3})
    expect(reopened.headers.get('etag')).toBe('"3"')
    const viaPatch = await d.request('PATCH', `/knowledge/${e.id}`, {body: {status: 'resolved'}})
    expect(viaPatch.body).toMatchObject({
      status: 'resolved',
      version: 4,
      resolution: {note: null, url: null, resolved_by: {id: ownerId, name: 'owner'}},
    })
    expect(viaPatch.body.resolution.resolved_at).toMatch(ISO_RE)
  })

  it('a PATCH that changes nothing keeps the version', async () => {
    const e = await createEntry(d, {title: 'Same', tags: ['x']})
    const res = await d.request('PATCH', `/knowledge/${e.id}`, {body: {title: 'Same', tags: ['X']}})
    expect(res.status).toBe(200)
    expect(res.body.version).toBe(1)
    const empty = await d.request('PATCH', `/knowledge/${e.id}`)
    expect(empty.status).toBe(200)
    expect(empty.body.version).toBe(1)
  })
})

describe('DELETE /knowledge/:id', () => {
  it('answers 204, removes the entry and its comments, and keeps its forks with forked_from', async () => {
    const parent = await createEntry(d, {title: 'Doomed parent', scope: 'global'})
    const c = await d.request('POST', `/knowledge/${parent.id}/comments`, {body: {body: 'a comment'}})
    expect(c.status).toBe(201)
    const fork = await d.request('POST', `/knowledge/${parent.id}/fork`, {key: alice})
    expect(fork.status).toBe(201)
    const del = await d.request('DELETE', `/knowledge/${parent.id}`)
    expect(del.status).toBe(204)
    expect(del.text).toBe('')
    expectProblem(await d.request('GET', `/knowledge/${parent.id}`), 404)
    expectProblem(await d.request('DELETE', `/knowledge/${parent.id}`), 404)
    const kept = await d.request('GET', `/knowledge/${fork.body.id}`, {key: alice, query: {detail: 'full'}})
    expect(kept.status).toBe(200)
    expect(kept.body.forked_from).toBe(parent.id)
    // The comment is gone from the store, not just hidden.
    expect(await queryStore(d, 'SELECT count(*) AS n FROM comments WHERE id = ?', [c.body.id])).toEqual([{n: 0}])
    // A deleted parent cannot be forked.
    expectProblem(await d.request('POST', `/knowledge/${parent.id}/fork`, {key: alice}), 404)
  })

  it('honours If-Match', async () => {
    const e = await createEntry(d, {title: 'Delete guarded'})
    await d.request('PATCH', `/knowledge/${e.id}`, {body: {title: 'Delete guarded 2'}})
    expectProblem(await d.request('DELETE', `/knowledge/${e.id}`, {headers: {'if-match': '"1"'}}), 412)
    expect((await d.request('DELETE', `/knowledge/${e.id}`, {headers: {'if-match': '"2"'}})).status).toBe(204)
  })
})

describe('POST /knowledge/:id/resolve', () => {
  it('resolves with note and url, bumps the version, and is idempotent', async () => {
    const e = await createEntry(d, {title: 'To resolve'})
    const res = await d.request('POST', `/knowledge/${e.id}/resolve`, {
      body: {note: 'Fixed by restarting', url: 'https://example.com/commit/1'},
    })
    expect(res.status).toBe(200)
    expect(keysOf(res.body)).toEqual(FULL_FIELDS)
    expect(res.headers.get('etag')).toBe('"2"')
    expect(res.body).toMatchObject({
      status: 'resolved',
      version: 2,
      resolution: {note: 'Fixed by restarting', url: 'https://example.com/commit/1', resolved_by: {id: ownerId, name: 'owner'}},
    })
    expect(res.body.resolution.resolved_at).toMatch(ISO_RE)
    const again = await d.request('POST', `/knowledge/${e.id}/resolve`, {body: {note: 'different note'}})
    expect(again.status).toBe(200)
    expect(again.body).toEqual(res.body)
    expect(again.headers.get('etag')).toBe('"2"')
  })

  it('works with no body and no Content-Type', async () => {
    const e = await createEntry(d, {title: 'Bare resolve'})
    const res = await d.request('POST', `/knowledge/${e.id}/resolve`, {contentType: null})
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({status: 'resolved', resolution: {note: null, url: null}})
  })
})

describe('POST /knowledge/:id/comments', () => {
  it('answers 201 with the comment, bumps comment_count but not the version (no edit conflicts with it); full view lists comments oldest first', async () => {
    const e = await createEntry(d, {title: 'Commented', scope: 'global'})
    const first = await d.request('POST', `/knowledge/${e.id}/comments`, {body: {body: 'First!'}})
    expect(first.status).toBe(201)
    expect(keysOf(first.body)).toEqual(['author', 'body', 'created_at', 'id', 'type'])
    expect(first.body).toMatchObject({body: 'First!', type: 'note', author: {id: ownerId, name: 'owner'}})
    expect(first.body.id).toMatch(UUID_RE)
    expect(first.body.created_at).toMatch(ISO_RE)
    const second = await d.request('POST', `/knowledge/${e.id}/comments`, {key: alice, body: {body: 'Also on macOS', type: 'supplement'}})
    expect(second.status).toBe(201)
    expect(second.body).toMatchObject({type: 'supplement', author: {name: 'alice'}})
    for (const type of ['correction', 'question']) {
      expect((await d.request('POST', `/knowledge/${e.id}/comments`, {body: {body: type, type}})).body.type).toBe(type)
    }
    const full = await d.request('GET', `/knowledge/${e.id}`, {query: {detail: 'full'}})
    expect(full.body).toMatchObject({version: 1, comment_count: 4, updated_at: e.updated_at})
    expect(full.headers.get('etag')).toBe('"1"')
    // So an edit read before the comments still lands.
    const edit = await d.request('PATCH', `/knowledge/${e.id}`, {body: {title: 'Commented, edited'}, headers: {'if-match': '"1"'}})
    expect(edit.body).toMatchObject({title: 'Commented, edited', version: 2})
    expect(full.body.comments.map((c: {body: string}) => c.body)).toEqual(['First!', 'Also on macOS', 'correction', 'question'])
    expect(full.body.comments[0]).toEqual(first.body)
    // Comments leave updated_at where the last change of the content put it.
    expect(full.body.updated_at).toBe(e.updated_at)
    const standard = await d.request('GET', `/knowledge/${e.id}`)
    expect(standard.body.comment_count).toBe(4)
    expect(full.body.comments_truncated).toBe(false)
  })
})

describe('GET /knowledge/:id/comments, and the comments of the full view', () => {
  it('full carries the newest 50 (oldest first) and comments_truncated; the listing pages all of them in writing order', async () => {
    const e = await createEntry(d, {title: 'Long discussion', scope: 'global'})
    const bodies = Array.from({length: 120}, (_, i) => `comment ${i}`)
    for (const body of bodies) expect((await d.request('POST', `/knowledge/${e.id}/comments`, {body: {body}})).status).toBe(201)

    const full = await d.request('GET', `/knowledge/${e.id}`, {query: {detail: 'full'}})
    expect(full.body).toMatchObject({comment_count: 120, comments_truncated: true})
    expect(full.body.comments.map((c: {body: string}) => c.body)).toEqual(bodies.slice(70))

    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const res: {status: number; body: {items: Array<{body: string}>; next_cursor: string | null}} = await d.request(
        'GET',
        `/knowledge/${e.id}/comments`,
        {key: alice, query: {limit: 50, ...(cursor ? {cursor} : {})}},
      )
      expect(res.status).toBe(200)
      expect(keysOf(res.body)).toEqual(['items', 'next_cursor'])
      seen.push(...res.body.items.map((c) => c.body))
      cursor = res.body.next_cursor
      pages++
    } while (cursor)
    expect(pages).toBe(3)
    expect(seen).toEqual(bodies)
    const dflt = await d.request('GET', `/knowledge/${e.id}/comments`)
    expect(dflt.body.items).toHaveLength(50)
    expect(dflt.body.items[0]).toEqual(expect.objectContaining({body: 'comment 0', type: 'note', author: {id: ownerId, name: 'owner'}}))
  })

  it('refuses a cursor it did not make, a limit over 100, and an entry the caller cannot see', async () => {
    const e = await createEntry(d, {title: 'Private discussion', scope: 'private'})
    expectProblem(await d.request('GET', `/knowledge/${e.id}/comments`, {query: {cursor: 'bm90IG91cnM'}}), 400, ['cursor'])
    expectProblem(await d.request('GET', `/knowledge/${e.id}/comments`, {query: {limit: 101}}), 400)
    expectProblem(await d.request('GET', `/knowledge/${e.id}/comments`, {key: alice}), 404)
    expect((await d.request('GET', `/knowledge/${e.id}/comments`)).body).toEqual({items: [], next_cursor: null})
  })
})

describe('POST /knowledge/:id/publish', () => {
  it('widens one step by default: private with a project → project → global; private without → global', async () => {
    const e = await createEntry(d, {title: 'Publish me', project_id: projectId, scope: 'private'})
    const toProject = await d.request('POST', `/knowledge/${e.id}/publish`, {contentType: null})
    expect(toProject.status).toBe(200)
    expect(keysOf(toProject.body)).toEqual(FULL_FIELDS)
    expect(toProject.body).toMatchObject({scope: 'project', version: 2})
    expect(toProject.headers.get('etag')).toBe('"2"')
    const toGlobal = await d.request('POST', `/knowledge/${e.id}/publish`, {body: {}})
    expect(toGlobal.body).toMatchObject({scope: 'global', version: 3})
    expectProblem(await d.request('POST', `/knowledge/${e.id}/publish`), 409)

    const lone = await createEntry(d, {title: 'No project'})
    expect((await d.request('POST', `/knowledge/${lone.id}/publish`)).body).toMatchObject({scope: 'global', version: 2})
  })

  it('publishes to an explicit wider scope, and refuses narrower or equal ones with 409', async () => {
    const e = await createEntry(d, {title: 'Jump', project_id: projectId, scope: 'private'})
    expectProblem(await d.request('POST', `/knowledge/${e.id}/publish`, {body: {scope: 'private'}}), 409)
    const res = await d.request('POST', `/knowledge/${e.id}/publish`, {body: {scope: 'global'}})
    expect(res.body).toMatchObject({scope: 'global', version: 2})
    expectProblem(await d.request('POST', `/knowledge/${e.id}/publish`, {body: {scope: 'project'}}), 409)
    expectProblem(await d.request('POST', `/knowledge/${e.id}/publish`, {body: {scope: 'global'}}), 409)
    const lone = await createEntry(d, {title: 'Projectless'})
    expectProblem(await d.request('POST', `/knowledge/${lone.id}/publish`, {body: {scope: 'project'}}), 409)
    expect((await d.request('GET', `/knowledge/${lone.id}`)).body.version).toBe(1)
  })
})

describe('POST /knowledge/:id/fork', () => {
  it('makes a private copy titled "<parent> (fork)" with body, tags, url and thought chain, listed in the parent\'s branches', async () => {
    const parent = await createEntry(d, {
      title: 'Parent',
      body: 'Parent body.',
      tags: ['one', 'two'],
      url: 'https://example.com/p',
      scope: 'global',
      thought_chain: [{thought: 'step one', kind: 'hypothesis'}],
    })
    await d.request('POST', `/knowledge/${parent.id}/comments`, {body: {body: 'not copied'}})
    await d.request('POST', `/knowledge/${parent.id}/resolve`)
    const res = await d.request('POST', `/knowledge/${parent.id}/fork`, {key: alice})
    expect(res.status).toBe(201)
    expect(keysOf(res.body)).toEqual(CREATED_FIELDS)
    const f = res.body
    expect(res.headers.get('location')).toBe(`/api/v1/knowledge/${f.id}`)
    expect(res.headers.get('etag')).toBe('"1"')
    expect(f).toMatchObject({
      title: 'Parent (fork)',
      body: 'Parent body.',
      tags: ['one', 'two'],
      url: 'https://example.com/p',
      scope: 'private',
      forked_from: parent.id,
      version: 1,
      status: 'open',
      resolution: null,
      comments: [],
      comment_count: 0,
      branches: [],
      thought_chain: [{step: 1, thought: 'step one', kind: 'hypothesis'}],
      author: {name: 'alice'},
    })
    expect(f.id).not.toBe(parent.id)
    // Alice sees her private fork among the parent's branches; the owner does not (private means private).
    const asAlice = await d.request('GET', `/knowledge/${parent.id}`, {key: alice, query: {detail: 'full'}})
    expect(asAlice.body.branches).toEqual([
      {id: f.id, title: 'Parent (fork)', scope: 'private', author: f.author, created_at: f.created_at},
    ])
    const asOwner = await d.request('GET', `/knowledge/${parent.id}`, {query: {detail: 'full'}})
    expect(asOwner.body.branches).toEqual([])
    // Forking does not change the parent (at 2: the comment did not count, the resolution did).
    expect(asOwner.body.version).toBe(2)
  })

  it('keeps " (fork)" when the parent\'s title is already at the 200-character limit', async () => {
    for (const title of ['t'.repeat(200), '😀'.repeat(200), `${'x'.repeat(193)}`]) {
      const parent = await createEntry(d, {title})
      const res = await d.request('POST', `/knowledge/${parent.id}/fork`)
      expect(res.status).toBe(201)
      const chars = Array.from(res.body.title as string)
      expect(chars.length).toBeLessThanOrEqual(200)
      expect(res.body.title.endsWith(' (fork)')).toBe(true)
      expect(res.body.title).toBe(res.body.title.toWellFormed())
      if (title.length === 193) expect(res.body.title).toBe(`${title} (fork)`)
      // The fork's title is itself a valid title: it can be sent back unchanged.
      expect((await d.request('PATCH', `/knowledge/${res.body.id}`, {body: {title: res.body.title}})).status).toBe(200)
    }
  })

  it('takes a title, a scope and a project', async () => {
    const parent = await createEntry(d, {title: 'Base', project_id: projectId})
    const res = await d.request('POST', `/knowledge/${parent.id}/fork`, {body: {title: ' Named fork ', scope: 'project'}})
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({title: 'Named fork', scope: 'project', project_id: projectId, forked_from: parent.id})
    const global = await d.request('POST', `/knowledge/${parent.id}/fork`, {body: {scope: 'global', project_id: null}})
    expect(global.body).toMatchObject({scope: 'global', project_id: null, title: 'Base (fork)'})
    const branches = (await d.request('GET', `/knowledge/${parent.id}`, {query: {detail: 'full'}})).body.branches
    expect(branches.map((b: {id: string}) => b.id)).toEqual([res.body.id, global.body.id])
  })
})
