/**
 * @module Export pages are bounded by the size of what they hold (server/services/transfer.ts): about a megabyte each,
 * so 200 entries of 100,000 characters are not read and written out in one turn of the event loop, and
 * every entry is still exported once, in order, whatever the mix of small and large.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {exportText, importText, lines} from './support.js'

let d: TestDaemon

beforeAll(async () => {
  d = await startInProcessDaemon()
})
afterAll(async () => {
  await d?.stop()
})

describe('GET /export in pages of about a megabyte', () => {
  it('exports every entry once, in the order stored, across small and 100,000-character ones', async () => {
    const id = (i: number): string => `0193a7e2-5c1e-7b3a-9f1e-${i.toString(16).padStart(12, '0')}`
    // 250 small, 40 large, 250 small: pages of 200 small entries, of about ten large ones, and mixed.
    const sizes = [...Array(250).fill(20), ...Array(40).fill(100_000), ...Array(250).fill(20)] as number[]
    const records = [
      {kind: 'kb-export', version: 1},
      ...sizes.map((n, i) => ({kind: 'entry', id: id(i), title: `entry ${i}`, body: `w${i} `.repeat(n).slice(0, n), scope: 'private'})),
    ]
    const report = await importText(d, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`)
    expect(report.body).toMatchObject({created: sizes.length, rejected: []})
    const exported = lines(await exportText(d)).filter((r) => r.kind === 'entry')
    expect(exported.map((e) => e.id)).toEqual(sizes.map((_, i) => id(i)))
    expect(exported.map((e) => e.body.length)).toEqual(sizes)
  })
})
