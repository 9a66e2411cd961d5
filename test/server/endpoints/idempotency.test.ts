/**
 * @module The Idempotency-Key header over real HTTP (docs/api.md, "Idempotency"): a repeat gets the first answer
 * without acting again (counted on the server), another request with the key is 422, a repeat while the first
 * still runs is 409, keys belong to a principal, and every creating or changing POST and PATCH honours it.
 */
import {randomUUID} from 'node:crypto'
import {request as httpRequest} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, queryStore, startInProcessDaemon, type HttpResult, type TestDaemon} from '../../helpers/daemon.js'
import {toNdjson} from '../transfer/support.js'
import {createEntry, listAll, MISSING_ID} from './support.js'

let d: TestDaemon
beforeAll(async () => {
  d = await startInProcessDaemon()
})
afterAll(async () => {
  await d?.stop()
})

const withKey = (key: string, o: Record<string, unknown> = {}): {headers: Record<string, string>} & Record<string, unknown> => ({
  ...o,
  headers: {'idempotency-key': `"${key}"`},
})

function expectIdempotencyProblem(res: HttpResult, status: number, code: string): void {
  expect(res.status, res.text).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(res.body).toMatchObject({status, code, type: 'about:blank'})
  expect(res.headers.get('idempotent-replayed')).toBeNull()
}

async function countTitled(title: string, key?: string): Promise<number> {
  return (await listAll(d, {}, key)).filter((e) => e.title === title).length
}

describe('a repeat with the same key and request', () => {
  it('gets the first answer — status, body, Location, ETag — without creating twice', async () => {
    const key = randomUUID()
    const body = {title: 'Idempotent create', body: 'once only', tags: ['x'], scope: 'private'}
    const first = await d.request('POST', '/knowledge', withKey(key, {body}))
    expect(first.status).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    // The same fields in another order are the same request; the key may also come bare.
    const again = await d.request('POST', '/knowledge', {
      body: {scope: 'private', tags: ['x'], body: 'once only', title: 'Idempotent create'},
      headers: {'idempotency-key': key},
    })
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.text).toBe(first.text)
    for (const h of ['location', 'etag', 'content-type']) expect(again.headers.get(h), h).toBe(first.headers.get(h))
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'))
    expect(await countTitled('Idempotent create')).toBe(1)
  })

  it('without a key, the same request twice acts twice (the control)', async () => {
    const body = {title: 'Keyless create', body: 'twice'}
    expect((await d.request('POST', '/knowledge', {body})).status).toBe(201)
    expect((await d.request('POST', '/knowledge', {body})).status).toBe(201)
    expect(await countTitled('Keyless create')).toBe(2)
  })

  it('comment, resolve, publish, fork, join and PATCH each act once', async () => {
    const e = await createEntry(d, {title: 'Target of repeats', scope: 'private'})
    const twice = async (
      method: string,
      path: string,
      body: unknown,
      headers: Record<string, string> = {},
    ): Promise<[HttpResult, HttpResult]> => {
      const key = randomUUID()
      const a = await d.request(method, path, {body, headers: {...headers, 'idempotency-key': `"${key}"`}})
      const b = await d.request(method, path, {body, headers: {...headers, 'idempotency-key': `"${key}"`}})
      expect(b.headers.get('idempotent-replayed'), `${method} ${path}`).toBe('true')
      expect(b.status).toBe(a.status)
      expect(b.text).toBe(a.text)
      return [a, b]
    }
    const [c] = await twice('POST', `/knowledge/${e.id}/comments`, {body: 'said once'})
    expect(c.status).toBe(201)
    const [p] = await twice('PATCH', `/knowledge/${e.id}`, {title: 'Target, renamed'}, {'if-match': `"${e.version}"`})
    expect(p.status).toBe(200)
    const [r] = await twice('POST', `/knowledge/${e.id}/resolve`, {note: 'done'})
    expect(r.status).toBe(200)
    const [pub] = await twice('POST', `/knowledge/${e.id}/publish`, {scope: 'global'})
    expect(pub.status).toBe(200)
    const [f] = await twice('POST', `/knowledge/${e.id}/fork`, {title: 'One fork only'})
    expect(f.status).toBe(201)
    const [j] = await twice('POST', '/projects/join', {remote: 'git@github.com:acme/idem.git'})
    expect(j.status).toBe(201)
    const full = (await d.request('GET', `/knowledge/${e.id}`, {query: {detail: 'full'}})).body
    expect(full.comments.filter((x: {body: string}) => x.body === 'said once')).toHaveLength(1)
    // patch (+1), resolve (+1), publish (+1): each once (a comment does not move the version).
    expect(full.version).toBe(e.version + 3)
    expect(full.branches).toHaveLength(1)
  })

  it('an error answer from the route is repeated too; a refused request never claims the key', async () => {
    const key = randomUUID()
    const missing = await d.request('POST', `/knowledge/${MISSING_ID}/comments`, withKey(key, {body: {body: 'to nowhere'}}))
    expect(missing.status).toBe(404)
    const again = await d.request('POST', `/knowledge/${MISSING_ID}/comments`, withKey(key, {body: {body: 'to nowhere'}}))
    expect(again.status).toBe(404)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    // Invalid body (422 validation_failed): nothing ran, so the key is still free for a valid request.
    const fresh = randomUUID()
    expect((await d.request('POST', '/knowledge', withKey(fresh, {body: {title: ''}}))).body.code).toBe('validation_failed')
    expect((await d.request('POST', '/knowledge', withKey(fresh, {body: {title: 'Valid after invalid', body: 'b'}}))).status).toBe(201)
    // Unauthenticated: nothing ran either.
    const anon = randomUUID()
    expect((await d.request('POST', '/knowledge', {...withKey(anon, {body: {title: 'x', body: 'y'}}), key: null})).status).toBe(401)
    expect((await d.request('POST', '/knowledge', withKey(anon, {body: {title: 'Valid after 401', body: 'b'}}))).status).toBe(201)
  })
})

