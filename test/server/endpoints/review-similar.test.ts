/**
 * @module Similar pairs in the review queue over HTTP (docs/api.md, "Review queue"): a pair found when an entry is
 * written (create, fork, import) is counted and listed with the other entry; it leaves once a side is superseded,
 * merged or deleted, or a person dismisses it; nobody sees a pair with an entry they cannot see.
 */
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {importText, toNdjson} from '../transfer/support.js'
import {expectProblem, MISSING_ID} from './support.js'

let d: TestDaemon
let ann: string
let ben: string
let cid: string

beforeAll(async () => {
  d = await startInProcessDaemon()
  ann = await newPrincipal(d, 'ann')
  ben = await newPrincipal(d, 'ben')
  cid = await newPrincipal(d, 'cid')
})
afterAll(async () => {
  await d?.stop()
})

/** Two paraphrases of one problem and fix (bench/collections/similar, p001), told apart by `tag`. */
const pair = (tag: string) => ({
  a: {
    title: `Daemon ${tag} fails to start: EADDRINUSE on port 7411`,
    body:
      'Starting kb daemon fails with `Error: listen EADDRINUSE: address already in use 127.0.0.1:7411`. An old daemon process ' +
      `is still running. Fix: run \`kb daemon stop\` or kill the stale pid from daemon.json, then start again. ${tag}`,
  },
  b: {
    title: `kb daemon ${tag} won't start because port 7411 is taken`,
    body:
      'After a crash the daemon refused to come up: listen EADDRINUSE 127.0.0.1:7411. A leftover daemon still held the port. ' +
      `Stopping it with kb daemon stop (or killing the pid listed in daemon.json) fixed the start. ${tag}`,
  },
})

/** Entries made by a test, each with its author's key: deleted after it, so that no test sees another's pairs. */
const made: Array<[string, string]> = []
afterEach(async () => {
  for (const [id, key] of made.splice(0)) await d.request('DELETE', `/knowledge/${id}`, {key})
})

/** Creates the entry; the answer with `similar`. */
const create = async (body: Record<string, unknown>, key: string): Promise<Record<string, any>> => {
  const res = await d.request('POST', '/knowledge', {body, key})
  expect(res.status, res.text).toBe(201)
  made.push([res.body.id, key])
  return res.body
}

const queue = async (key: string, kind?: string) => {
  const res = await d.request('GET', '/review', {query: kind ? {kind, limit: 100} : {limit: 100}, key})
  expect(res.status, res.text).toBe(200)
  return res.body as {counts: Record<string, number>; items: Array<{entry: {id: string}; reasons: any[]}>}
}
const similarOf = (q: Awaited<ReturnType<typeof queue>>, id: string) =>
  q.items.find((i) => i.entry.id === id)?.reasons.filter((r) => r.kind === 'similar') ?? []
const dismiss = (id: string, other: string, key: string) => d.request('POST', `/knowledge/${id}/similar/dismiss`, {body: {other}, key})

