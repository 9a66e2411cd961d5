/**
 * @module Counting a kb export (JSON Lines, docs/api.md) as it streams past, for `kb export` and `kb import`
 * progress: bytes, entry lines (those starting `{"kind":"entry"`, as the server writes them) and the header's
 * announced number of entries. Constant work per byte and constant memory, whatever the chunks.
 */

const ENTRY = Buffer.from('{"kind":"entry"')
/** The header line is small; a longer first line is not a kb export's, and its count is not looked for. */
const HEADER_MAX = 64 * 1024

export class ExportCounter {
  bytes = 0
  entries = 0
  /** `entries` from the header line, once read. */
  announced: number | undefined
  lines = 0
  /** Bytes of the current line matched against ENTRY so far; -1 once it cannot be an entry line. */
  private matched = 0
  private header: Buffer[] = []
  private headerBytes = 0

  feed(chunk: Buffer): void {
    this.bytes += chunk.length
    for (let i = 0; i < chunk.length;) {
      if (this.lines === 0) {
        i = this.readHeader(chunk, i)
        continue
      }
      if (this.matched >= 0 && this.matched < ENTRY.length) {
        const take = Math.min(ENTRY.length - this.matched, chunk.length - i)
        this.matched = chunk.compare(ENTRY, this.matched, this.matched + take, i, i + take) === 0 ? this.matched + take : -1
        if (this.matched === ENTRY.length) this.entries++
      }
      const nl = chunk.indexOf(10, i)
      if (nl === -1) return
      this.lines++
      this.matched = 0
      i = nl + 1
    }
  }

  /** Collects the first line and reads its `entries`; returns where the next line starts (or the chunk's end). */
  private readHeader(chunk: Buffer, i: number): number {
    const nl = chunk.indexOf(10, i)
    const end = nl === -1 ? chunk.length : nl
    if (this.headerBytes + end - i <= HEADER_MAX) this.header.push(chunk.subarray(i, end))
    this.headerBytes += end - i
    if (nl === -1) return chunk.length
    this.lines = 1
    if (this.headerBytes <= HEADER_MAX) {
      try {
        const h = JSON.parse(Buffer.concat(this.header).toString('utf8')) as {kind?: unknown; entries?: unknown}
        if (h.kind === 'kb-export' && typeof h.entries === 'number') this.announced = h.entries
      } catch {
        // not a header: the server will say so
      }
    }
    this.header = []
    return nl + 1
  }
}
