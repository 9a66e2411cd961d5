/**
 * @module The error rows of docs/api.md, "Errors", endpoint by endpoint: 400, 403, 404 (missing and hidden alike),
 * 413, 415 and 422 with every field rule of §3.1/§3.4 listed in `errors`. Every body is checked as a
 * complete RFC 9457 problem by `expectProblem`.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {createEntry, expectProblem, joinProject, MISSING_ID} from './support.js'

let d: TestDaemon
let alice: string
let entryId: string
let projectId: string

const ID_ROUTES: Array<[string, string]> = [
  ['GET', ''],
  ['PATCH', ''],
  ['DELETE', ''],
  ['POST', '/resolve'],
  ['POST', '/comments'],
  ['POST', '/publish'],
  ['POST', '/fork'],
]
/** A body each :id route accepts, so that only the id decides the answer. */
const VALID_BODY: Record<string, unknown> = {'': {title: 'x'}, '/comments': {body: 'hi'}, '/resolve': {}, '/publish': {}, '/fork': {}}

beforeAll(async () => {
  d = await startInProcessDaemon()
  alice = await newPrincipal(d, 'alice')
  projectId = (await joinProject(d, 'git@github.com:acme/errors.git')).id
  entryId = (await createEntry(d, {title: 'Owned by the owner', scope: 'global'})).id
})
afterAll(async () => {
  await d.stop()
})

function bodyFor(method: string, suffix: string): {body?: unknown} {
  if (method === 'GET' || method === 'DELETE') return {}
  return {body: VALID_BODY[suffix]}
}

describe('400 bad_request', () => {
  it('malformed JSON on every body-carrying endpoint', async () => {
    const targets: Array<[string, string]> = [
      ['POST', '/knowledge'],
      ['PATCH', `/knowledge/${entryId}`],
      ['POST', `/knowledge/${entryId}/resolve`],
      ['POST', `/knowledge/${entryId}/comments`],
      ['POST', `/knowledge/${entryId}/publish`],
      ['POST', `/knowledge/${entryId}/fork`],
      ['POST', '/projects/join'],
      ['POST', '/api-keys'],
      ['DELETE', '/api-keys'],
    ]
    for (const [method, path] of targets) {
      for (const raw of ['{"title": "x",', '{title: x}', 'nul', '{"a":1}}']) {
        expectProblem(await d.request(method, path, {raw}), 400)
      }
    }
    // Nothing was changed by any of it.
    expect((await d.request('GET', `/knowledge/${entryId}`)).body.version).toBe(1)
  })

  it('limit of the wrong type or out of range on list, search and projects', async () => {
    for (const limit of ['abc', '0', '101', '-1', '1.5', '']) {
      expectProblem(await d.request('GET', '/knowledge', {query: {limit}}), 400, ['limit'])
      expectProblem(await d.request('GET', '/search', {query: {q: 'x', limit}}), 400, ['limit'])
      expectProblem(await d.request('GET', '/projects', {query: {limit}}), 400, ['limit'])
    }
    // A repeated parameter is not a number either.
    const twice = await d.request('GET', '/knowledge?limit=5&limit=6')
    expectProblem(twice, 400, ['limit'])
    for (const limit of ['1', '100']) {
      expect((await d.request('GET', '/knowledge', {query: {limit}})).status).toBe(200)
      expect((await d.request('GET', '/search', {query: {q: 'x', limit}})).status).toBe(200)
    }
  })

  it('q missing, empty, blank or over 500 characters', async () => {
    expectProblem(await d.request('GET', '/search'), 400, ['q'])
    expectProblem(await d.request('GET', '/search', {query: {q: ''}}), 400, ['q'])
    expectProblem(await d.request('GET', '/search', {query: {q: '   '}}), 400, ['q'])
    expectProblem(await d.request('GET', '/search', {query: {q: 'a'.repeat(501)}}), 400, ['q'])
    expect((await d.request('GET', '/search', {query: {q: 'a '.repeat(250)}})).status).toBe(200)
  })

  it('unknown detail, scope, status or a non-UUID project_id in the query', async () => {
    expectProblem(await d.request('GET', `/knowledge/${entryId}`, {query: {detail: 'everything'}}), 400, ['detail'])
    expectProblem(await d.request('GET', '/knowledge', {query: {detail: 'FULL'}}), 400, ['detail'])
    expectProblem(await d.request('GET', '/search', {query: {q: 'x', detail: 'brief'}}), 400, ['detail'])
    for (const path of ['/knowledge', '/search?q=x']) {
      expectProblem(await d.request('GET', path, {query: {scope: 'team'}}), 400, ['scope'])
      expectProblem(await d.request('GET', path, {query: {status: 'closed'}}), 400, ['status'])
      expectProblem(await d.request('GET', path, {query: {project_id: 'abc'}}), 400, ['project_id'])
    }
  })

  it('a cursor the server did not issue', async () => {
    for (const cursor of [
      'garbage!',
      'bm90IGpzb24',
      Buffer.from('{"a":1}').toString('base64url'),
      Buffer.from('[1,2]').toString('base64url'),
      // Forged (issue 24): strings, but not a position this server writes.
      Buffer.from('["x","y"]').toString('base64url'),
      Buffer.from('["2026-01-01","00000000-0000-4000-8000-000000000000"]').toString('base64url'),
      Buffer.from('["2026-01-01T00:00:00.000Z","not-an-id"]').toString('base64url'),
      `${Buffer.from('["2026-01-01T00:00:00.000Z","00000000-0000-4000-8000-000000000000"]').toString('base64url')}==`,
    ]) {
      expectProblem(await d.request('GET', '/knowledge', {query: {cursor}}), 400, ['cursor'])
    }
  })

  it('a path id not in UUID form, on every :id route', async () => {
    for (const [method, suffix] of ID_ROUTES) {
      for (const bad of ['not-a-uuid', '123', `${MISSING_ID}0`, MISSING_ID.replaceAll('-', '')]) {
        expectProblem(await d.request(method, `/knowledge/${bad}${suffix}`, bodyFor(method, suffix)), 400, ['id'])
      }
    }
  })
})