describe('the same key with another request', () => {
  it('is 422 idempotency_key_reused, for another body or another target, and nothing is done', async () => {
    const key = randomUUID()
    expect((await d.request('POST', '/knowledge', withKey(key, {body: {title: 'Reuse A', body: 'a'}}))).status).toBe(201)
    expectIdempotencyProblem(
      await d.request('POST', '/knowledge', withKey(key, {body: {title: 'Reuse B', body: 'a'}})),
      422,
      'idempotency_key_reused',
    )
    const e = await createEntry(d, {title: 'Reuse target'})
    expectIdempotencyProblem(
      await d.request('POST', `/knowledge/${e.id}/comments`, withKey(key, {body: {body: 'a'}})),
      422,
      'idempotency_key_reused',
    )
    expect(await countTitled('Reuse B')).toBe(0)
    expect((await d.request('GET', `/knowledge/${e.id}`)).body.comment_count).toBe(0)
  })

  it("keys belong to a principal: another principal's same key is a new request", async () => {
    const bob = await newPrincipal(d, 'bob-idem')
    const key = randomUUID()
    const body = {title: 'Per principal', body: 'b', scope: 'private'}
    const mine = await d.request('POST', '/knowledge', withKey(key, {body}))
    const his = await d.request('POST', '/knowledge', withKey(key, {body, key: bob}))
    expect(mine.status).toBe(201)
    expect(his.status).toBe(201)
    expect(his.headers.get('idempotent-replayed')).toBeNull()
    expect(his.body.id).not.toBe(mine.body.id)
    expect(his.body.author.name).toBe('bob-idem')
  })

  it('a malformed key is 400; POST /api-keys ignores the header (its answer holds a secret, never stored)', async () => {
    for (const bad of ['', '""', `"${'k'.repeat(256)}"`, '"a\\"b"', '"tab\there"', '"é"']) {
      const res = await d.request('POST', '/knowledge', {body: {title: 'Bad key', body: 'b'}, headers: {'idempotency-key': bad}})
      expect(res.status, bad).toBe(400)
      expect(res.body.code).toBe('bad_request')
    }
    expect(await countTitled('Bad key')).toBe(0)
    expect(
      (
        await d.request('POST', '/knowledge', {
          body: {title: 'Longest key', body: 'b'},
          headers: {'idempotency-key': `"${'k'.repeat(255)}"`},
        })
      ).status,
    ).toBe(201)
    const key = randomUUID()
    const a = await d.request('POST', '/api-keys', withKey(key, {body: {name: 'idem a'}}))
    const b = await d.request('POST', '/api-keys', withKey(key, {body: {name: 'idem a'}}))
    expect([a.status, b.status]).toEqual([201, 201])
    expect(b.body.key).not.toBe(a.body.key)
  })
})

