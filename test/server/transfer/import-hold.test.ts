/**
 * An import or a create of large entries holds the event loop less (issue 24; docs/api.md, "Import"): an entry of 100,000
 * characters of distinct words brings 16,000 vocabulary terms, whose inserts were made in one turn with the
 * entry's; they are added a slice at a time between other requests. What stays in one turn is the entry's own
 * full-text index insert. Measured in process, where the daemon and this test share one loop
 * (test/helpers/loop-hold.ts), in CPU time of the process; the real waits are in docs/performance.md.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {prng} from '../../../bench/corpus.js'
import {importBody} from '../../../bench/hostile-shapes.js'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {longestHold} from '../../helpers/loop-hold.js'

/** CPU time the loop may be held by one turn of the import: before 178–213 ms, after 115–120 ms on a loaded machine. */
const LOOP_BOUND_MS = 150

/** 100,000 characters of random 5-letter words: about 16,600 distinct terms. */
function distinctWords(seed: number): string {
  const r = prng(seed)
  const out: string[] = []
  for (let length = 0; length < 100_000 - 6; length += 6)
    out.push(Array.from({length: 5}, () => String.fromCharCode(97 + Math.floor(r() * 26))).join(''))
  return out.join(' ')
}

let d: TestDaemon
beforeAll(async () => {
  d = await startInProcessDaemon()
})
afterAll(async () => {
  await d?.stop()
})

describe('an import of entries with thousands of distinct words', () => {
  it('holds the loop for at most a slice, and every word is in the vocabulary afterwards', {timeout: 120_000}, async () => {
    const entries = [1, 2, 3, 4].map((i) => ({title: `distinct words ${i}`, body: distinctWords(i)}))
    // Warm: the first import compiles the import path.
    expect(
      (await d.request('POST', '/import', {raw: importBody([{title: 'warm', body: 'up'}]), contentType: 'application/x-ndjson'})).status,
    ).toBe(200)
    // A dry run applies every record as the import does, then rolls back: no COMMIT, whose wait for the disk and
    // the checkpoint thread it starts (CPU this process spends, though not on the loop) would blur the measure.
    const {result, worstMs} = await longestHold(() =>
      d.request('POST', '/import', {query: {dry_run: true}, raw: importBody(entries), contentType: 'application/x-ndjson'}),
    )
    expect(result.status, result.text.slice(0, 300)).toBe(200)
    expect(result.body.created).toBe(4)
    expect(worstMs).toBeLessThan(LOOP_BOUND_MS)
    const res = await d.request('POST', '/import', {raw: importBody(entries), contentType: 'application/x-ndjson'})
    expect(res.status, res.text.slice(0, 300)).toBe(200)
    // The deferred terms were all added: a misspelt word of the last entry's end is corrected to it.
    const last = entries[3]!.body.split(' ').at(-2)!
    const typo = `${last.slice(0, 4)}${last[4] === 'z' ? 'y' : 'z'}`
    const found = await d.request('GET', '/search', {query: {q: `${typo} `}})
    expect(found.status).toBe(200)
    expect(found.body.items.map((h: {title: string}) => h.title)).toContain('distinct words 4')
  })
})

describe('a create of an entry with thousands of distinct words', () => {
  it('adds its vocabulary in slices after the entry, every word found once the answer came', {timeout: 120_000}, async () => {
    // Warm: the first create compiles the create path.
    expect((await d.request('POST', '/knowledge', {body: {title: 'warm', body: 'up', scope: 'global'}})).status).toBe(201)
    const body = distinctWords(7)
    const {result, worstMs} = await longestHold(() =>
      d.request('POST', '/knowledge', {body: {title: 'distinct words created', body, scope: 'global'}}),
    )
    expect(result.status, result.text.slice(0, 300)).toBe(201)
    // Its ~16,600 terms go in 500 at a time, a turn of the loop between slices. In one turn they took 99 ms of CPU on
    // a quiet machine; sliced, the longest turn (the entry's own full-text insert) is 49 ms quiet and 88 ms in a loaded
    // CI run, so this bound (the import's) catches only a gross regression: docs/performance.md has the measure.
    expect(worstMs).toBeLessThan(LOOP_BOUND_MS)
    const last = body.split(' ').at(-2)!
    const typo = `${last.slice(0, 4)}${last[4] === 'z' ? 'y' : 'z'}`
    const found = await d.request('GET', '/search', {query: {q: `${typo} `}})
    expect(found.body.items.map((h: {title: string}) => h.title)).toContain('distinct words created')
  })
})
