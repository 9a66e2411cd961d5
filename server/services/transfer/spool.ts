/**
 * @module The two ends of an import's spool (docs/api.md, "Import"): the body cut into lines, each at most
 * IMPORT_LINE_MAX bytes kept and the body at most IMPORT_BODY_LIMIT; the normalised records written to a private
 * temp file in batches, and read back synchronously for the store's one transaction.
 */
import {closeSync, openSync, readSync} from 'node:fs'
import {open, type FileHandle} from 'node:fs/promises'
import type {ImportRecord} from '../../store/transfer-store.js'
import {IMPORT_BODY_LIMIT, IMPORT_LINE_MAX, tooLarge} from './format.js'

/** One line of the body, without its newline; `bytes` is null for a line longer than IMPORT_LINE_MAX (not kept). */
export interface CutLine {
  bytes: Buffer | null
  size: number
}

/** Cuts the body's chunks at newlines; a line's pieces are kept across chunks until its newline or the end. */
export class LineCutter {
  private parts: Buffer[] = []
  private partBytes = 0
  private oversized = false
  private total = 0

  /** The last line, when the body does not end with a newline. */
  end(): CutLine | null {
    return this.partBytes > 0 || this.oversized ? this.take() : null
  }

  /** The lines `chunk` completes, one at a time (the caller may await between them); too large a body throws 413. */
  *push(chunk: Buffer): Generator<CutLine> {
    this.total += chunk.length
    if (this.total > IMPORT_BODY_LIMIT) throw tooLarge()
    let start = 0
    for (let nl = chunk.indexOf(10, start); ; nl = chunk.indexOf(10, start)) {
      const end = nl === -1 ? chunk.length : nl
      if (!this.oversized && this.partBytes + (end - start) > IMPORT_LINE_MAX) {
        this.oversized = true
        this.parts = []
      }
      if (!this.oversized) this.parts.push(chunk.subarray(start, end))
      this.partBytes += end - start
      if (nl === -1) break
      yield this.take()
      start = nl + 1
    }
  }

  private take(): CutLine {
    const line: CutLine = {
      bytes: this.oversized ? null : this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts),
      size: this.partBytes,
    }
    this.parts = []
    this.partBytes = 0
    this.oversized = false
    return line
  }
}

/** Bytes of records held before they are written: few writes, bounded memory. */
const SPOOL_BATCH = 1024 * 1024

/** The records of an import, one JSON line each, written to a new file of mode 0600. */
export class SpoolWriter {
  private pending: string[] = []
  private pendingBytes = 0

  private constructor(private readonly out: FileHandle) {}

  /** Creates the file; it must not exist. */
  static async create(path: string): Promise<SpoolWriter> {
    return new SpoolWriter(await open(path, 'wx', 0o600))
  }

  /** Adds a record; `size`, the length of its line in the body, counts toward the next write. */
  async add(record: ImportRecord, size: number): Promise<void> {
    this.pending.push(`${JSON.stringify(record)}\n`)
    this.pendingBytes += size
    if (this.pendingBytes > SPOOL_BATCH) await this.flush()
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return
    await this.out.write(this.pending.join(''))
    this.pending = []
    this.pendingBytes = 0
  }

  async close(): Promise<void> {
    await this.out.close()
  }
}

/** The spooled records, read back synchronously: the store applies them inside one transaction. */
export function* readSpool(path: string): Generator<ImportRecord> {
  const fd = openSync(path, 'r')
  try {
    const chunk = Buffer.alloc(1024 * 1024)
    let rest: Buffer = Buffer.alloc(0)
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null)
      if (n === 0) break
      let data = Buffer.concat([rest, chunk.subarray(0, n)])
      for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10)) {
        yield JSON.parse(data.subarray(0, nl).toString('utf8')) as ImportRecord
        data = data.subarray(nl + 1)
      }
      rest = Buffer.from(data)
    }
  } finally {
    closeSync(fd)
  }
}
