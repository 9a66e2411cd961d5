/**
 * @module The contract of `Store.idempotency` (server/store/idempotency.ts), through the interface alone so
 * every driver runs it unchanged: `runIdempotencyContract('postgres', make)`. `makeStore` returns a fresh,
 * migrated store; the suite closes it after each test. `second` opens another connection to the same store
 * (another daemon of a team server), when the driver can.
 */
import {randomUUID} from 'node:crypto'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import type {IdempotencyClaim, IdempotencyResponse} from '../../../server/store/idempotency.js'
import type {Store} from '../../../server/store/store.js'

const T0 = Date.parse('2026-01-01T00:00:00.000Z')
const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString()
const DAY = 24 * 3600

export function runIdempotencyContract(name: string, makeStore: () => Promise<Store>, second?: (first: Store) => Promise<Store>): void {
  describe(`Idempotency store contract: ${name}`, () => {
    let s: Store
    const others: Store[] = []
    beforeEach(async () => {
      s = await makeStore()
    })
    afterEach(async () => {
      for (const o of others.splice(0)) await o.close()
      await s.close()
    })

    const claimAt = (seconds: number, o: Partial<IdempotencyClaim> = {}): IdempotencyClaim => ({
      principal_id: 'p1',
      key: 'k1',
      fingerprint: 'f1',
      claim: randomUUID(),
      created_at: at(seconds),
      expires_at: at(seconds + DAY),
      ...o,
    })
    const answer: IdempotencyResponse = {
      status: 201,
      headers: {'content-type': 'application/json; charset=utf-8', location: '/api/v1/knowledge/x'},
      body: '{"id":"x"}',
    }
    const never = at(-1)

    it('claims a free key once; a second claim gets the record, in flight until completed, then with the answer', async () => {
      const first = claimAt(0)
      expect(await s.idempotency.claim(first, never)).toEqual({claimed: true})
      const again = await s.idempotency.claim(claimAt(1), never)
      expect(again.claimed).toBe(false)
      if (again.claimed) return
      expect(again.record).toMatchObject({
        principal_id: 'p1',
        key: 'k1',
        fingerprint: 'f1',
        claim: first.claim,
        response: null,
        created_at: at(0),
        expires_at: at(DAY),
      })
      expect(await s.idempotency.complete('p1', 'k1', first.claim, 'f1', answer)).toBe(true)
      const done = await s.idempotency.claim(claimAt(2), never)
      expect(done).toMatchObject({claimed: false, record: {response: answer, fingerprint: 'f1'}})
    })

    it('keys belong to a principal: the same key of another principal is free', async () => {
      expect(await s.idempotency.claim(claimAt(0), never)).toEqual({claimed: true})
      expect(await s.idempotency.claim(claimAt(0, {principal_id: 'p2'}), never)).toEqual({claimed: true})
      expect((await s.idempotency.claim(claimAt(0, {key: 'k2'}), never)).claimed).toBe(true)
    })

    it('completing or releasing needs the claim; a release frees the key', async () => {
      const first = claimAt(0)
      await s.idempotency.claim(first, never)
      expect(await s.idempotency.complete('p1', 'k1', randomUUID(), 'f1', answer)).toBe(false)
      await s.idempotency.release('p1', 'k1', randomUUID())
      expect((await s.idempotency.claim(claimAt(1), never)).claimed).toBe(false)
      await s.idempotency.release('p1', 'k1', first.claim)
      expect(await s.idempotency.claim(claimAt(2), never)).toEqual({claimed: true})
    })

    it('a streamed request completes with the fingerprint it learnt at the end', async () => {
      const first = claimAt(0, {fingerprint: null})
      await s.idempotency.claim(first, never)
      expect(await s.idempotency.complete('p1', 'k1', first.claim, 'late', answer)).toBe(true)
      expect(await s.idempotency.claim(claimAt(1), never)).toMatchObject({claimed: false, record: {fingerprint: 'late'}})
    })

    it('an expired record is taken over by a new claim, answered or not', async () => {
      const first = claimAt(0)
      await s.idempotency.claim(first, never)
      await s.idempotency.complete('p1', 'k1', first.claim, 'f1', answer)
      expect((await s.idempotency.claim(claimAt(DAY - 1), never)).claimed).toBe(false)
      const late = claimAt(DAY, {fingerprint: 'other'})
      expect(await s.idempotency.claim(late, never)).toEqual({claimed: true})
      expect(await s.idempotency.claim(claimAt(DAY + 1), never)).toMatchObject({
        claimed: false,
        record: {claim: late.claim, fingerprint: 'other', response: null},
      })
      // The first holder can no longer touch it.
      expect(await s.idempotency.complete('p1', 'k1', first.claim, 'f1', answer)).toBe(false)
    })

    it('an unanswered claim older than abandonedBefore is taken over; an answered one never is', async () => {
      const dead = claimAt(0)
      await s.idempotency.claim(dead, never)
      expect((await s.idempotency.claim(claimAt(60), at(0))).claimed).toBe(false)
      const takeover = claimAt(400)
      expect(await s.idempotency.claim(takeover, at(100))).toEqual({claimed: true})
      expect(await s.idempotency.complete('p1', 'k1', dead.claim, 'f1', answer)).toBe(false)
      expect(await s.idempotency.complete('p1', 'k1', takeover.claim, 'f1', answer)).toBe(true)
      expect((await s.idempotency.claim(claimAt(1000), at(900))).claimed).toBe(false)
    })

    it('purges what expired, and only that', async () => {
      await s.idempotency.claim(claimAt(0, {key: 'old'}), never)
      await s.idempotency.claim(claimAt(100, {key: 'new'}), never)
      expect(await s.idempotency.purgeExpired(at(DAY + 50))).toBe(1)
      expect(await s.idempotency.purgeExpired(at(DAY + 50))).toBe(0)
      expect((await s.idempotency.claim(claimAt(DAY + 60, {key: 'new'}), never)).claimed).toBe(false)
    })

    it.runIf(second !== undefined)('another connection to the same store sees the claims: one winner among many', async () => {
      const other = await second!(s)
      others.push(other)
      const claims = Array.from({length: 8}, (_, i) => claimAt(0, {claim: `c${i}`}))
      const outcomes = await Promise.all(claims.map((c, i) => (i % 2 === 0 ? s : other).idempotency.claim(c, never)))
      expect(outcomes.filter((o) => o.claimed)).toHaveLength(1)
      const winner = claims[outcomes.findIndex((o) => o.claimed)]!
      expect(await (winner === claims[0] ? other : s).idempotency.complete('p1', 'k1', winner.claim, 'f1', answer)).toBe(true)
      expect(await other.idempotency.claim(claimAt(5), never)).toMatchObject({claimed: false, record: {response: answer}})
    })
  })
}
