/**
 * A long text is scanned on a worker thread (server/scan/off-thread.ts; issue 24: a publish of 100,000
 * characters dense with findings held `/health` 473–632 ms on a loaded machine, the scan itself being tens of
 * milliseconds of CPU and garbage collection in one turn of the event loop): the findings are scanText's,
 * exactly, and the event loop keeps turning while they are looked for.
 */
import {describe, expect, it} from 'vitest'
import {OFF_THREAD_CHARS, scanAside} from '../../../server/scan/off-thread.js'
import {scanText} from '../../../server/scan/scanner.js'
import {fakeCorpus} from './fake-corpus.js'

/** How many turns the event loop made while `work` ran, counted only until it settled. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{result: T; turns: number}> {
  let turns = 0
  let ticking = true
  const tick = (): void => {
    if (!ticking) return
    turns++
    setImmediate(tick)
  }
  setImmediate(tick)
  try {
    const result = await work()
    return {result, turns}
  } finally {
    ticking = false
  }
}

describe('scanning beside the event loop', () => {
  const dense = 'a@b.co '.repeat(14_286).slice(0, 100_000)
  const corpus = fakeCorpus(11)
  const mixed = `${corpus.map((s) => s.text).join('\n')}\n${'lorem ipsum '.repeat(3000)}`

  it('finds exactly what scanText finds, long texts and short', async () => {
    expect(mixed.length).toBeGreaterThan(OFF_THREAD_CHARS)
    for (const text of [dense, mixed, mixed.slice(0, OFF_THREAD_CHARS - 1), 'nothing here', '']) {
      expect(await scanAside(text)).toEqual(scanText(text))
    }
  })

  it('lets the event loop turn while a dense 100,000-character text is scanned', async () => {
    await scanAside(dense) // the worker started and its code loaded: not what is measured
    const {result, turns} = await turnsDuring(() => scanAside(dense))
    expect(result.length).toBeGreaterThan(14_000)
    // Scanned here, the whole scan is one turn: the chain could not run until it was over.
    const inline = await turnsDuring(async () => scanText(dense))
    expect(inline.turns).toBe(0)
    expect(turns).toBeGreaterThanOrEqual(5)
  })

  it('scans concurrent texts each to its own findings', async () => {
    const texts = [dense, mixed, dense.slice(0, 50_000), mixed.repeat(2)]
    const found = await Promise.all(texts.map((t) => scanAside(t)))
    found.forEach((f, i) => expect(f).toEqual(scanText(texts[i]!)))
  })
})
