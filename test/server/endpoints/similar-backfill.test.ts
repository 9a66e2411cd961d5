/**
 * @module The similar-pairs backfill (docs/search.md, "Similar entries"): a store whose entries were written before
 * kb kept pairs (made here by deleting the pairs and setting the backfill back to the start) gets them after the
 * daemon starts, as each entry's author would have been shown them, visibility kept; the work never holds the event
 * loop for long, even over entries of 100,000 characters; and its place is kept, so it ends.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {prng} from '../../../bench/corpus.js'
import {newPrincipal, queryStore, startInProcessDaemon, tempDir, type TestDaemon} from '../../helpers/daemon.js'
import {globalImport, longestHold} from '../../helpers/loop-hold.js'
import {importText} from '../transfer/support.js'
import {createEntry} from './support.js'

/** CPU time one turn of the loop may take while the backfill runs: the import's bound (import-hold.test.ts). */
const LOOP_BOUND_MS = 150

// The backfill's pause between batches: short, so the test does not wait on it.
process.env.KB_SIMILAR_BACKFILL_PAUSE_MS = '5'

/** 100,000 characters of random 5-letter words. */
function distinctWords(seed: number): string {
  const r = prng(seed)
  const out: string[] = []
  for (let length = 0; length < 100_000 - 6; length += 6)
    out.push(Array.from({length: 5}, () => String.fromCharCode(97 + Math.floor(r() * 26))).join(''))
  return out.join(' ')
}

const daemons: TestDaemon[] = []
afterAll(async () => {
  for (const d of daemons) await d.stop()
})

/** The store as a kb before similar pairs left it: no pair, and every entry still to be looked at. */
async function forgetPairs(d: TestDaemon): Promise<void> {
  await queryStore(d, 'DELETE FROM similar_pairs')
  await queryStore(d, 'UPDATE similar_backfill SET next_seq = 0, end_seq = (SELECT max(seq) FROM entries)')
}

/** Waits until the backfill has looked at every entry. */
async function backfilled(d: TestDaemon): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const [row] = await queryStore<{left: number}>(d, 'SELECT end_seq - next_seq AS left FROM similar_backfill')
    if (Number(row!.left) <= 0) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('the backfill did not end')
}

const similarIds = async (d: TestDaemon, key: string): Promise<string[]> => {
  const res = await d.request('GET', '/review', {query: {kind: 'similar'}, key})
  expect(res.status, res.text).toBe(200)
  return res.body.items.map((i: any) => `${i.entry.id}~${i.reasons.find((r: any) => r.kind === 'similar')?.other.id}`)
}

/** A daemon on the same data directory (and on PostgreSQL the same database) as `d`, once `d` has stopped. */
async function reopen(d: TestDaemon): Promise<TestDaemon> {
  await d.stop()
  const again = await startInProcessDaemon({dataDir: d.dataDir, ...(d.storeUrl ? {storeUrl: d.storeUrl} : {})})
  daemons.push(again)
  return again
}

describe('similar-pairs backfill', () => {
  it('records the pairs of entries written before kb kept them, each as its author would have seen them', async () => {
    const first = await startInProcessDaemon({dataDir: tempDir()})
    const ben = await newPrincipal(first, 'ben')
    const port = (who: string): {title: string; body: string} => ({
      title: `Daemon fails to start: EADDRINUSE on port 7411 (${who})`,
      body:
        'Starting kb daemon fails with `Error: listen EADDRINUSE: address already in use 127.0.0.1:7411`. An old daemon ' +
        'process is still running. Fix: run `kb daemon stop` or kill the stale pid from daemon.json, then start again.',
    })
    const a = await createEntry(first, {...port('ann'), scope: 'global'})
    const b = await createEntry(first, {...port('ben'), scope: 'private'}, ben)
    const other = await createEntry(first, {title: 'Rotating the signing key', body: 'Run kb keys rotate; old tokens stay valid a day.'})
    await forgetPairs(first)
    expect(await similarIds(first, ben)).toEqual([])

    const d = await reopen(first)
    await backfilled(d)
    // Ben's private entry looks like Ann's global one: Ben sees the pair; Ann cannot see his entry, so not she.
    expect(await similarIds(d, ben)).toEqual([`${b.id}~${a.id}`])
    expect(await similarIds(d, d.ownerKey)).toEqual([])
    expect((await d.request('GET', '/review', {key: ben})).body.counts.similar).toBe(1)
    const pairs = await queryStore<{entry_id: string; other_id: string}>(d, 'SELECT entry_id, other_id FROM similar_pairs')
    expect(pairs.map((p) => [p.entry_id, p.other_id])).toEqual([[b.id, a.id]])
    expect(pairs.flatMap((p) => [p.entry_id, p.other_id])).not.toContain(other.id)
  }, 120_000)

  it('never holds the event loop for long, even over entries of 100,000 characters, and ends', async () => {
    const first = await startInProcessDaemon({dataDir: tempDir()})
    // Alike entries (each looks like the others) and long ones of distinct words.
    const alike = await importText(first, globalImport(60, 'The pool runs dry under load: raise max_connections and restart the pool.'))
    expect(alike.status, alike.text).toBe(200)
    for (let i = 0; i < 3; i++) await createEntry(first, {title: `distinct words ${i}`, body: distinctWords(i + 1), scope: 'global'})
    await forgetPairs(first)

    // The daemon shares this process's event loop: what the backfill holds it for is what /health would wait.
    const d = await reopen(first)
    const {worstMs} = await longestHold(async () => backfilled(d))
    expect(worstMs).toBeLessThan(LOOP_BOUND_MS)
    const [row] = await queryStore<{n: number}>(d, 'SELECT count(DISTINCT entry_id) AS n FROM similar_pairs')
    expect(Number(row!.n)).toBeGreaterThanOrEqual(30)
    // Two daemons, an import and 100,000-character creates: minutes on a loaded machine, not the default 30 s.
  }, 120_000)
})
