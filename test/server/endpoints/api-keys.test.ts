/**
 * @module /api-keys (mint, list, revoke, including the key in use) and bearer authentication: the key
 * format, hash-only storage checked in the SQLite file itself, expiry, and the exact 401 challenge.
 */
import {createHash} from 'node:crypto'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, queryStore, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {API_KEY_RE, expectProblem, ISO_RE, joinProject, keysOf, MISSING_ID, UUID_RE} from './support.js'

let d: TestDaemon
const KEY_FIELDS = ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'principal', 'project_id']

beforeAll(async () => {
  d = await startInProcessDaemon()
})
afterAll(async () => {
  await d.stop()
})

function challenge(invalid: boolean): string {
  return `Bearer resource_metadata="${d.url}/.well-known/oauth-protected-resource"${invalid ? ', error="invalid_token"' : ''}`
}

describe('POST /api-keys', () => {
  it('mints kb_ + 43 base62 with an 11-character prefix, returned once, stored only as SHA-256', async () => {
    const before = Date.now()
    const res = await d.request('POST', '/api-keys', {body: {name: 'laptop', expires_in_days: 30}})
    expect(res.status).toBe(201)
    const k = res.body
    expect(keysOf(k)).toEqual([...KEY_FIELDS, 'key'].sort())
    expect(k.key).toMatch(API_KEY_RE)
    expect(k.prefix).toBe(k.key.slice(0, 11))
    expect(k.prefix).toMatch(/^kb_[0-9A-Za-z]{8}$/)
    expect(k.id).toMatch(UUID_RE)
    expect(k).toMatchObject({name: 'laptop', last_used_at: null, project_id: null, principal: {name: 'owner'}})
    expect(k.created_at).toMatch(ISO_RE)
    const expires = Date.parse(k.expires_at)
    expect(expires).toBeGreaterThanOrEqual(before + 30 * 86_400_000 - 1000)
    expect(expires).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000 + 1000)
    // The key works.
    const me = await d.request('GET', '/api-keys', {key: k.key})
    expect(me.status).toBe(200)
    // Stored as its SHA-256 only: the plaintext is nowhere in the database files.
    const [row] = await queryStore(d, 'SELECT * FROM api_keys WHERE id = ?', [k.id])
    expect(row!.hash).toBe(createHash('sha256').update(k.key).digest('hex'))
    expect(JSON.stringify(row)).not.toContain(k.key.slice(11))
    for (const suffix of ['', '-wal', '-journal']) {
      const file = join(d.dataDir, `kb.sqlite${suffix}`)
      if (existsSync(file)) expect(readFileSync(file).includes(Buffer.from(k.key.slice(3)))).toBe(false)
    }
    // Nor is the owner's bootstrap key.
    for (const suffix of ['', '-wal']) {
      const file = join(d.dataDir, `kb.sqlite${suffix}`)
      if (existsSync(file)) expect(readFileSync(file).includes(Buffer.from(d.ownerKey.slice(3)))).toBe(false)
    }
    // On PostgreSQL: in no column of any key row.
    if (d.storeUrl) expect(JSON.stringify(await queryStore(d, 'SELECT * FROM api_keys'))).not.toContain(d.ownerKey.slice(3))
    // Two keys are never the same.
    const other = await d.request('POST', '/api-keys', {contentType: null})
    expect(other.status).toBe(201)
    expect(other.body.key).not.toBe(k.key)
    expect(other.body.name).toBe('default')
    expect(other.body.expires_at).toBeNull()
  })

  it('lets the owner mint a key for another principal, creating it, and binding it to a project', async () => {
    const project = await joinProject(d, 'git@github.com:acme/keys.git')
    const res = await d.request('POST', '/api-keys', {body: {principal: 'carol', name: 'carol key', project_id: project.id}})
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({principal: {name: 'carol'}, project_id: project.id, name: 'carol key'})
    const carol = res.body.key
    // Carol is a member of the project now, and a second key for her reuses the principal.
    const projects = await d.request('GET', '/projects', {key: carol})
    expect(projects.body.items.map((p: {id: string; role: string}) => [p.id, p.role])).toEqual([[project.id, 'member']])
    const again = await d.request('POST', '/api-keys', {body: {principal: 'carol'}})
    expect(again.body.principal).toEqual(res.body.principal)
    // Carol may mint her own keys (naming herself is allowed), but not for anyone else.
    const own = await d.request('POST', '/api-keys', {key: carol, body: {name: 'second'}})
    expect(own.status).toBe(201)
    expect(own.body.principal.name).toBe('carol')
    expect((await d.request('POST', '/api-keys', {key: carol, body: {principal: 'carol'}})).status).toBe(201)
    expectProblem(await d.request('POST', '/api-keys', {key: carol, body: {principal: 'owner'}}), 403)
    expectProblem(await d.request('POST', '/api-keys', {key: carol, body: {principal: 'dave'}}), 403)
    // The refused mint did not create dave.
    expect(await queryStore(d, "SELECT count(*) AS n FROM principals WHERE name = 'dave'")).toEqual([{n: 0}])
    // A project the caller is not a member of is 404.
    const otherProject = await joinProject(d, 'git@github.com:acme/not-carols.git')
    expectProblem(await d.request('POST', '/api-keys', {key: carol, body: {project_id: otherProject.id}}), 404)
  })
})

