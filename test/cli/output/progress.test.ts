/**
 * @module The progress line's words: entries and bytes done, of the total when known, the rate, and the time
 * left from the entries (an export) or the bytes (an import file, a backup).
 */
import {describe, expect, it} from 'vitest'
import {describeProgress, formatBytes, formatDuration, progressWanted} from '../../../src/cli/output/progress.js'

describe('describeProgress', () => {
  it('says entries and bytes done, rate and time left', () => {
    expect(describeProgress('kb export', {entries: 1200, bytes: 3 * 1024 * 1024}, {entries: 4800}, 2000)).toBe(
      'kb export  1,200 of 4,800 entries · 3.0 MiB · 1.5 MiB/s · 6 s left',
    )
    expect(describeProgress('kb import', {entries: 10, bytes: 512 * 1024}, {bytes: 2 * 1024 * 1024}, 4000)).toBe(
      'kb import  10 entries · 512.0 KiB of 2.0 MiB · 128.0 KiB/s · 12 s left',
    )
    expect(describeProgress('kb backup', {bytes: 100}, {bytes: 1000}, 500)).toBe('kb backup  100 B of 1000 B')
    // Nothing done yet, or more than announced (entries added meanwhile): no guess at the time left.
    expect(describeProgress('kb export', {entries: 0, bytes: 10}, {entries: 5}, 3000)).toBe('kb export  0 of 5 entries · 10 B · 3 B/s')
    expect(describeProgress('kb export', {entries: 7, bytes: 10}, {entries: 5}, 3000)).toBe('kb export  7 of 5 entries · 10 B · 3 B/s')
  })

  it('formats sizes and durations for people', () => {
    expect([formatBytes(0), formatBytes(1023), formatBytes(1536), formatBytes(5 * 1024 ** 3)]).toEqual([
      '0 B',
      '1023 B',
      '1.5 KiB',
      '5.0 GiB',
    ])
    expect([formatDuration(9.4), formatDuration(125), formatDuration(3 * 3600 + 180)]).toEqual(['9 s', '2 min 5 s', '3 h 3 min'])
  })

  it('is drawn only on a terminal, without --json, outside CI', () => {
    const tty = {isTTY: true} as NodeJS.WriteStream
    expect(progressWanted(false, {}, tty)).toBe(true)
    expect(progressWanted(true, {}, tty)).toBe(false)
    expect(progressWanted(false, {CI: 'true'}, tty)).toBe(false)
    expect(progressWanted(false, {TERM: 'dumb'}, tty)).toBe(false)
    expect(progressWanted(false, {}, {isTTY: false} as NodeJS.WriteStream)).toBe(false)
  })
})
