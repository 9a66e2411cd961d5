/**
 * GET /ids/{ref} and the Kb-Short-Id-Length header (docs/api.md, "Short ids") over real HTTP, on both drivers:
 * a prefix, a suffix, an ambiguous one with its candidates, hidden entries that are never candidates, refusals.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {createEntry, expectProblem} from './support.js'
import {craftEntries} from '../../helpers/crafted-ids.js'

let d: TestDaemon
let aliceKey: string

// Ids chosen so that their starts and ends collide: the first two end alike in their last 10 digits, the second and
// third begin alike, the fourth (owner's private) ends as the fifth (global) does in its last 8 digits.
const A = '01930000-0000-7000-8000-0a4c5b6a7980'
const B = '01931111-1111-7111-8111-1a4c5b6a7980'
const C = '01931111-2222-7222-8222-222222222222'
const HIDDEN = '01932222-3333-7333-8333-3333dead5eed'
const SEEN = '01933333-4444-7444-8444-4444dead5eed'

beforeAll(async () => {
  d = await startInProcessDaemon()
  aliceKey = await newPrincipal(d, 'alice')
  await craftEntries(d, [
    {id: A, title: 'Alpha', scope: 'global'},
    {id: B, title: 'Bravo', scope: 'global'},
    {id: C, title: 'Charlie', scope: 'global'},
    {id: HIDDEN, title: 'Owner only', scope: 'private'},
    {id: SEEN, title: 'Everyone', scope: 'global'},
  ])
})
afterAll(async () => {
  await d?.stop()
})

const resolve = (ref: string, key?: string) => d.request('GET', `/ids/${encodeURIComponent(ref)}`, key ? {key} : {})

describe('GET /ids/{ref}', () => {
  it('a unique prefix or suffix names the entry, hyphens and case ignored; a whole id is itself', async () => {
    for (const ref of ['019300', '0193-0000', 'dddddd', C.slice(-9), C.slice(-12).toUpperCase(), C, '01931111-2222']) {
      const res = await resolve(ref)
      if (ref === 'dddddd') {
        expectProblem(res, 404)
        continue
      }
      expect(res.status, `${ref}: ${res.text}`).toBe(200)
      expect(res.body.id).toBe(ref.startsWith('019300') || ref === '0193-0000' ? A : C)
    }
  })

  it('an ambiguous one is 409 ambiguous_id listing the candidates the caller may see, with their short forms', async () => {
    const res = await resolve('4c5b6a7980')
    expect(res.status, res.text).toBe(409)
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(res.body).toMatchObject({type: 'about:blank', title: 'Conflict', status: 409, code: 'ambiguous_id'})
    expect(res.body.detail).toMatch(/type more characters/)
    const long = res.body.candidates[0].short_id.length
    expect(res.body.candidates).toEqual([
      {id: A, short_id: A.replace(/-/g, '').slice(-long), title: 'Alpha'},
      {id: B, short_id: B.replace(/-/g, '').slice(-long), title: 'Bravo'},
    ])
    // Both a prefix and a suffix count: 01931111 begins B and C.
    expect((await resolve('01931111')).body.candidates.map((c: {id: string}) => c.id)).toEqual([B, C])
    // One more digit tells them apart.
    expect((await resolve('1a4c5b6a7980')).body.id).toBe(B)
  })

  it("an entry the caller may not see is never a candidate: alice's dead5eed is the one she sees; the owner's is ambiguous", async () => {
    expect((await resolve('dead5eed', aliceKey)).body).toEqual({id: SEEN, short_id: expect.stringMatching(/ead5eed$/)})
    const owner = await resolve('dead5eed')
    expect(owner.status).toBe(409)
    expect(owner.body.candidates.map((c: {id: string}) => c.id)).toEqual([HIDDEN, SEEN])
    // Hidden is not found, by any form.
    expectProblem(await resolve(HIDDEN, aliceKey), 404)
    expectProblem(await resolve('01932222', aliceKey), 404)
    expectProblem(await resolve('3333dead5eed', aliceKey), 404)
  })

  it('refuses what cannot be an id with the reason (400): too short, not hexadecimal, too long', async () => {
    expect(expectProblem(await resolve('abc'), 400).detail).toMatch(/too short.*at least 4/)
    expect(expectProblem(await resolve('a-b-c'), 400).detail).toMatch(/too short/)
    expect(expectProblem(await resolve('xyz123'), 400).detail).toMatch(/hexadecimal/)
    expectProblem(await resolve('a'.repeat(37)), 400)
  })

  it('is authenticated', async () => {
    const res = await d.request('GET', '/ids/abcd', {key: null})
    expect(res.status).toBe(401)
  })

  it('a prefix naming more entries than it reads is ambiguous without listing all; bounded', async () => {
    // 0193 begins every id here; the scan bound is not reached with five, so the five visible are listed.
    const res = await resolve('0193')
    expect(res.status).toBe(409)
    expect(res.body.candidates).toHaveLength(5)
    expect((await resolve('0193', aliceKey)).body.candidates).toHaveLength(4)
    // 101 entries begin with 01939999: more than a short form is looked up among (ID_REF_SCAN), so it says so.
    const many = Array.from({length: 101}, (_, i) => ({
      id: `01939999-0000-7000-8000-${String(i).padStart(12, '0')}`,
      title: `Many ${i}`,
      scope: 'global' as const,
    }))
    await craftEntries(d, many)
    const crowded = await resolve('01939999')
    expect(crowded.status).toBe(409)
    expect(crowded.body.detail).toMatch(/more than 100 ids; type more characters/)
    expect(crowded.body.candidates).toHaveLength(10)
    const ten = await resolve('0193999900007000800000000000000')
    expect([ten.status, ten.body.detail, ten.body.candidates?.length]).toEqual([409, expect.stringMatching(/of 10 entries/), 10])
    expect((await resolve(many[42]!.id.replace(/-/g, ''))).body.id).toBe(many[42]!.id)
  })
})

describe('Kb-Short-Id-Length', () => {
  it('says 7 while no two ids share their last 7 digits, grows when an entry ends as another, and never shrinks', async () => {
    const fresh = await startInProcessDaemon()
    try {
      const first = await createEntry(fresh)
      const got = await fresh.request('GET', `/knowledge/${first.id}`)
      expect(got.headers.get('kb-short-id-length')).toBe('7')
      await craftEntries(fresh, [
        {id: '01930000-0000-7000-8000-00000abcdef1', title: 'One', scope: 'global'},
        {id: '01930000-0000-7000-8000-0000babcdef1', title: 'Two', scope: 'global'},
      ])
      // They share 7 digits at the end (abcdef1): 8 tell them apart. (PostgreSQL daemons re-read it within a second.)
      await expect.poll(async () => (await fresh.request('GET', '/knowledge')).headers.get('kb-short-id-length'), {timeout: 3000}).toBe('8')
      for (const id of ['01930000-0000-7000-8000-00000abcdef1', '01930000-0000-7000-8000-0000babcdef1'])
        expect((await fresh.request('DELETE', `/knowledge/${id}`)).status).toBe(204)
      await new Promise((r) => setTimeout(r, 1100))
      expect((await fresh.request('GET', '/knowledge')).headers.get('kb-short-id-length')).toBe('8')
    } finally {
      await fresh.stop()
    }
  })
})
