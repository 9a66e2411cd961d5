/**
 * @module /projects (join-or-create, list), the unauthenticated /health and /openapi.json, X-Request-Id,
 * (on early 400s too), the Host check and 405s with Allow, against a real daemon.
 */
import {connect} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {joinApproved, newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {expectProblem, ISO_RE, keysOf, MISSING_ID, rawRequest, UUID_RE} from './support.js'

let d: TestDaemon

beforeAll(async () => {
  d = await startInProcessDaemon()
})
afterAll(async () => {
  await d.stop()
})

describe('POST /projects/join and GET /projects', () => {
  it('creates with 201 (caller maintainer), then joins with 200 for another principal, who becomes a member', async () => {
    const created = await d.request('POST', '/projects/join', {body: {remote: 'git@github.com:Acme/API.git'}})
    expect(created.status).toBe(201)
    expect(keysOf(created.body)).toEqual(['created', 'project'])
    expect(created.body.created).toBe(true)
    const p = created.body.project
    expect(keysOf(p)).toEqual(['created_at', 'id', 'name', 'remote', 'role', 'verify_after_days'])
    expect(p).toMatchObject({name: 'api', remote: 'github.com/acme/api', role: 'maintainer'})
    expect(p.id).toMatch(UUID_RE)
    expect(p.created_at).toMatch(ISO_RE)

    const jo = await newPrincipal(d, 'jo')
    expect((await d.request('GET', '/projects', {key: jo})).body).toEqual({items: [], next_cursor: null})
    // Jo asks; the owner approves (docs/api.md, "Membership"); then jo's join enters.
    const asked = await d.request('POST', '/projects/join', {key: jo, body: {remote: 'https://user:pw@GitHub.com/acme/api/'}})
    expect(asked.status).toBe(202)
    expect((await d.request('GET', '/projects', {key: jo})).body.items).toEqual([])
    expect(await joinApproved(d, 'https://user:pw@GitHub.com/acme/api/', jo)).toEqual({project: {...p, role: 'member'}, created: false})
    const jos = await d.request('GET', '/projects', {key: jo})
    expect(jos.status).toBe(200)
    expect(jos.body).toEqual({items: [{...p, role: 'member'}], next_cursor: null})
    // Jo can now put entries into the project.
    const e = await d.request('POST', '/knowledge', {key: jo, body: {title: 't', body: 'b', project_id: p.id}})
    expect(e.status).toBe(201)
    expect(e.body.scope).toBe('project')

    // The creator joining again stays maintainer.
    const again = await d.request('POST', '/projects/join', {body: {remote: 'ssh://git@github.com:22/acme/api'}})
    expect(again.status).toBe(200)
    expect(again.body).toEqual({project: p, created: false})
  })

  it('takes a name, and lists every project of the caller', async () => {
    const named = await d.request('POST', '/projects/join', {body: {remote: 'https://gitlab.com/group/sub/repo.git', name: 'Our repo'}})
    expect(named.status).toBe(201)
    expect(named.body.project).toMatchObject({name: 'Our repo', remote: 'gitlab.com/group/sub/repo'})
    const list = await d.request('GET', '/projects')
    expect(keysOf(list.body)).toEqual(['items', 'next_cursor'])
    expect(list.body.items.map((p: {remote: string}) => p.remote).sort()).toEqual(['github.com/acme/api', 'gitlab.com/group/sub/repo'])
    for (const p of list.body.items) expect(p.role).toBe('maintainer')
    // Paging through the projects gives the same set.
    const first = await d.request('GET', '/projects', {query: {limit: 1}})
    expect(first.body.items).toHaveLength(1)
    const second = await d.request('GET', '/projects', {query: {limit: 1, cursor: first.body.next_cursor}})
    expect([...first.body.items, ...second.body.items]).toEqual(list.body.items)
  })
})

describe('service endpoints', () => {
  it('GET /health needs no auth and names the store, which answers', async () => {
    const res = await d.request('GET', '/health', {key: null})
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      status: 'ok',
      version: 'test',
      store: {kind: d.storeUrl ? 'postgres' : 'sqlite', answers: true, writable: true},
      pid: process.pid,
      started_at: expect.any(String),
      data_dir: d.dataDir,
      log: null,
    })
  })

  it('GET /openapi.json needs no auth and is OpenAPI 3.1', async () => {
    const res = await d.request('GET', '/openapi.json', {key: null})
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.body.openapi).toMatch(/^3\.1\./)
  })

  it('a bad credential on an open endpoint is ignored', async () => {
    expect((await d.request('GET', '/health', {key: 'kb_nonsense'})).status).toBe(200)
  })
})

