/**
 * @module A team server: two `kb daemon run` processes on one PostgreSQL database, behind one public URL, and a
 * client that alternates every request between them through a whole session — create, If-Match edits,
 * comments, resolve, publish, fork, search, freshness and confidence after an anchor check, flags and a verification
 * (docs/search.md, "Freshness and confidence"), an OAuth code issued by one daemon and exchanged at the other,
 * refresh rotation on both — and the races only shared state decides: one code or refresh token presented
 * to both daemons at once, one If-Match version written through both.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ChildDaemon, type HttpResult, startChildDaemon} from '../../helpers/daemon.js'
import {useCluster} from '../../helpers/postgres.js'
import {requireSystem} from '../../helpers/system.js'
import {authorizeUrl, openConsent, pkcePair, registerOk, submitConsent, tokenRequest} from '../oauth/support.js'

const PUBLIC_URL = 'https://kb.example.com/api/v1'
const REDIRECT = 'http://127.0.0.1:8123/callback'

requireSystem('postgres').describe('two daemons on one PostgreSQL database', () => {
  const cluster = useCluster()
  let a: ChildDaemon
  let b: ChildDaemon
  let owner: string
  let turn = 0
  /** The next daemon in turn: every request goes to the other one than the last. */
  const next = (): ChildDaemon => (turn++ % 2 === 0 ? a : b)
  const call = <T = any>(method: string, path: string, options: Parameters<ChildDaemon['request']>[2] = {}): Promise<HttpResult<T>> =>
    next().request<T>(method, path, {key: owner, ...options})
  /** A principal with its own key, minted by the owner. */
  const mint = async (name: string): Promise<string> =>
    (await call('POST', '/api-keys', {body: {principal: name, name: `${name} key`}})).body.key

  beforeAll(async () => {
    const storeUrl = await cluster().createDatabase()
    const args = ['--public-url', PUBLIC_URL]
    // Started together: they migrate the empty database once and bootstrap one owner between them.
    const started = await Promise.all([startChildDaemon({storeUrl, args}), startChildDaemon({storeUrl, args})])
    a = started[0]
    b = started[1]
    owner = a.ownerKey || b.ownerKey
    expect([a.ownerKey, b.ownerKey].filter((k) => k !== '')).toHaveLength(1)
  }, 120_000)
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
  })

  it('serves one knowledge base through both, a request at a time to each in turn', async () => {
    const alice = await mint('alice')
    const created = await call('POST', '/knowledge', {
      body: {title: 'Pool exhausted under load', body: 'The pool ran out of connections.', tags: ['postgres']},
    })
    expect(created.status).toBe(201)
    const id = created.body.id as string
    const edited = await call('PATCH', `/knowledge/${id}`, {
      body: {body: 'The pool ran out of connections: max_connections was 20.'},
      headers: {'if-match': '"1"'},
    })
    expect(edited.status).toBe(200)
    expect(edited.body.version).toBe(2)
    // The other daemon knows version 1 is gone.
    const stale = await call('PATCH', `/knowledge/${id}`, {body: {title: 'Lost update'}, headers: {'if-match': '"1"'}})
    expect(stale.status).toBe(412)
    expect((await call('POST', `/knowledge/${id}/publish`, {body: {}})).body.scope).toBe('global')
    const comment = await call('POST', `/knowledge/${id}/comments`, {
      key: alice,
      body: {body: 'Raising it to 100 fixed it.', type: 'supplement'},
    })
    expect(comment.status).toBe(201)
    const resolved = await call('POST', `/knowledge/${id}/resolve`, {body: {note: 'raised max_connections'}})
    expect(resolved.body).toMatchObject({status: 'resolved', version: 4, comment_count: 1})
    const fork = await call('POST', `/knowledge/${id}/fork`, {key: alice, body: {title: 'Pool exhausted on the replica', scope: 'global'}})
    expect(fork.status).toBe(201)
    const full = await call('GET', `/knowledge/${id}`, {query: {detail: 'full'}})
    expect(full.body.comments.map((c: {body: string}) => c.body)).toEqual(['Raising it to 100 fixed it.'])
    expect(full.body.branches.map((x: {id: string}) => x.id)).toEqual([fork.body.id])
    expect(full.headers.get('etag')).toBe('"4"')
    const found = await call('GET', '/search', {query: {q: 'max_connections pool'}})
    expect(found.body.items.map((x: {id: string}) => x.id)).toContain(id)
    const typo = await call('GET', '/search', {query: {q: 'exhuasted replic'}, key: alice})
    expect(typo.body.items[0].id).toBe(fork.body.id)
    const list = await call('GET', '/knowledge', {query: {tag: 'postgres'}})
    expect(list.body.items.map((x: {id: string}) => x.id).sort()).toEqual([id, fork.body.id].sort())
  })

  it('gives the same freshness, confidence and ranking on both: an anchor check, flags and a verification through either', async () => {
    const bob = await mint('bob')
    const twin = {title: 'Zebrafish cache stampede at noon', body: 'Stagger the zebrafish cache expiry.', scope: 'global'}
    const fresh = (await call('POST', '/knowledge', {body: twin})).body
    // The newer twin: on a tie it would rank first, so only its confidence can put it second.
    const anchored = (
      await call('POST', '/knowledge', {
        body: {...twin, anchors: [{path: 'src/cache.ts', lines: '3-9', commit: 'a1b2c3d', hash: 'c'.repeat(64)}]},
      })
    ).body
    const checked = await call('POST', `/knowledge/${anchored.id}/anchors/check`, {
      body: {commit: 'e5f6a7b', results: [{path: 'src/cache.ts', lines: '3-9', state: 'changed', hash: 'd'.repeat(64)}]},
    })
    expect(checked.status, checked.text).toBe(200)
    expect((await call('POST', `/knowledge/${anchored.id}/flags`, {key: bob, body: {reason: 'incorrect'}})).status).toBe(201)
    /** What each daemon says of the twins, asked directly (not in turn). */
    const seen = async (x: ChildDaemon): Promise<unknown> => {
      const search = await x.request('GET', '/search', {key: owner, query: {q: 'zebrafish stampede', explain: true, detail: 'standard'}})
      const full = await x.request('GET', `/knowledge/${anchored.id}`, {key: owner, query: {detail: 'full'}})
      return {
        hits: search.body.items.map((h: any) => [h.id, h.freshness.state, h.factors.confidence]),
        freshness: full.body.freshness,
        flags: full.body.flags,
        anchors: full.body.anchors.map((a: any) => [a.path, a.state, a.checked_commit]),
      }
    }
    const onA = (await seen(a)) as {hits: Array<[string, string, number]>; freshness: {reasons: Array<{kind: string}>}}
    expect(onA.hits.map((h) => [h[0], h[1]])).toEqual([
      [fresh.id, 'fresh'],
      [anchored.id, 'stale'],
    ])
    expect(onA.freshness.reasons.map((r) => r.kind)).toEqual(['anchor_changed', 'flagged'])
    expect(await seen(b)).toEqual(onA)
    // Bob's verification through one daemon (it withdraws his own flag; the changed anchor is re-based only by a
    // checkout, so the entry stays stale for it) is what the other says too.
    expect((await call('POST', `/knowledge/${anchored.id}/verify`, {key: bob, body: {}})).status).toBe(200)
    const afterA = (await seen(a)) as {freshness: {reasons: Array<{kind: string}>}}
    expect(afterA.freshness.reasons.map((r) => r.kind)).toEqual(['anchor_changed'])
    expect(await seen(b)).toEqual(afterA)
  })

  it('exchanges a code issued by one daemon at the other, and rotates refresh tokens on both', async () => {
    const [first, second] = [next(), next()]
    const client = await registerOk(first, {redirect_uris: [REDIRECT], client_name: 'team client'})
    const {verifier, challenge} = pkcePair()
    // The consent page from one daemon, its form posted to the other (the CSRF check is in the database too).
    const form = await openConsent(
      authorizeUrl(second, {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    )
    const approved = await submitConsent(first, form, {api_key: owner, decision: 'approve'})
    expect(approved.status).toBe(303)
    const code = new URL(approved.headers.get('location')!).searchParams.get('code')!
    const exchanged = await tokenRequest(second, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
    })
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200)
    // The access token works at both daemons (one audience: the public URL).
    for (const d of [a, b]) expect((await d.request('GET', '/knowledge', {key: exchanged.body.access_token})).status).toBe(200)
    // Rotation, alternating daemons; every old refresh token is spent everywhere.
    let refresh = exchanged.body.refresh_token as string
    const spent: string[] = []
    for (let i = 0; i < 4; i++) {
      const r = await tokenRequest(next(), {grant_type: 'refresh_token', refresh_token: refresh, client_id: client.client_id})
      expect(r.status, JSON.stringify(r.body)).toBe(200)
      spent.push(refresh)
      refresh = r.body.refresh_token
      expect((await next().request('GET', '/knowledge', {key: r.body.access_token})).status).toBe(200)
    }
    // Reusing a spent one at either daemon is reuse: the whole grant goes.
    const reused = await tokenRequest(next(), {grant_type: 'refresh_token', refresh_token: spent[1]!, client_id: client.client_id})
    expect(reused.body.error).toBe('invalid_grant')
    expect(
      (await tokenRequest(next(), {grant_type: 'refresh_token', refresh_token: refresh, client_id: client.client_id})).body.error,
    ).toBe('invalid_grant')
  })

  describe('races that only the database can decide', () => {
    async function freshCode(): Promise<{client: string; code: string; verifier: string}> {
      const client = await registerOk(a, {redirect_uris: [REDIRECT]})
      const {verifier, challenge} = pkcePair()
      const form = await openConsent(
        authorizeUrl(a, {
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: REDIRECT,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }),
      )
      const res = await submitConsent(b, form, {api_key: owner, decision: 'approve'})
      return {client: client.client_id, code: new URL(res.headers.get('location')!).searchParams.get('code')!, verifier}
    }

    it('a code presented to both daemons at once is exchanged once', async () => {
      for (let round = 0; round < 5; round++) {
        const {client, code, verifier} = await freshCode()
        const params = {grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client}
        const results = await Promise.all([tokenRequest(a, params), tokenRequest(b, params)])
        expect(results.map((r) => r.status).sort()).toEqual([200, 400])
        // The loser saw a replay: what the winner got is revoked with the grant.
        const winner = results.find((r) => r.status === 200)!
        expect((await a.request('GET', '/knowledge', {key: winner.body.access_token})).status).toBe(401)
      }
    })

    it('a refresh token presented to both daemons at once rotates once, and the reuse revokes the grant', async () => {
      for (let round = 0; round < 5; round++) {
        const {client, code, verifier} = await freshCode()
        const tokens = (
          await tokenRequest(b, {
            grant_type: 'authorization_code',
            code,
            code_verifier: verifier,
            redirect_uri: REDIRECT,
            client_id: client,
          })
        ).body
        const params = {grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: client}
        const results = await Promise.all([tokenRequest(a, params), tokenRequest(b, params)])
        expect(results.map((r) => r.status).sort()).toEqual([200, 400])
        const winner = results.find((r) => r.status === 200)!
        expect((await tokenRequest(a, {...params, refresh_token: winner.body.refresh_token})).body.error).toBe('invalid_grant')
      }
    })

    it('one If-Match version written through both daemons at once: one wins, the others are 412', async () => {
      const e = (await a.request('POST', '/knowledge', {key: owner, body: {title: 'Raced across daemons', body: 'x', scope: 'global'}}))
        .body
      const racers = await Promise.all(
        Array.from({length: 10}, (_, i) =>
          (i % 2 === 0 ? a : b).request('PATCH', `/knowledge/${e.id}`, {
            key: owner,
            body: {title: `Racer ${i}`},
            headers: {'if-match': '"1"'},
          }),
        ),
      )
      expect(racers.filter((r) => r.status === 200)).toHaveLength(1)
      expect(racers.filter((r) => r.status === 412)).toHaveLength(9)
      // Unguarded edits and comments through both all land (comments leave the version).
      const writes = await Promise.all(
        Array.from({length: 12}, (_, i) =>
          i % 3 === 0
            ? (i % 2 === 0 ? a : b).request('POST', `/knowledge/${e.id}/comments`, {key: owner, body: {body: `c${i}`}})
            : (i % 2 === 0 ? a : b).request('PATCH', `/knowledge/${e.id}`, {key: owner, body: {body: `body ${i}`}}),
        ),
      )
      expect(writes.map((w) => w.status).filter((s) => s >= 300)).toEqual([])
      expect((await b.request('GET', `/knowledge/${e.id}`, {key: owner})).body).toMatchObject({version: 2 + 8, comment_count: 4})
    })

    it('one key used through both daemons at once keeps working and records its use', async () => {
      const key = await mint('keyuser')
      const results = await Promise.all(Array.from({length: 20}, (_, i) => (i % 2 === 0 ? a : b).request('GET', '/api-keys', {key})))
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(200))
      expect(results[0]!.body.items[0].last_used_at).not.toBeNull()
    })
  })
})