describe('403 forbidden', () => {
  it('a non-owner may not PATCH, DELETE, resolve or publish an entry it can see but does not own', async () => {
    const res = await Promise.all([
      d.request('PATCH', `/knowledge/${entryId}`, {key: alice, body: {title: 'hijacked'}}),
      d.request('DELETE', `/knowledge/${entryId}`, {key: alice}),
      d.request('POST', `/knowledge/${entryId}/resolve`, {key: alice}),
      d.request('POST', `/knowledge/${entryId}/publish`, {key: alice, body: {scope: 'global'}}),
    ])
    for (const r of res) expectProblem(r, 403)
    const after = await d.request('GET', `/knowledge/${entryId}`)
    expect(after.body).toMatchObject({title: 'Owned by the owner', status: 'open', version: 1})
    // Comments and forks are open to anyone who can see the entry.
    expect((await d.request('POST', `/knowledge/${entryId}/comments`, {key: alice, body: {body: 'fine'}})).status).toBe(201)
    expect((await d.request('POST', `/knowledge/${entryId}/fork`, {key: alice})).status).toBe(201)
  })

  it('a non-owner may not mint keys for another principal', async () => {
    expectProblem(await d.request('POST', '/api-keys', {key: alice, body: {principal: 'owner'}}), 403)
  })
})

describe('404 not_found', () => {
  it('a hidden entry gets the very same answer as a missing one, on every :id route', async () => {
    const hidden = (await createEntry(d, {title: 'Owner private', scope: 'private'})).id
    const inProject = (await createEntry(d, {title: 'Owner project', project_id: projectId})).id
    for (const [method, suffix] of ID_ROUTES) {
      const missing = await d.request(method, `/knowledge/${MISSING_ID}${suffix}`, {key: alice, ...bodyFor(method, suffix)})
      const p = expectProblem(missing, 404)
      for (const id of [hidden, inProject]) {
        const res = await d.request(method, `/knowledge/${id}${suffix}`, {key: alice, ...bodyFor(method, suffix)})
        const q = expectProblem(res, 404)
        expect(JSON.stringify(q).replaceAll(id, '<id>'), `${method} ${suffix}`).toBe(JSON.stringify(p).replaceAll(MISSING_ID, '<id>'))
        expect(res.headers.get('content-type')).toBe(missing.headers.get('content-type'))
        expect(res.headers.get('etag')).toBeNull()
      }
    }
    // And nothing happened to them.
    expect((await d.request('GET', `/knowledge/${hidden}`)).body.version).toBe(1)
    expect((await d.request('GET', `/knowledge/${inProject}`)).body.version).toBe(1)
  })

  it('a project the caller is not a member of is answered like a missing one', async () => {
    const missing = expectProblem(
      await d.request('POST', '/knowledge', {key: alice, body: {title: 't', body: 'b', project_id: MISSING_ID}}),
      404,
    )
    const hidden = expectProblem(
      await d.request('POST', '/knowledge', {key: alice, body: {title: 't', body: 'b', project_id: projectId}}),
      404,
    )
    expect(JSON.stringify(hidden).replaceAll(projectId, '<id>')).toBe(JSON.stringify(missing).replaceAll(MISSING_ID, '<id>'))
    const forkMissing = expectProblem(
      await d.request('POST', `/knowledge/${entryId}/fork`, {key: alice, body: {project_id: MISSING_ID}}),
      404,
    )
    const forkHidden = expectProblem(
      await d.request('POST', `/knowledge/${entryId}/fork`, {key: alice, body: {project_id: projectId}}),
      404,
    )
    expect(JSON.stringify(forkHidden).replaceAll(projectId, '<id>')).toBe(JSON.stringify(forkMissing).replaceAll(MISSING_ID, '<id>'))
  })

  it('an unknown route', async () => {
    expectProblem(await d.request('GET', '/nothing-here'), 404)
    expectProblem(await d.request('GET', '/knowledge/x/y/z'), 404)
  })
})

