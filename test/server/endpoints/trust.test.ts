/**
 * @module Trust over HTTP (docs/api.md, "Anchors, freshness, verify and flags"): anchors on create and PATCH with their
 * validation, anchor checks (changed, moved, deleted), verify, flags by several members and their withdrawal, an
 * author's edit closing flags, and a project's verify_after_days (GET/PATCH /projects/:id) with who may change it.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {fakeCorpus} from '../scan/fake-corpus.js'
import {createEntry, expectProblem, joinProject, MISSING_ID} from './support.js'

const corpus = fakeCorpus(1516)
const secret = (kind: string): string => corpus.find((s) => s.kind === kind)!.secret

const HASH_A = 'a'.repeat(64)
const HASH_B = 'b'.repeat(64)
const COMMIT = 'a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0'

let d: TestDaemon
let ben: string
let carol: string
let projectId: string

beforeAll(async () => {
  d = await startInProcessDaemon()
  projectId = (await joinProject(d, 'git@github.com:acme/trust.git')).id
  ben = await newPrincipal(d, 'ben', projectId)
  carol = await newPrincipal(d, 'carol', projectId)
  // Carol joins through her own key as well: a member, not a maintainer.
  await joinProject(d, 'git@github.com:acme/trust.git', carol)
  await joinProject(d, 'git@github.com:acme/trust.git', ben)
})
afterAll(async () => {
  await d?.stop()
})

const post = (path: string, body: unknown, key?: string) => d.request('POST', path, {body, ...(key ? {key} : {})})

describe('anchors on create and PATCH', () => {
  it('stores them (current with commit and hash, else unknown), collapses duplicates, and refuses lines a > b', async () => {
    const e = await createEntry(d, {
      scope: 'global',
      anchors: [
        {path: 'src/db/pool.ts', lines: '40-62', commit: COMMIT, hash: HASH_A},
        {path: 'src/db/pool.ts', lines: '40-62', commit: COMMIT, hash: HASH_A},
        {path: 'README.md', symbol: 'Install'},
      ],
    })
    expect(e.anchors).toEqual([
      {
        path: 'src/db/pool.ts',
        lines: '40-62',
        symbol: null,
        commit: COMMIT,
        hash: HASH_A,
        state: 'current',
        moved_to: null,
        checked_at: null,
        checked_commit: null,
      },
      {
        path: 'README.md',
        lines: null,
        symbol: 'Install',
        commit: null,
        hash: null,
        state: 'unknown',
        moved_to: null,
        checked_at: null,
        checked_commit: null,
      },
    ])
    expect(e.freshness).toEqual({state: 'fresh', reasons: [], verified_at: null, verified_by: null})
    expect(e.flags).toEqual({stale: 0, incorrect: 0, duplicate: 0, obsolete: 0})
    expect(e.confidence).toBeGreaterThan(0.9)
    expectProblem(await post('/knowledge', {title: 't', body: 'b', anchors: [{path: 'a.ts', lines: '9-3'}]}), 422, ['anchors/0/lines'])
    expectProblem(await post('/knowledge', {title: 't', body: 'b', anchors: [{path: '../etc/passwd'}]}), 422)
    expectProblem(await post('/knowledge', {title: 't', body: 'b', anchors: Array.from({length: 21}, (_, i) => ({path: `f${i}.ts`}))}), 422)
  })

  it('PATCH replaces the set; an equal anchor with the same commit and hash keeps what its check found', async () => {
    const e = await createEntry(d, {scope: 'global', anchors: [{path: 'a.ts', lines: '1-5', commit: COMMIT, hash: HASH_A}]})
    const checked = await post(`/knowledge/${e.id}/anchors/check`, {
      commit: 'bbbbbbb',
      results: [{path: 'a.ts', lines: '1-5', state: 'changed'}],
    })
    expect(checked.body.anchors[0].state).toBe('changed')
    const patched = await d.request('PATCH', `/knowledge/${e.id}`, {
      body: {anchors: [{path: 'a.ts', lines: '1-5', commit: COMMIT, hash: HASH_A}, {path: 'b.ts'}]},
    })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.body.anchors.map((a: any) => [a.path, a.state])).toEqual([
      ['a.ts', 'changed'],
      ['b.ts', 'unknown'],
    ])
    expect(patched.body.version).toBe(2)
    const rebased = await d.request('PATCH', `/knowledge/${e.id}`, {
      body: {anchors: [{path: 'a.ts', lines: '1-5', commit: 'ccccccc', hash: HASH_B}]},
    })
    expect(rebased.body.anchors).toMatchObject([{path: 'a.ts', state: 'current', commit: 'ccccccc', hash: HASH_B}])
    expectProblem(await d.request('PATCH', `/knowledge/${e.id}`, {body: {anchors: [{path: 'a.ts', lines: '5-1'}]}}), 422, [
      'anchors/0/lines',
    ])
    expect((await d.request('PATCH', `/knowledge/${e.id}`, {body: {anchors: []}})).body.anchors).toEqual([])
  })
})

describe('POST /knowledge/:id/anchors/check', () => {
  it('changed → stale naming the commit; moved → the path follows and it stays fresh; deleted → stale; no version bump', async () => {
    const e = await createEntry(d, {
      scope: 'global',
      anchors: [
        {path: 'src/db/pool.ts', lines: '40-62', commit: COMMIT, hash: HASH_A},
        {path: 'src/old.ts', commit: COMMIT, hash: HASH_A},
        {path: 'src/gone.ts', symbol: 'gone', commit: COMMIT, hash: HASH_A},
      ],
    })
    const moved = await post(
      `/knowledge/${e.id}/anchors/check`,
      {commit: 'd4e5f6a7', results: [{path: 'src/old.ts', state: 'moved', moved_to: {path: 'src/new.ts', lines: '3-9'}, hash: HASH_B}]},
      ben,
    )
    expect(moved.status, moved.text).toBe(200)
    expect(moved.body.anchors[1]).toMatchObject({
      path: 'src/new.ts',
      lines: '3-9',
      state: 'moved',
      hash: HASH_B,
      checked_commit: 'd4e5f6a7',
    })
    expect(moved.body.freshness.state).toBe('fresh')
    const changed = await post(`/knowledge/${e.id}/anchors/check`, {
      commit: 'e5f6a7b8c9',
      results: [
        {path: 'src/db/pool.ts', lines: '40-62', state: 'changed', hash: HASH_B},
        {path: 'src/gone.ts', symbol: 'gone', state: 'deleted'},
        {path: 'not/an/anchor.ts', state: 'deleted'},
      ],
    })
    expect(changed.status).toBe(200)
    expect(changed.body.anchors[0]).toMatchObject({state: 'changed', hash: HASH_A, checked_commit: 'e5f6a7b8c9'})
    expect(changed.body.freshness.state).toBe('stale')
    expect(changed.body.freshness.reasons.map((r: any) => r.kind)).toEqual(['anchor_changed', 'anchor_deleted'])
    expect(changed.body.freshness.reasons[0].detail).toBe('anchor src/db/pool.ts:40-62 changed in e5f6a7b')
    expect(changed.body.freshness.reasons[1].detail).toContain('src/gone.ts#gone was deleted')
    expect(changed.body.confidence).toBeLessThan(moved.body.confidence)
    expect(changed.body.version).toBe(e.version)
    const summary = await d.request('GET', `/knowledge/${e.id}`, {query: {detail: 'summary'}})
    expect(summary.body.freshness).toBe('stale')
    expectProblem(await post(`/knowledge/${e.id}/anchors/check`, {commit: 'abcdef1', results: [{path: 'a', state: 'moved'}]}), 422, [
      'results/0/moved_to',
    ])
  })

  it('is 404 for an entry the caller cannot see', async () => {
    const e = await createEntry(d, {scope: 'private'})
    expectProblem(await post(`/knowledge/${e.id}/anchors/check`, {commit: 'abcdef1', results: [{path: 'a', state: 'current'}]}, ben), 404)
    expectProblem(await post(`/knowledge/${e.id}/verify`, {}, ben), 404)
    expectProblem(await post(`/knowledge/${e.id}/flags`, {reason: 'stale'}, ben), 404)
    expectProblem(await d.request('DELETE', `/knowledge/${e.id}/flags/mine`, {key: ben}), 404)
    expectProblem(await post(`/knowledge/${MISSING_ID}/verify`, {}), 404)
  })
})

describe('flags and verify', () => {
  it('two members flag, a repeat replaces, withdrawals; verify re-bases anchors and withdraws only your own flag', async () => {
    const e = await createEntry(d, {
      scope: 'project',
      project_id: projectId,
      anchors: [{path: 'a.ts', lines: '1-2', commit: COMMIT, hash: HASH_A}],
    })
    const first = await post(`/knowledge/${e.id}/flags`, {reason: 'stale', note: 'the pool moved'}, ben)
    expect(first.status, first.text).toBe(201)
    expect(first.body.flags).toEqual({stale: 1, incorrect: 0, duplicate: 0, obsolete: 0})
    expect(first.body.freshness.reasons).toMatchObject([{kind: 'flagged', detail: '1 open flag: 1 stale'}])
    const replaced = await post(`/knowledge/${e.id}/flags`, {reason: 'incorrect'}, ben)
    expect(replaced.status).toBe(200)
    expect(replaced.body.flags).toEqual({stale: 0, incorrect: 1, duplicate: 0, obsolete: 0})
    const other = await post(`/knowledge/${e.id}/flags`, {reason: 'obsolete'}, carol)
    expect(other.status).toBe(201)
    expect(other.body.flags).toMatchObject({incorrect: 1, obsolete: 1})
    expect(other.body.version).toBe(e.version)
    expect(other.body.confidence).toBeLessThan(first.body.confidence)
    // duplicate_of: only with reason duplicate, and an entry the caller can see.
    expectProblem(await post(`/knowledge/${e.id}/flags`, {reason: 'stale', duplicate_of: e.id}, ben), 422, ['duplicate_of'])
    expectProblem(await post(`/knowledge/${e.id}/flags`, {reason: 'duplicate', duplicate_of: MISSING_ID}, ben), 422, ['duplicate_of'])
    const hidden = await createEntry(d, {scope: 'private'})
    expectProblem(await post(`/knowledge/${e.id}/flags`, {reason: 'duplicate', duplicate_of: hidden.id}, ben), 422, ['duplicate_of'])
    // Verify by ben: his flag goes, carol's stays; the anchor sent is re-based, an unknown one ignored.
    const verified = await post(
      `/knowledge/${e.id}/verify`,
      {note: 'Checked on main today', anchors: [{path: 'a.ts', lines: '1-2', commit: 'fedcba9', hash: HASH_B}, {path: 'zzz.ts'}]},
      ben,
    )
    expect(verified.status, verified.text).toBe(200)
    expect(verified.body.flags).toEqual({stale: 0, incorrect: 0, duplicate: 0, obsolete: 1})
    expect(verified.body.freshness.verified_by).toMatchObject({name: 'ben'})
    expect(verified.body.anchors).toEqual([
      expect.objectContaining({path: 'a.ts', commit: 'fedcba9', hash: HASH_B, state: 'current', checked_commit: 'fedcba9'}),
    ])
    expect(verified.body.comments.at(-1)).toMatchObject({type: 'note', body: 'Verified: Checked on main today', author: {name: 'ben'}})
    // Carol withdraws: fresh, verified; a second withdrawal answers the entry unchanged.
    const withdrawn = await d.request('DELETE', `/knowledge/${e.id}/flags/mine`, {key: carol})
    expect(withdrawn.status).toBe(200)
    expect(withdrawn.body.freshness).toMatchObject({state: 'fresh', reasons: []})
    const again = await d.request('DELETE', `/knowledge/${e.id}/flags/mine`, {key: carol})
    expect(again.status).toBe(200)
    expect(again.body.flags).toEqual(withdrawn.body.flags)
    expect(again.body.confidence).toBeGreaterThan(other.body.confidence)
  })

  it("the author's edit of the content closes every open flag; a tag edit does not", async () => {
    const e = await createEntry(d, {scope: 'global'})
    await post(`/knowledge/${e.id}/flags`, {reason: 'stale'}, ben)
    const tagged = await d.request('PATCH', `/knowledge/${e.id}`, {body: {tags: ['pool']}})
    expect(tagged.body.flags.stale).toBe(1)
    const edited = await d.request('PATCH', `/knowledge/${e.id}`, {body: {body: 'Now it says the right thing.'}})
    expect(edited.body.flags.stale).toBe(0)
    expect(edited.body.freshness.state).toBe('fresh')
  })

  it('refuses a note with a secret on a shared entry, as a comment is', async () => {
    const e = await createEntry(d, {scope: 'global'})
    const res = await post(`/knowledge/${e.id}/flags`, {reason: 'stale', note: `the token is ${secret('github-pat')} now`}, ben)
    expect(res.status).toBe(422)
    expect(res.body.code).toBe('sensitive_content')
    expect(res.text).not.toContain(secret('github-pat'))
    expect((await d.request('GET', `/knowledge/${e.id}`)).body.flags.stale).toBe(0)
  })

  it('honours Idempotency-Key on verify: a retry replays the answer', async () => {
    const e = await createEntry(d, {scope: 'global'})
    const headers = {'idempotency-key': 'verify-once-1'}
    const one = await d.request('POST', `/knowledge/${e.id}/verify`, {body: {note: 'ok'}, headers})
    const two = await d.request('POST', `/knowledge/${e.id}/verify`, {body: {note: 'ok'}, headers})
    expect(two.status).toBe(one.status)
    expect(two.body.freshness.verified_at).toBe(one.body.freshness.verified_at)
    expect(two.body.comments.filter((c: any) => c.body === 'Verified: ok')).toHaveLength(1)
  })
})

describe('GET and PATCH /projects/:id', () => {
  it('members read it; maintainers (and the owner) change verify_after_days; a member is 403, anyone else 404', async () => {
    const got = await d.request('GET', `/projects/${projectId}`, {key: carol})
    expect(got.status).toBe(200)
    expect(got.body).toMatchObject({id: projectId, role: 'member', verify_after_days: 180})
    expectProblem(await d.request('PATCH', `/projects/${projectId}`, {body: {verify_after_days: 30}, key: carol}), 403)
    const outsider = await newPrincipal(d, 'dave')
    expectProblem(await d.request('GET', `/projects/${projectId}`, {key: outsider}), 404)
    expectProblem(await d.request('PATCH', `/projects/${projectId}`, {body: {verify_after_days: 30}, key: outsider}), 404)
    expectProblem(await d.request('GET', `/projects/${MISSING_ID}`), 404)
    const patched = await d.request('PATCH', `/projects/${projectId}`, {body: {verify_after_days: 30}})
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({role: 'maintainer', verify_after_days: 30})
    expect((await d.request('GET', '/projects', {key: carol})).body.items[0].verify_after_days).toBe(30)
    expectProblem(await d.request('PATCH', `/projects/${projectId}`, {body: {verify_after_days: -1}}), 422)
    expect((await d.request('PATCH', `/projects/${projectId}`, {body: {verify_after_days: 180}})).status).toBe(200)
  })
})
