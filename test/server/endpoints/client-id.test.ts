/**
 * `POST /knowledge` with a client-chosen `id` (docs/api.md, "Knowledge entries"), on both drivers: the entry gets it
 * (lower-cased); an id some entry has — one the caller may not see included — is 409 `id_taken`, and so is the
 * loser of two creates racing for one id; a repeat under the same Idempotency-Key is answered, not refused; an id
 * not in UUID form is 422.
 */
import {randomUUID} from 'node:crypto'
import {uuidv7} from '../../../src/shared/uuidv7.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type HttpResult, type TestDaemon} from '../../helpers/daemon.js'
import {expectProblem} from './support.js'

let d: TestDaemon
let alice: string

beforeAll(async () => {
  d = await startInProcessDaemon()
  alice = await newPrincipal(d, 'alice')
})
afterAll(async () => {
  await d?.stop()
})

const create = (body: Record<string, unknown>, o: {key?: string; headers?: Record<string, string>} = {}): Promise<HttpResult> =>
  d.request('POST', '/knowledge', {body: {title: 'Chosen id', body: 'b', scope: 'private', ...body}, ...o})

/** A 409 problem with the code of its own (expectProblem knows only each status's general code). */
function idTaken(r: HttpResult): void {
  expect(r.status, r.text).toBe(409)
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(r.body).toMatchObject({status: 409, code: 'id_taken', detail: expect.stringContaining('exists')})
}

describe('POST /knowledge with an id', () => {
  it('gives the entry that id, lower-cased; the same id again is 409 id_taken, hidden or not', async () => {
    const id = uuidv7()
    const made = await create({id: id.toUpperCase()})
    expect(made.status, made.text).toBe(201)
    expect(made.body.id).toBe(id)
    expect(made.headers.get('location')).toBe(`/api/v1/knowledge/${id}`)
    expect((await d.request('GET', `/knowledge/${id}`)).body.title).toBe('Chosen id')
    idTaken(await create({id}))
    // Alice cannot see the owner's private entry, and is refused all the same: nothing is written over it.
    expect((await d.request('GET', `/knowledge/${id}`, {key: alice})).status).toBe(404)
    idTaken(await create({id, title: 'Mine now'}, {key: alice}))
    expect((await d.request('GET', `/knowledge/${id}`)).body.title).toBe('Chosen id')
  })

  it('a repeat under the same Idempotency-Key is answered with the first answer', async () => {
    const id = uuidv7()
    const headers = {'idempotency-key': randomUUID()}
    const first = await create({id}, {headers})
    const second = await create({id}, {headers})
    expect(first.status).toBe(201)
    expect(second.status).toBe(201)
    expect(second.headers.get('idempotent-replayed')).toBe('true')
    expect(second.body.id).toBe(id)
  })

  it('two creates racing for one id: one is made, the others are 409 (never a 5xx)', async () => {
    const id = uuidv7()
    const all = await Promise.all(Array.from({length: 8}, (_, i) => create({id, title: `Racer ${i}`})))
    expect(all.filter((r) => r.status === 201)).toHaveLength(1)
    for (const r of all.filter((x) => x.status !== 201)) idTaken(r)
  })

  it('an id not in UUID form, or a UUID of another version than 7, is 422', async () => {
    expectProblem(await create({id: 'not-a-uuid'}), 422, ['id'])
    expectProblem(await create({id: randomUUID()}), 422, ['id'])
  })
})