describe('X-Request-Id', () => {
  it('is echoed when sent and generated when absent, on successes and errors alike', async () => {
    const echoed = await d.request('GET', '/health', {headers: {'x-request-id': 'my-trace-42'}})
    expect(echoed.headers.get('x-request-id')).toBe('my-trace-42')
    const generated = await d.request('GET', '/health')
    expect(generated.headers.get('x-request-id')).toMatch(UUID_RE)
    const another = await d.request('GET', '/health')
    expect(another.headers.get('x-request-id')).not.toBe(generated.headers.get('x-request-id'))
    // An id that is not a token of 1–200 visible characters is replaced, not echoed.
    for (const bad of ['x'.repeat(201), 'two words']) {
      const res = await d.request('GET', '/health', {headers: {'x-request-id': bad}})
      expect(res.headers.get('x-request-id')).toMatch(UUID_RE)
    }
    const err = await d.request('GET', `/knowledge/${MISSING_ID}`, {headers: {'x-request-id': 'err-trace'}})
    expectProblem(err, 404)
    expect(err.headers.get('x-request-id')).toBe('err-trace')
    const unauth = await d.request('GET', '/knowledge', {key: null, headers: {'x-request-id': 'unauth-trace'}})
    expect(unauth.status).toBe(401)
    expect(unauth.headers.get('x-request-id')).toBe('unauth-trace')
    const noRoute = await d.request('GET', '/no/such/route')
    expectProblem(noRoute, 404)
    expect(noRoute.headers.get('x-request-id')).toMatch(UUID_RE)
    const created = await d.request('POST', '/knowledge', {body: {title: 't', body: 'b'}, headers: {'x-request-id': 'create-1'}})
    expect(created.headers.get('x-request-id')).toBe('create-1')
  })

  it('is on the 400s answered before routing: a malformed or over-long id, and HTTP node cannot parse', async () => {
    for (const path of ['/knowledge/%ff', `/knowledge/${'a'.repeat(600)}`, '/knowledge/%zz/comments']) {
      const res = await rawRequest(d.url, 'GET', path, {authorization: `Bearer ${d.ownerKey}`, 'x-request-id': 'early-1'})
      expect(res.status, path).toBe(400)
      expect(res.headers['x-request-id'], path).toBe('early-1')
      const plain = await rawRequest(d.url, 'GET', path, {authorization: `Bearer ${d.ownerKey}`})
      expect(plain.headers['x-request-id'], path).toMatch(UUID_RE)
    }
    // Refused by node's parser (a space inside the target): the answer is written on the socket directly.
    const u = new URL(d.url)
    const answer = await new Promise<string>((resolve, reject) => {
      let text = ''
      const sock = connect({host: u.hostname, port: Number(u.port)}, () => sock.write('GET /a b c HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'))
      sock.on('data', (c: Buffer) => (text += c.toString('latin1')))
      sock.on('close', () => resolve(text))
      sock.on('error', reject)
    })
    expect(answer).toMatch(/^HTTP\/1\.1 400 /)
    expect(/^x-request-id: (.+)\r$/im.exec(answer)?.[1]).toMatch(UUID_RE)
  })
})

describe('Host check', () => {
  it('refuses a non-loopback Host with 403 and serves loopback names', async () => {
    const auth = {authorization: `Bearer ${d.ownerKey}`}
    for (const host of ['evil.example.com', 'evil.example.com:80', '10.0.0.1', '127.0.0.1.evil.com']) {
      const res = await rawRequest(d.url, 'GET', '/knowledge', {...auth, host})
      expect(res.status, host).toBe(403)
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(res.json).toMatchObject({status: 403, code: 'forbidden', title: 'Forbidden', type: 'about:blank'})
      // Even the open endpoints.
      expect((await rawRequest(d.url, 'GET', '/health', {host})).status, host).toBe(403)
    }
    const port = new URL(d.url).port
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'localhost']) {
      expect((await rawRequest(d.url, 'GET', '/knowledge', {...auth, host})).status, host).toBe(200)
    }
  })
})

describe('405 Method Not Allowed', () => {
  const cases: Array<[string, string, string[]]> = [
    ['PUT', '/knowledge', ['GET', 'HEAD', 'POST']],
    ['DELETE', '/knowledge', ['GET', 'HEAD', 'POST']],
    ['PUT', `/knowledge/${MISSING_ID}`, ['DELETE', 'GET', 'HEAD', 'PATCH']],
    ['POST', `/knowledge/${MISSING_ID}`, ['DELETE', 'GET', 'HEAD', 'PATCH']],
    ['GET', `/knowledge/${MISSING_ID}/resolve`, ['POST']],
    ['PUT', `/knowledge/${MISSING_ID}/comments`, ['GET', 'HEAD', 'POST']],
    ['GET', `/knowledge/${MISSING_ID}/publish`, ['POST']],
    ['DELETE', `/knowledge/${MISSING_ID}/fork`, ['POST']],
    ['POST', '/search', ['GET', 'HEAD']],
    ['GET', '/projects/join', ['POST']],
    ['POST', '/projects', ['GET', 'HEAD']],
    ['PATCH', '/api-keys', ['DELETE', 'GET', 'HEAD', 'POST']],
    ['POST', '/health', ['GET', 'HEAD']],
    ['DELETE', '/openapi.json', ['GET', 'HEAD']],
  ]
  for (const [method, path, allowed] of cases) {
    it(`${method} ${path.replace(MISSING_ID, ':id')} → 405 with Allow`, async () => {
      const res = await d.request(method, path, method === 'GET' ? {} : {body: {}})
      expectProblem(res, 405)
      const allow = (res.headers.get('allow') ?? '')
        .split(',')
        .map((m) => m.trim())
        .sort()
      expect(allow).toEqual(allowed)
    })
  }
})