describe('GET /api-keys', () => {
  it("lists the caller's live keys without secrets", async () => {
    const erin = await newPrincipal(d, 'erin')
    const second = await d.request('POST', '/api-keys', {key: erin, body: {name: 'second'}})
    const res = await d.request('GET', '/api-keys', {key: erin})
    expect(res.status).toBe(200)
    expect(keysOf(res.body)).toEqual(['items', 'next_cursor'])
    expect(res.body.next_cursor).toBeNull()
    expect(res.body.items.map((k: {name: string}) => k.name)).toEqual(['erin key', 'second'])
    for (const k of res.body.items) {
      expect(keysOf(k)).toEqual(KEY_FIELDS)
      expect(k.principal.name).toBe('erin')
    }
    expect(res.text).not.toContain(erin.slice(11))
    expect(res.text).not.toContain(second.body.key.slice(11))
    // The key just used shows a last_used_at.
    const used = res.body.items.find((k: {prefix: string}) => k.prefix === erin.slice(0, 11))
    expect(used.last_used_at).toMatch(ISO_RE)
  })
})

describe('DELETE /api-keys', () => {
  it("revokes a key by id (204), after which it is 401; another principal's key is 404", async () => {
    const frank = await newPrincipal(d, 'frank')
    const spare = await d.request('POST', '/api-keys', {key: frank, body: {name: 'spare'}})
    // The owner cannot revoke frank's key: it is not the owner's.
    expectProblem(await d.request('DELETE', '/api-keys', {body: {id: spare.body.id}}), 404)
    expectProblem(await d.request('DELETE', '/api-keys', {body: {id: MISSING_ID}}), 404)
    const res = await d.request('DELETE', '/api-keys', {key: frank, body: {id: spare.body.id}})
    expect(res.status).toBe(204)
    expect(res.text).toBe('')
    const after = await d.request('GET', '/api-keys', {key: spare.body.key})
    expectProblem(after, 401)
    expect(after.headers.get('www-authenticate')).toBe(challenge(true))
    // Revoking twice is 404; the listing no longer has it; frank's other key still works.
    expectProblem(await d.request('DELETE', '/api-keys', {key: frank, body: {id: spare.body.id}}), 404)
    const list = await d.request('GET', '/api-keys', {key: frank})
    expect(list.body.items.map((k: {id: string}) => k.id)).not.toContain(spare.body.id)
  })

  it('with no body (or {}) revokes the key making the request', async () => {
    const gina = await newPrincipal(d, 'gina')
    const res = await d.request('DELETE', '/api-keys', {key: gina, contentType: null})
    expect(res.status).toBe(204)
    expectProblem(await d.request('GET', '/api-keys', {key: gina}), 401)
    const hank = await newPrincipal(d, 'hank')
    expect((await d.request('DELETE', '/api-keys', {key: hank, body: {}})).status).toBe(204)
    expectProblem(await d.request('GET', '/knowledge', {key: hank}), 401)
  })
})