describe('similar pairs in the review queue', () => {
  it('counts and lists a pair found at create, naming the other entry; kind=similar lists only those', async () => {
    const p = pair('zeta')
    const a = await create({...p.a, scope: 'global'}, ann)
    const b = await create({...p.b, scope: 'global'}, ben)
    expect(b.similar.map((s: {id: string}) => s.id)).toEqual([a.id])
    const q = await queue(ben)
    expect(q.counts.similar).toBe(1)
    const reasons = similarOf(q, b.id)
    expect(reasons).toEqual([{kind: 'similar', detail: expect.stringContaining(a.id), other: {id: a.id, title: a.title}}])
    const only = await queue(ben, 'similar')
    expect(only.items.map((i) => i.entry.id)).toEqual([b.id])
    expect(only.counts).toEqual(q.counts)
    // Anyone who sees both sees the pair.
    expect((await queue(cid)).counts.similar).toBe(1)
    // The pair goes with its entry.
    expect((await d.request('DELETE', `/knowledge/${b.id}`, {key: ben})).status).toBe(204)
    expect((await queue(ben)).counts.similar).toBe(0)
  })

  it('never shows a pair with an entry the caller cannot see', async () => {
    const p = pair('eta')
    const a = await create({...p.a, scope: 'global'}, ann)
    // Ben's private copy: the pair is his to see, not Ann's nor Cid's.
    const b = await create({...p.b, scope: 'private'}, ben)
    expect(b.similar.map((s: {id: string}) => s.id)).toEqual([a.id])
    expect((await queue(ben)).counts.similar).toBe(1)
    for (const other of [ann, cid]) {
      const q = await queue(other)
      expect(q.counts.similar).toBe(0)
      expect(similarOf(q, a.id)).toEqual([])
      expect((await queue(other, 'similar')).items).toEqual([])
    }
    // Dismissing a pair with an entry one cannot see is 404, as the entry is.
    expectProblem(await dismiss(a.id, b.id, ann), 404)
  })

  it('a dismissed pair leaves for good; only a curator of either entry may dismiss it', async () => {
    const p = pair('theta')
    const a = await create({...p.a, scope: 'global'}, ann)
    const b = await create({...p.b, scope: 'global'}, ben)
    // Cid may curate neither.
    expectProblem(await dismiss(b.id, a.id, cid), 403)
    expectProblem(await dismiss(a.id, MISSING_ID, ann), 404)
    const other = await create({title: 'Unrelated kiwi', body: 'Nothing alike.', scope: 'global'}, ann)
    expectProblem(await dismiss(a.id, other.id, ann), 404)
    // Ann, the author of one side, in either order.
    const first = await dismiss(a.id, b.id, ann)
    expect(first.status, first.text).toBe(200)
    expect(first.body).toEqual({id: a.id, other: b.id, dismissed_at: expect.any(String)})
    const again = await dismiss(b.id, a.id, ben)
    expect(again.body.dismissed_at).toBe(first.body.dismissed_at)
    expect((await queue(ben)).counts.similar).toBe(0)
    expect(similarOf(await queue(ben), b.id)).toEqual([])
  })

  it('leaves the queue once either side is superseded or merged, and comes back when the supersede is withdrawn', async () => {
    const p = pair('iota')
    const a = await create({...p.a, scope: 'global'}, ben)
    const b = await create({...p.b, scope: 'global'}, ben)
    expect((await queue(ben)).counts.similar).toBe(1)
    const sup = await d.request('POST', `/knowledge/${a.id}/supersede`, {body: {by: b.id}, key: ben})
    expect(sup.status).toBe(200)
    expect((await queue(ben)).counts.similar).toBe(0)
    await d.request('POST', `/knowledge/${a.id}/supersede`, {body: {by: null}, key: ben})
    expect((await queue(ben)).counts.similar).toBe(1)
    const merged = await d.request('POST', `/knowledge/${b.id}/merge`, {body: {into: a.id}, key: ben})
    expect(merged.status).toBe(200)
    const q = await queue(ben)
    expect(q.counts.similar).toBe(0)
    expect(similarOf(q, b.id)).toEqual([])
  })

  it('records the pairs of a fork into a wider scope and of an import, not of a dry run', async () => {
    const p = pair('kappa')
    const a = await create({...p.a, scope: 'global'}, ann)
    const mine = await create({...p.b, scope: 'private'}, ben)
    // Ben's private entry was found like Ann's when written; dismissed, it is out of the way.
    expect((await dismiss(mine.id, a.id, ben)).status).toBe(200)
    const fork = await d.request('POST', `/knowledge/${mine.id}/fork`, {body: {scope: 'global'}, key: ben})
    expect(fork.status, fork.text).toBe(201)
    expect(fork.body.similar.map((s: {id: string}) => s.id)).toEqual([a.id])
    expect(similarOf(await queue(cid), fork.body.id).map((r) => r.other.id)).toEqual([a.id])
    expect((await d.request('DELETE', `/knowledge/${fork.body.id}`, {key: ben})).status).toBe(204)

    const id = '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7983'
    const file = toNdjson([
      {kind: 'kb-export', version: 1},
      {kind: 'entry', id, ...p.b, scope: 'global'},
    ])
    const imp = (dry: boolean) => importText(d, file, dry ? {dry_run: true} : {})
    const dry = await imp(true)
    expect(dry.status, dry.text).toBe(200)
    expect((await queue(cid)).counts.similar).toBe(0)
    const real = await imp(false)
    expect(real.status, real.text).toBe(200)
    made.push([id, d.ownerKey])
    expect(real.body.similar).toEqual([{line: 2, similar: [expect.objectContaining({id: a.id})]}])
    expect(similarOf(await queue(cid), id).map((r) => r.other.id)).toEqual([a.id])
  })
})
