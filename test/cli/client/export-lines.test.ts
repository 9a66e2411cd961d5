/**
 * @module Counting an export as it streams: the same bytes, entry lines and announced total however the
 * stream is cut into chunks (a cut inside `{"kind":"entry"` or inside the header included).
 */
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {ExportCounter} from '../../../src/cli/client/export-lines.js'

const header = JSON.stringify({kind: 'kb-export', version: 1, exported_by: {id: 'x', name: 'owner'}, entries: 3})
const text = [
  header,
  JSON.stringify({kind: 'project', id: 'p', name: '{"kind":"entry"'}),
  JSON.stringify({kind: 'entry', id: 'a', title: 'x'}),
  '{}',
  JSON.stringify({kind: 'entry', id: 'b', title: 'a line with "kind":"entry" inside'}),
  JSON.stringify({kind: 'entry', id: 'c', title: '漢字 🚀'}),
  '',
].join('\n')
const bytes = Buffer.from(text)

describe('ExportCounter', () => {
  it('counts bytes, lines, entry lines and the announced total, whatever the chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({min: 0, max: bytes.length}), {maxLength: 20}), (cuts) => {
        const at = [0, ...cuts.sort((a, b) => a - b), bytes.length]
        const c = new ExportCounter()
        for (let i = 1; i < at.length; i++) c.feed(bytes.subarray(at[i - 1], at[i]))
        expect({bytes: c.bytes, lines: c.lines, entries: c.entries, announced: c.announced}).toEqual({
          bytes: bytes.length,
          lines: 6,
          entries: 3,
          announced: 3,
        })
      }),
    )
  })

  it('announces nothing for a first line that is not a kb export header', () => {
    const c = new ExportCounter()
    c.feed(Buffer.from('{"kind":"entry","id":"a"}\n{"kind":"entry","id":"b"}\n'))
    expect(c.announced).toBeUndefined()
    expect(c.entries).toBe(1) // the first line is the header's place
  })
})