describe('authentication', () => {
  it('401 without a credential: challenge without error=', async () => {
    const res = await d.request('GET', '/knowledge', {key: null})
    expectProblem(res, 401)
    expect(res.headers.get('www-authenticate')).toBe(challenge(false))
    const blank = await d.request('GET', '/knowledge', {key: null, headers: {authorization: ''}})
    expectProblem(blank, 401)
    expect(blank.headers.get('www-authenticate')).toBe(challenge(false))
  })

  it('401 with an unknown, malformed or non-bearer credential: challenge with error="invalid_token"', async () => {
    const unknown = 'kb_' + 'A'.repeat(43)
    for (const headers of [
      {authorization: `Bearer ${unknown}`},
      {authorization: 'Bearer not-a-key'},
      {authorization: `Basic ${Buffer.from('a:b').toString('base64')}`},
      {authorization: 'Bearer'},
    ]) {
      const res = await d.request('GET', '/knowledge', {key: null, headers})
      expectProblem(res, 401)
      expect(res.headers.get('www-authenticate'), JSON.stringify(headers)).toBe(challenge(true))
    }
  })

  it('accepts the scheme case-insensitively', async () => {
    expect((await d.request('GET', '/api-keys', {key: null, headers: {authorization: `bearer ${d.ownerKey}`}})).status).toBe(200)
  })

  it('an expired key is 401 (the daemon checks expiry on every request)', async () => {
    const ivan = await newPrincipal(d, 'ivan')
    const k = await d.request('POST', '/api-keys', {key: ivan, body: {name: 'short', expires_in_days: 1}})
    expect((await d.request('GET', '/api-keys', {key: k.body.key})).status).toBe(200)
    await queryStore(d, 'UPDATE api_keys SET expires_at = ? WHERE id = ?', [new Date(Date.now() - 1000).toISOString(), k.body.id])
    const res = await d.request('GET', '/api-keys', {key: k.body.key})
    expectProblem(res, 401)
    expect(res.headers.get('www-authenticate')).toBe(challenge(true))
    // Ivan's other key is unaffected.
    expect((await d.request('GET', '/api-keys', {key: ivan})).status).toBe(200)
  })

  it('every authenticated endpoint refuses a missing credential', async () => {
    const id = MISSING_ID
    const calls: Array<[string, string]> = [
      ['POST', '/knowledge'],
      ['GET', '/knowledge'],
      ['GET', `/knowledge/${id}`],
      ['PATCH', `/knowledge/${id}`],
      ['DELETE', `/knowledge/${id}`],
      ['GET', '/search?q=x'],
      ['POST', `/knowledge/${id}/resolve`],
      ['POST', `/knowledge/${id}/comments`],
      ['POST', `/knowledge/${id}/publish`],
      ['POST', `/knowledge/${id}/fork`],
      ['POST', '/projects/join'],
      ['GET', '/projects'],
      ['POST', '/api-keys'],
      ['GET', '/api-keys'],
      ['DELETE', '/api-keys'],
    ]
    for (const [method, path] of calls) {
      const body = method === 'GET' ? {} : {body: {}}
      const none = await d.request(method, path, {key: null, ...body})
      expectProblem(none, 401)
      expect(none.headers.get('www-authenticate'), `${method} ${path}`).toBe(challenge(false))
      const bad = await d.request(method, path, {key: 'kb_revokedorunknown', ...body})
      expectProblem(bad, 401)
      expect(bad.headers.get('www-authenticate'), `${method} ${path}`).toBe(challenge(true))
    }
  })
})
