/**
 * @module Similar entries on write over HTTP (docs/api.md, "Similar entries on write"): precision and recall on the
 * labelled pairs of bench/collections/similar (the first of every pair created, then each second one created, its
 * `similar` read, and deleted again), on_similar=refuse, visibility, and a fork into a wider scope.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type HttpResult, type TestDaemon} from '../../helpers/daemon.js'
import {importText, toNdjson} from '../transfer/support.js'
import {createEntry, expectProblem} from './support.js'

interface Pair {
  id: string
  label: 'same' | 'related' | 'unrelated'
  a: {title: string; body: string}
  b: {title: string; body: string}
}
const PAIRS = readFileSync(join(import.meta.dirname, '../../../bench/collections/similar/pairs.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Pair)

let d: TestDaemon
beforeAll(async () => {
  d = await startInProcessDaemon()
})
afterAll(async () => {
  await d?.stop()
})

describe('the labelled set (bench/collections/similar)', () => {
  it('has at least 100 pairs, paraphrases and related or unrelated ones', () => {
    expect(PAIRS.length).toBeGreaterThanOrEqual(100)
    expect(PAIRS.filter((p) => p.label === 'same').length).toBeGreaterThanOrEqual(50)
    expect(PAIRS.filter((p) => p.label === 'related').length).toBeGreaterThanOrEqual(30)
  })

  it('reports the first of a pair of paraphrases and little else: precision ≥ 0.9, recall ≥ 0.8', async () => {
    const firstOf = new Map<string, string>()
    for (const p of PAIRS) firstOf.set((await createEntry(d, {...p.a, scope: 'global'})).id, p.id)
    let truePositives = 0
    let reported = 0
    for (const p of PAIRS) {
      const res = await d.request('POST', '/knowledge', {body: {...p.b, scope: 'global'}})
      expect(res.status).toBe(201)
      const similar = res.body.similar as Array<{id: string; title: string; similarity: number}>
      for (const s of similar) {
        expect(s.similarity).toBeGreaterThan(0)
        expect(s.similarity).toBeLessThanOrEqual(1)
        expect(firstOf.has(s.id), `${p.id} reported ${s.title}`).toBe(true)
      }
      reported += similar.length
      if (p.label === 'same' && similar.some((s) => firstOf.get(s.id) === p.id)) truePositives++
      expect((await d.request('DELETE', `/knowledge/${res.body.id}`)).status).toBe(204)
    }
    const same = PAIRS.filter((p) => p.label === 'same').length
    const precision = truePositives / Math.max(1, reported)
    const recall = truePositives / same
    // Recorded in docs/search.md, "Similar entries".
    console.log(`similar: precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)} (${truePositives}/${same}, ${reported} reported)`)
    expect(precision).toBeGreaterThanOrEqual(0.9)
    expect(recall).toBeGreaterThanOrEqual(0.8)
  }, 120_000)
})

describe('POST /knowledge with similar entries', () => {
  const original = {
    title: 'Zebra queue drops messages over 64 KiB',
    body: 'The zebra broker logs `error: frame too large (65537 > 65536)` and drops the message. Raise zebra.max_frame to 1 MiB.',
  }
  const copy = {
    title: 'Messages over 64 KiB dropped by the zebra queue',
    body: 'Big payloads vanish: zebra logs error: frame too large (65537 > 65536). Setting zebra.max_frame to 1 MiB fixed it.',
  }

  it('answers them; on_similar=refuse gives 409 possible_duplicate with them and creates nothing', async () => {
    const first = await createEntry(d, {...original, scope: 'global'})
    const res = await d.request('POST', '/knowledge', {body: {...copy, scope: 'global'}, query: {on_similar: 'refuse'}})
    const p = expectProblem409(res)
    expect(p.similar[0]).toMatchObject({id: first.id, title: original.title})
    const listed = await d.request('GET', '/search', {query: {q: 'zebra', limit: 10}})
    expect(listed.body.items.map((i: {id: string}) => i.id)).toEqual([first.id])
    expectProblem(await d.request('POST', '/knowledge', {body: copy, query: {on_similar: 'sometimes'}}), 400)
    // Nothing alike: created, with an empty list, refuse or not.
    const other = await d.request('POST', '/knowledge', {
      body: {title: 'Giraffe CSS grid gap', body: 'Use gap instead of margins.'},
      query: {on_similar: 'refuse'},
    })
    expect(other.status).toBe(201)
    expect(other.body.similar).toEqual([])
  })

  it('reports only entries the caller can see, and a fork into a wider scope reports others than its parent', async () => {
    const zoe = await newPrincipal(d, 'zoe')
    const hidden = await createEntry(d, {...original, title: 'Zebra frames (private)', scope: 'private'}, zoe)
    const res = await d.request('POST', '/knowledge', {body: {...copy, scope: 'private'}})
    expect(res.status).toBe(201)
    expect(res.body.similar.map((s: {id: string}) => s.id)).not.toContain(hidden.id)
    expect(res.body.similar.length).toBeGreaterThan(0)
    // Zoe forks her private note into global scope: the global original is reported, her parent is not.
    const fork = await d.request('POST', `/knowledge/${hidden.id}/fork`, {body: {scope: 'global'}, key: zoe})
    expect(fork.status).toBe(201)
    const ids = fork.body.similar.map((s: {id: string}) => s.id)
    expect(ids).not.toContain(hidden.id)
    expect(ids.length).toBeGreaterThan(0)
  })
})

describe('POST /import reports similar entries', () => {
  it("lists imported entries that look like ones the importer could already see, never the import's own", async () => {
    const existing = await createEntry(d, {
      title: 'Ferret build fails: error: ferret cache lock held (pid 4242)',
      body: 'The ferret build stops with `error: ferret cache lock held (pid 4242)`. Remove ~/.ferret/lock when no build runs.',
      scope: 'global',
    })
    const file = toNdjson([
      {kind: 'kb-export', version: 1},
      {
        kind: 'entry',
        id: '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7981',
        title: 'ferret cache lock held (pid 4242) breaks builds',
        body: 'Builds fail: error: ferret cache lock held (pid 4242). Deleting ~/.ferret/lock while nothing builds fixed it.',
        scope: 'global',
      },
      {kind: 'entry', id: '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7982', title: 'Okapi colours', body: 'Use the okapi palette.', scope: 'global'},
    ])
    const dry = await importText(d, file, {dry_run: true})
    expect(dry.status).toBe(200)
    expect(dry.body.similar).toEqual([{line: 2, similar: [expect.objectContaining({id: existing.id})]}])
    const real = await importText(d, file)
    expect(real.body.created).toBe(2)
    expect(real.body.similar.map((s: {line: number}) => s.line)).toEqual([2])
    // Imported again: skipped, and its own entries (now stored) are not reported as similar to themselves.
    const again = await importText(d, file)
    expect(again.body.skipped).toBe(2)
    expect(again.body.similar[0].similar.map((s: {id: string}) => s.id)).toEqual([existing.id])
  })
})

function expectProblem409(res: HttpResult): Record<string, any> {
  expect(res.status, res.text).toBe(409)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(res.body.code).toBe('possible_duplicate')
  expect(Array.isArray(res.body.similar)).toBe(true)
  return res.body
}