describe('413 payload_too_large', () => {
  it('a JSON body over 1 MiB, while one just under is judged by the field rules', async () => {
    const over = JSON.stringify({title: 't', body: 'x'.repeat(1024 * 1024)})
    expectProblem(await d.request('POST', '/knowledge', {raw: over}), 413)
    expectProblem(await d.request('PATCH', `/knowledge/${entryId}`, {raw: over}), 413)
    expectProblem(await d.request('POST', `/knowledge/${entryId}/comments`, {raw: over}), 413)
    const under = JSON.stringify({title: 't', body: 'x'.repeat(1024 * 1024 - 100)})
    expect(Buffer.byteLength(under)).toBeLessThanOrEqual(1024 * 1024)
    expectProblem(await d.request('POST', '/knowledge', {raw: under}), 422, ['body'])
  })
})

describe('415 unsupported_media_type', () => {
  it('a body that is not application/json', async () => {
    const targets: Array<[string, string]> = [
      ['POST', '/knowledge'],
      ['PATCH', `/knowledge/${entryId}`],
      ['POST', `/knowledge/${entryId}/resolve`],
      ['POST', `/knowledge/${entryId}/comments`],
      ['POST', `/knowledge/${entryId}/publish`],
      ['POST', `/knowledge/${entryId}/fork`],
      ['POST', '/projects/join'],
      ['POST', '/api-keys'],
      ['DELETE', '/api-keys'],
    ]
    for (const [method, path] of targets) {
      expectProblem(await d.request(method, path, {raw: '{"title":"t","body":"b"}', contentType: 'text/plain'}), 415)
      expectProblem(await d.request(method, path, {raw: 'title=t&body=b', contentType: 'application/x-www-form-urlencoded'}), 415)
    }
    // JSON with a charset parameter is JSON.
    for (const contentType of [
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'Application/JSON',
      'application/merge-patch+json',
    ]) {
      const ok = await d.request('POST', '/knowledge', {raw: '{"title":"t","body":"b"}', contentType})
      expect(ok.status, contentType).toBe(201)
    }
    for (const contentType of ['application/jsonx', 'application/json-seq', 'text/json+plain']) {
      expectProblem(await d.request('POST', '/knowledge', {raw: '{"title":"t","body":"b"}', contentType}), 415)
    }
  })
})

