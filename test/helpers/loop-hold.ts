/**
 * @module How long the event loop was held while some work ran, measured by a chain of setImmediate turns:
 * with an in-process daemon the test and the daemon share one loop, so this is what `/health` would wait.
 */

/**
 * Runs `work` while a chain of setImmediate turns measures the longest the loop was held: `worstMs` in CPU
 * time of this process between two turns (what the work itself cost; a loaded machine that takes the core
 * away adds nothing to it), `worstWallMs` in wall time.
 */
export async function longestHold<T>(work: () => Promise<T>): Promise<{result: T; worstMs: number; worstWallMs: number}> {
  let worst = 0
  let worstWall = 0
  let last = performance.now()
  let lastCpu = process.cpuUsage()
  let running = true
  const tick = (): void => {
    const now = performance.now()
    const cpu = process.cpuUsage(lastCpu)
    worst = Math.max(worst, (cpu.user + cpu.system) / 1000)
    worstWall = Math.max(worstWall, now - last)
    last = now
    lastCpu = process.cpuUsage()
    if (running) setImmediate(tick)
  }
  setImmediate(tick)
  try {
    return {result: await work(), worstMs: worst, worstWallMs: worstWall}
  } finally {
    running = false
  }
}

/** An import body of `count` global entries with the same body, for building a store of large entries quickly. */
export function globalImport(count: number, body: string, title = (i: number): string => `big ${i}`): string {
  const header = JSON.stringify({kind: 'kb-export', version: 1})
  const lines = Array.from({length: count}, (_, i) =>
    JSON.stringify({kind: 'entry', id: crypto.randomUUID(), title: title(i), body, scope: 'global'}),
  )
  return `${[header, ...lines].join('\n')}\n`
}