/** Starts a streamed import whose body is sent only when `finish` is called. */
function slowImport(
  key: string,
  first: string,
  rest: string,
): {finish: () => void; done: Promise<{status: number; text: string; replayed: boolean}>} {
  const u = new URL(`${d.url}/import`)
  let finish = (): void => {}
  const done = new Promise<{status: number; text: string; replayed: boolean}>((resolve, reject) => {
    const req = httpRequest(
      u,
      {
        method: 'POST',
        headers: {authorization: `Bearer ${d.ownerKey}`, 'content-type': 'application/x-ndjson', 'idempotency-key': `"${key}"`},
      },
      (res) => {
        let text = ''
        res.on('data', (c: Buffer) => (text += c.toString()))
        res.on('end', () => resolve({status: res.statusCode ?? 0, text, replayed: res.headers['idempotent-replayed'] === 'true'}))
      },
    )
    req.on('error', reject)
    req.write(first)
    finish = () => req.end(rest)
  })
  return {finish, done}
}

describe('a repeat while the first request still runs, and streamed bodies', () => {
  const exportLines = (title: string): string[] => {
    const id = randomUUID()
    const header = {kind: 'kb-export', version: 1, exported_at: new Date().toISOString()}
    const entry = {
      kind: 'entry',
      id,
      title,
      body: 'imported',
      scope: 'private',
      project_id: null,
      tags: [],
      url: null,
      status: 'open',
      resolution: null,
      thought_chain: [],
      forked_from: null,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
      version: 1,
      comments: [],
    }
    return toNdjson([header, entry]).split(/(?<=\n)/)
  }

  it('is 409 idempotency_key_in_use with Retry-After; once the first is answered, a repeat gets its answer', async () => {
    const key = randomUUID()
    const [head, body] = exportLines('Slow import')
    const slow = slowImport(key, head!, body!)
    // The claim is in the store as soon as the first request's handler starts (read through a second connection).
    const deadline = Date.now() + 10_000
    while ((await queryStore(d, 'SELECT 1 FROM idempotency_keys WHERE key = ?', [key])).length === 0) {
      if (Date.now() > deadline) throw new Error('the first import never claimed its key')
      await new Promise((r) => setTimeout(r, 10))
    }
    const during = await d.request('POST', '/import', {
      raw: head! + body!,
      contentType: 'application/x-ndjson',
      headers: {'idempotency-key': `"${key}"`},
    })
    expectIdempotencyProblem(during, 409, 'idempotency_key_in_use')
    expect(during.headers.get('retry-after')).toBe('1')
    slow.finish()
    const first = await slow.done
    expect(first.status, first.text).toBe(200)
    expect(JSON.parse(first.text)).toMatchObject({created: 1, skipped: 0})
    // Run again, the import would report the entry skipped: the repeat reports what the first did.
    const after = await d.request('POST', '/import', {
      raw: head! + body!,
      contentType: 'application/x-ndjson',
      headers: {'idempotency-key': `"${key}"`},
    })
    expect(after.status).toBe(200)
    expect(after.headers.get('idempotent-replayed')).toBe('true')
    expect(after.text).toBe(first.text)
    // Another body with the key is still refused, read to the end first.
    const [head2, body2] = exportLines('Other import')
    expectIdempotencyProblem(
      await d.request('POST', '/import', {
        raw: head2! + body2!,
        contentType: 'application/x-ndjson',
        headers: {'idempotency-key': `"${key}"`},
      }),
      422,
      'idempotency_key_reused',
    )
    expect(await countTitled('Slow import')).toBe(1)
    expect(await countTitled('Other import')).toBe(0)
  })

  it('a streamed request answered before its body was read gives its key back (no fingerprint to compare with)', async () => {
    const key = randomUUID()
    // Declares more than an import may hold: refused (413) before a byte of the body is read.
    const refused = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        new URL(`${d.url}/import`),
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${d.ownerKey}`,
            'content-type': 'application/x-ndjson',
            'content-length': String(600 * 1024 * 1024),
            'idempotency-key': `"${key}"`,
          },
        },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
          req.destroy()
        },
      )
      req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)))
      req.write('{')
    })
    expect(refused).toBe(413)
    const [head, body] = exportLines('Import after refusal')
    const ok = await d.request('POST', '/import', {
      raw: head! + body!,
      contentType: 'application/x-ndjson',
      headers: {'idempotency-key': `"${key}"`},
    })
    expect(ok.status, ok.text).toBe(200)
    expect(ok.headers.get('idempotent-replayed')).toBeNull()
    expect(JSON.parse(ok.text)).toMatchObject({created: 1})
  })
})