describe('422 validation_failed', () => {
  const long = (n: number, c = 'a'): string => c.repeat(n)
  const steps = (n: number): Array<{thought: string}> => Array.from({length: n}, (_, i) => ({thought: `step ${i}`}))

  it('POST /knowledge: each field rule of §3.1', async () => {
    const base = {title: 'ok', body: 'ok'}
    const cases: Array<[Record<string, unknown>, string]> = [
      [{body: 'b'}, 'title'],
      [{title: 't'}, 'body'],
      [{...base, title: ''}, 'title'],
      [{...base, title: '   '}, 'title'],
      [{...base, title: long(201)}, 'title'],
      [{...base, title: long(1001)}, 'title'],
      [{...base, title: 5}, 'title'],
      [{...base, body: ''}, 'body'],
      [{...base, body: ' \n '}, 'body'],
      [{...base, body: long(100_001)}, 'body'],
      [{...base, scope: 'team'}, 'scope'],
      [{...base, scope: 'project'}, 'project_id'],
      [{...base, project_id: 'abc'}, 'project_id'],
      [{...base, tags: Array.from({length: 21}, (_, i) => `t${i}`)}, 'tags'],
      [{...base, tags: ['has space']}, 'tags/0'],
      [{...base, tags: ['ok', 'ümlaut']}, 'tags/1'],
      [{...base, tags: ['']}, 'tags/0'],
      [{...base, tags: [long(41)]}, 'tags/0'],
      [{...base, tags: 'single'}, 'tags'],
      [{...base, url: 'ftp://example.com/x'}, 'url'],
      [{...base, url: 'not a url'}, 'url'],
      [{...base, url: 'javascript:alert(1)'}, 'url'],
      [{...base, url: '/relative/path'}, 'url'],
      [{...base, url: `https://example.com/${long(2030)}`}, 'url'],
      [{...base, thought_chain: steps(101)}, 'thought_chain'],
      [{...base, thought_chain: [{thought: 'x', kind: 'guess'}]}, 'thought_chain/0/kind'],
      [{...base, thought_chain: [{thought: 'x'}, {thought: '  '}]}, 'thought_chain/1/thought'],
      [{...base, thought_chain: [{thought: 'x', extra: 1}]}, 'thought_chain/0/extra'],
      [{...base, thought_chain: [{kind: 'action'}]}, 'thought_chain/0/thought'],
      [{...base, colour: 'blue'}, 'colour'],
      [{...base, id: MISSING_ID}, 'id'],
    ]
    for (const [body, path] of cases) {
      const res = await d.request('POST', '/knowledge', {body})
      expectProblem(res, 422, [path])
    }
    // Lengths count characters, not UTF-16 code units: 200 emoji are a 200-character title.
    const emoji = await d.request('POST', '/knowledge', {body: {title: '😀'.repeat(200), body: 'ok'}})
    expect(emoji.status, emoji.text).toBe(201)
    expect(Array.from(emoji.body.title)).toHaveLength(200)
    expectProblem(await d.request('POST', '/knowledge', {body: {title: '😀'.repeat(201), body: 'ok'}}), 422, ['title'])
    expect((await d.request('POST', `/knowledge/${entryId}/comments`, {body: {body: '😀'.repeat(20_000)}})).status).toBe(201)
    // The limits themselves are fine.
    const edge = await d.request('POST', '/knowledge', {
      body: {
        title: `  ${long(200)}  `,
        body: long(100_000),
        tags: Array.from({length: 20}, (_, i) => `T.${i}_x-${long(30)}`),
        url: `https://example.com/${long(2020)}`,
        thought_chain: steps(100),
      },
    })
    expect(edge.status).toBe(201)
    expect(edge.body.title).toBe(long(200))
    expect(edge.body.tags[0]).toBe(`t.0_x-${long(30)}`)
    expect(edge.body.thought_chain).toHaveLength(100)
  })

  it('a body that is not a JSON object', async () => {
    for (const raw of ['[]', '"text"', '42', 'null', 'true']) {
      expectProblem(await d.request('POST', '/knowledge', {raw}), 422)
    }
  })

  it('lists every broken rule at once', async () => {
    const schemaLevel = await d.request('POST', '/knowledge', {
      body: {title: '', body: 7, tags: ['bad tag'], scope: 'everyone', thought_chain: [{thought: 'x', kind: 'nope'}], extra: true},
    })
    expectProblem(schemaLevel, 422, ['title', 'body', 'tags/0', 'scope', 'thought_chain/0/kind', 'extra'])
    const ruleLevel = await d.request('POST', '/knowledge', {
      body: {title: '   ', body: '  ', url: 'mailto:a@b.c', thought_chain: [{thought: ' '}]},
    })
    expectProblem(ruleLevel, 422, ['title', 'body', 'url', 'thought_chain/0/thought'])
    const patch = await d.request('PATCH', `/knowledge/${entryId}`, {body: {title: ' ', body: ' ', url: 'gopher://x'}})
    expectProblem(patch, 422, ['title', 'body', 'url'])
  })

  it('PATCH /knowledge/:id: the same rules, status values, and no scope changes', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{title: ''}, 'title'],
      [{title: '  '}, 'title'],
      [{title: long(201)}, 'title'],
      [{body: ''}, 'body'],
      [{body: '\t'}, 'body'],
      [{tags: ['a b']}, 'tags/0'],
      [{tags: Array.from({length: 21}, (_, i) => `t${i}`)}, 'tags'],
      [{url: 'ftp://x.y'}, 'url'],
      [{thought_chain: steps(101)}, 'thought_chain'],
      [{status: 'closed'}, 'status'],
      [{scope: 'global'}, 'scope'],
      [{project_id: projectId}, 'project_id'],
      [{version: 3}, 'version'],
    ]
    const before = (await d.request('GET', `/knowledge/${entryId}`)).body
    for (const [body, path] of cases) expectProblem(await d.request('PATCH', `/knowledge/${entryId}`, {body}), 422, [path])
    expect((await d.request('GET', `/knowledge/${entryId}`)).body).toEqual(before)
  })

  it('POST /knowledge/:id/comments: the rules of §3.4', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'body'],
      [{body: ''}, 'body'],
      [{body: '   '}, 'body'],
      [{body: long(20_001)}, 'body'],
      [{body: 'x', type: 'praise'}, 'type'],
      [{body: 'x', type: 'NOTE'}, 'type'],
      [{body: 'x', author: 'me'}, 'author'],
    ]
    for (const [body, path] of cases) expectProblem(await d.request('POST', `/knowledge/${entryId}/comments`, {body}), 422, [path])
    expect((await d.request('POST', `/knowledge/${entryId}/comments`, {body: {body: long(20_000)}})).status).toBe(201)
  })

  it('resolve, publish and fork bodies', async () => {
    const e = (await createEntry(d, {title: 'Target'})).id
    expectProblem(await d.request('POST', `/knowledge/${e}/resolve`, {body: {url: 'nope'}}), 422, ['url'])
    expectProblem(await d.request('POST', `/knowledge/${e}/resolve`, {body: {note: 5}}), 422, ['note'])
    expectProblem(await d.request('POST', `/knowledge/${e}/resolve`, {body: {reason: 'x'}}), 422, ['reason'])
    expectProblem(await d.request('POST', `/knowledge/${e}/publish`, {body: {scope: 'world'}}), 422, ['scope'])
    expectProblem(await d.request('POST', `/knowledge/${e}/publish`, {body: {to: 'global'}}), 422, ['to'])
    expectProblem(await d.request('POST', `/knowledge/${e}/fork`, {body: {title: '  '}}), 422, ['title'])
    expectProblem(await d.request('POST', `/knowledge/${e}/fork`, {body: {title: long(201)}}), 422, ['title'])
    expectProblem(await d.request('POST', `/knowledge/${e}/fork`, {body: {project_id: 'abc'}}), 422, ['project_id'])
    expectProblem(await d.request('POST', `/knowledge/${e}/fork`, {body: {scope: 'team'}}), 422, ['scope'])
    expectProblem(await d.request('POST', `/knowledge/${e}/fork`, {body: {scope: 'project', project_id: null}}), 422, ['project_id'])
    expectProblem(await d.request('POST', `/knowledge/${e}/fork`, {body: {body: 'not forkable'}}), 422, ['body'])
    // None of it changed the entry.
    expect((await d.request('GET', `/knowledge/${e}`, {query: {detail: 'full'}})).body).toMatchObject({
      version: 1,
      status: 'open',
      branches: [],
    })
  })

  it('projects and api-keys bodies', async () => {
    expectProblem(await d.request('POST', '/projects/join', {body: {}}), 422, ['remote'])
    expectProblem(await d.request('POST', '/projects/join', {body: {remote: ''}}), 422, ['remote'])
    expectProblem(await d.request('POST', '/projects/join', {body: {remote: 'just-a-word'}}), 422, ['remote'])
    expectProblem(await d.request('POST', '/projects/join', {body: {remote: 'github.com/acme/x', owner: 'me'}}), 422, ['owner'])
    for (const [body, path] of [
      [{expires_in_days: 0}, 'expires_in_days'],
      [{expires_in_days: 3651}, 'expires_in_days'],
      [{expires_in_days: '3'}, 'expires_in_days'],
      [{expires_in_days: 1.5}, 'expires_in_days'],
      [{principal: 'bad name!'}, 'principal'],
      [{principal: long(65)}, 'principal'],
      [{project_id: 'abc'}, 'project_id'],
      [{name: ''}, 'name'],
      [{scopes: ['all']}, 'scopes'],
    ] as Array<[Record<string, unknown>, string]>) {
      expectProblem(await d.request('POST', '/api-keys', {body}), 422, [path])
    }
    expectProblem(await d.request('DELETE', '/api-keys', {body: {id: 'abc'}}), 422, ['id'])
    expectProblem(await d.request('DELETE', '/api-keys', {body: {id: MISSING_ID, all: true}}), 422, ['all'])
    // The owner key still works: nothing above revoked it.
    expect((await d.request('GET', '/api-keys')).status).toBe(200)
  })
})
