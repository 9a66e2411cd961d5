/**
 * Import keeps authorship honest (docs/security.md): a member's import may carry only comments and
 * resolutions the member wrote — others are rejected line by line and nothing is applied — and may not
 * erase others' comments by overwriting; a dry run answers exactly as if entries the member cannot see did
 * not exist. The owner may still import anyone's.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {importText, toNdjson} from './support.js'

let d: TestDaemon
let carol: string
let carolId: string
let daveId: string
const header = {kind: 'kb-export', version: 1}
let n = 0
/** A fresh entry id (UUID v7 shape) for each line. */
const newId = (): string => `0193a7e2-5c1e-7b3a-9f1e-${String(++n).padStart(12, '0')}`

beforeAll(async () => {
  d = await startInProcessDaemon()
  carol = await newPrincipal(d, 'carol')
  const dave = await newPrincipal(d, 'dave')
  carolId = (await d.request('GET', '/api-keys', {key: carol})).body.items[0].principal.id
  daveId = (await d.request('GET', '/api-keys', {key: dave})).body.items[0].principal.id
})
afterAll(async () => {
  await d?.stop()
})

const entry = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  kind: 'entry',
  id: newId(),
  title: 'Mine',
  body: 'b',
  author: {id: carolId, name: 'carol'},
  ...over,
})
const comment = (authorId: string, name: string): Record<string, unknown> => ({
  id: newId(),
  body: 'a comment',
  author: {id: authorId, name},
  created_at: '2020-01-01T00:00:00.000Z',
})

describe("a member's import", () => {
  it("rejects a comment in another principal's name, on its line, and applies nothing", async () => {
    const ok = entry()
    const forged = entry({comments: [comment(carolId, 'carol'), comment(daveId, 'dave')]})
    const r = await importText(d, toNdjson([header, ok, forged]), {}, carol)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({created: 0, updated: 0, skipped: 0})
    expect(r.body.rejected).toEqual([
      {line: 3, reason: 'comments/1/author: dave is not you; only the owner may import comments of other authors'},
    ])
    expect((await d.request('GET', `/knowledge/${ok.id}`, {key: carol})).status).toBe(404)
  })

  it("rejects a resolution in another principal's name", async () => {
    const forged = entry({
      status: 'resolved',
      resolution: {note: 'fixed', url: null, resolved_by: {id: daveId, name: 'dave'}, resolved_at: '2020-01-02T00:00:00.000Z'},
    })
    const r = await importText(d, toNdjson([header, forged]), {}, carol)
    expect(r.body.rejected).toEqual([
      {line: 2, reason: 'resolution/resolved_by: dave is not you; only the owner may import resolutions of other principals'},
    ])
  })

  it("rejects an open flag in another principal's name; its own flag and trust fields import (a positive control)", async () => {
    const flagBy = (id: string, name: string): Record<string, unknown> => ({
      by: {id, name},
      reason: 'stale',
      created_at: '2020-01-01T00:00:00.000Z',
    })
    const forged = entry({open_flags: [flagBy(daveId, 'dave')]})
    const r = await importText(d, toNdjson([header, forged]), {}, carol)
    expect(r.body.rejected).toEqual([
      {line: 2, reason: 'open_flags/0/by: dave is not you; only the owner may import flags of other principals'},
    ])
    const own = entry({
      open_flags: [flagBy(carolId, 'carol')],
      anchors: [{path: 'src/a.ts', lines: '1-3', state: 'changed', checked_commit: 'abcdef1'}],
      corrections: 2,
    })
    const ok = await importText(d, toNdjson([header, own]), {}, carol)
    expect(ok.body).toMatchObject({created: 1, rejected: []})
    const got = (await d.request('GET', `/knowledge/${own.id}`, {key: carol})).body
    expect(got.flags).toEqual({stale: 1, incorrect: 0, duplicate: 0, obsolete: 0})
    expect(got.freshness.reasons.map((x: any) => x.kind)).toEqual(['anchor_changed', 'flagged'])
    const twice = await importText(
      d,
      toNdjson([header, entry({open_flags: [flagBy(carolId, 'carol'), flagBy(carolId, 'carol')]})]),
      {},
      carol,
    )
    expect(twice.body.rejected[0].reason).toContain('open_flags/1/by: one open flag per principal')
  })

  it("accepts its own comments and resolution, with their times (positive control); the owner may import anyone's", async () => {
    const own = entry({
      status: 'resolved',
      resolution: {note: 'fixed', url: null, resolved_by: {id: carolId, name: 'carol'}, resolved_at: '2020-01-02T00:00:00.000Z'},
      comments: [comment(carolId, 'carol')],
    })
    expect((await importText(d, toNdjson([header, own]), {}, carol)).body).toMatchObject({created: 1, rejected: []})
    const got = (await d.request('GET', `/knowledge/${own.id}`, {key: carol, query: {detail: 'full'}})).body
    expect(got.comments.map((c: any) => [c.author.name, c.created_at])).toEqual([['carol', '2020-01-01T00:00:00.000Z']])
    expect(got.resolution.resolved_by.name).toBe('carol')
    const byOwner = entry({comments: [comment(daveId, 'dave')]})
    expect((await importText(d, toNdjson([header, byOwner]))).body).toMatchObject({created: 1, rejected: []})
  })

  it("cannot erase others' comments by overwriting its own entry", async () => {
    const mine = await d.request('POST', '/knowledge', {key: carol, body: {title: 'Commented by others', body: 'b', scope: 'global'}})
    expect((await d.request('POST', `/knowledge/${mine.body.id}/comments`, {body: {body: 'owner was here'}})).status).toBe(201)
    const r = await importText(
      d,
      toNdjson([
        header,
        {kind: 'entry', id: mine.body.id, title: 'Rewritten', body: 'b', scope: 'global', author: {id: carolId, name: 'carol'}},
      ]),
      {on_conflict: 'overwrite'},
      carol,
    )
    expect(r.body.rejected).toEqual([
      {line: 2, reason: `entry ${mine.body.id} has comments by others here; only the owner may overwrite it`},
    ])
    const after = (await d.request('GET', `/knowledge/${mine.body.id}`, {query: {detail: 'full'}})).body
    expect(after.title).toBe('Commented by others')
    expect(after.comments.map((c: any) => c.body)).toEqual(['owner was here'])
  })
})

