/**
 * @module How long a request stalls the daemon for everyone else: `GET /health` is sent every 20 ms while
 * the request runs (a new probe whether or not the last one answered), and the slowest answer is the
 * stall. Shared by bench/hostile.bench.ts and test/server/hostile.test.ts.
 */

export const PROBE_EVERY_MS = 20

export interface Probed<T> {
  result: T
  /** How long the request took, start to answer. */
  ms: number
  /** The slowest `/health` answer while it ran (or since, until the probe sent during it answered). */
  worstHealthMs: number
  probes: number
}

/** Runs `work` while probing `{base}/health`; `base` is the API base URL (…/api/v1). */
export async function whileProbing<T>(base: string, work: () => Promise<T>): Promise<Probed<T>> {
  const waits: Array<Promise<number>> = []
  const probe = (): void => {
    const sent = performance.now()
    waits.push(
      fetch(`${base}/health`).then(async (res) => {
        await res.arrayBuffer()
        if (!res.ok) throw new Error(`/health answered ${res.status}`)
        return performance.now() - sent
      }),
    )
  }
  probe()
  const timer = setInterval(probe, PROBE_EVERY_MS)
  const started = performance.now()
  let result: T
  try {
    result = await work()
  } finally {
    clearInterval(timer)
  }
  const ms = performance.now() - started
  // One more probe after the answer, so a stall at the very end is seen too.
  probe()
  const answered = await Promise.all(waits)
  return {result, ms, worstHealthMs: Math.max(...answered), probes: answered.length}
}
