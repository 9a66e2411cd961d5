/**
 * @module The create, get and search rounds the daemon benchmarks share (bench/daemon.bench.ts, bench/scale.bench.ts):
 * every store's daemon running side by side, requests taking turns between them, so that a change in the machine's
 * load (it is shared) shows in every store alike and ratios hold (docs/performance.md).
 */
import {corpus} from './corpus.js'
import {call, type RunningDaemon, withTypo} from './daemon-harness.js'

/** A store as the rounds need it: the owner's key and the ids of its loaded entries. */
export interface RoundStore {
  key: string
  ids: string[]
}

/** Each store's request times (ms) after warm-up, in the order of `stores`. */
export type RoundTimes = Array<{create: number[]; get: number[]; search: number[]}>

/**
 * 200 creates (20 warm-up) of corpus entries numbered from `firstEntry`, 1,000 gets (50) of random loaded ids and
 * 200 searches (20) of short corpus queries, every fourth with a typo; `done` is told as each round ends.
 */
export async function measureRounds(
  daemons: RunningDaemon[],
  stores: RoundStore[],
  firstEntry: number,
  done: (what: string) => void = () => {},
): Promise<RoundTimes> {
  const c = corpus(42)
  const times: RoundTimes = stores.map(() => ({create: [], get: [], search: []}))
  const round = async (
    what: 'create' | 'get' | 'search',
    n: number,
    warmup: number,
    op: (d: RunningDaemon, s: RoundStore, i: number) => Promise<unknown>,
  ): Promise<void> => {
    for (let i = 0; i < warmup + n; i++) {
      for (let k = 0; k < stores.length; k++) {
        const t = performance.now()
        await op(daemons[k]!, stores[k]!, i)
        if (i >= warmup) times[k]![what].push(performance.now() - t)
      }
    }
    done(what)
  }
  await round('create', 200, 20, (d, s, i) => {
    const e = c.entry(firstEntry + i)
    return call(d.url, s.key, 'POST', '/knowledge', {title: e.title, body: e.body, tags: e.tags})
  })
  let seed = 1
  await round('get', 1000, 50, (d, s) => {
    seed = (seed * 48271) % 2147483647
    return call(d.url, s.key, 'GET', `/knowledge/${s.ids[seed % s.ids.length]}`)
  })
  await round('search', 200, 20, (d, s, i) => {
    const q = i % 4 === 3 ? withTypo(c.shortQuery(i)) : c.shortQuery(i)
    return call(d.url, s.key, 'GET', `/search?q=${encodeURIComponent(q)}`)
  })
  return times
}