describe('a dry run reveals nothing about entries the caller cannot see', () => {
  it('answers for a hidden entry id (and a hidden comment id) exactly as for ids that exist nowhere', async () => {
    const hidden = await d.request('POST', '/knowledge', {body: {title: 'Owner private', body: 'secret', scope: 'private'}})
    expect(hidden.status).toBe(201)
    const hiddenComment = await d.request('POST', `/knowledge/${hidden.body.id}/comments`, {body: {body: 'secret too'}})
    expect(hiddenComment.status).toBe(201)
    expect((await d.request('GET', `/knowledge/${hidden.body.id}`, {key: carol})).status).toBe(404)

    for (const onConflict of ['skip', 'overwrite']) {
      const query = {dry_run: true, on_conflict: onConflict}
      const probe = await importText(d, toNdjson([header, entry({id: hidden.body.id})]), query, carol)
      const control = await importText(d, toNdjson([header, entry()]), query, carol)
      expect(probe.status).toBe(200)
      expect(probe.body).toEqual(control.body)
      expect(probe.body).toMatchObject({created: 1, rejected: [], dry_run: true})

      const commentProbe = await importText(
        d,
        toNdjson([header, entry({comments: [{...comment(carolId, 'carol'), id: hiddenComment.body.id}]})]),
        query,
        carol,
      )
      expect(commentProbe.body).toEqual(control.body)
    }
    // The entry itself is untouched, and a real import cannot take its id (without saying whose it is).
    const real = await importText(d, toNdjson([header, entry({id: hidden.body.id})]), {}, carol)
    expect(real.body.rejected).toEqual([{line: 2, reason: `entry ${hidden.body.id} cannot be created here: the id is taken`}])
    expect((await d.request('GET', `/knowledge/${hidden.body.id}`)).body.title).toBe('Owner private')
  })
})
