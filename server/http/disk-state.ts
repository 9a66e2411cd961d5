/**
 * @module Whether the store can take writes, as `/health` reports it (docs/api.md, "Service"): a request that
 * met a full disk (SQLite's SQLITE_FULL, the file system's ENOSPC, PostgreSQL's 53100) makes it say so until a
 * write succeeds or a minute passes; on SQLite the data directory's file system is asked for its free space
 * too, so a full disk is reported before a write meets it.
 */
import {statfs} from 'node:fs/promises'
import {KbError} from '../../src/shared/errors.js'

/** What a write that met a full disk is told to wait (Retry-After), and how long /health remembers it. */
export const DISK_FULL_RETRY_AFTER_S = 60
/** Under this much free space a write may not fit (an entry of 100,000 characters with its index and WAL). */
const LOW_SPACE_BYTES = 1024 * 1024
const FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', '53100'])

/** Whether an error (or the error a 503 was made from) is a full disk. */
export function isDiskFull(error: unknown): boolean {
  const code = (e: unknown): unknown => (e as {code?: unknown} | null)?.code
  return FULL_CODES.has(String(code(error))) || (error instanceof KbError && FULL_CODES.has(String(code(error.cause))))
}

export class DiskState {
  private fullAt: number | null = null

  /** `dir`: the directory of a SQLite store, whose file system is asked; none for PostgreSQL (its disk is the server's). */
  constructor(private readonly dir?: string) {}

  /** A request met a full disk just now. */
  noteFull(): void {
    this.fullAt = Date.now()
  }

  /** A write succeeded: the disk had room for it. */
  noteWritten(): void {
    this.fullAt = null
  }

  /** False while a full disk was met in the last minute, or (SQLite) the file system has under 1 MiB free. */
  async writable(): Promise<boolean> {
    if (this.fullAt !== null && Date.now() - this.fullAt < DISK_FULL_RETRY_AFTER_S * 1000) return false
    if (this.dir === undefined) return true
    try {
      const fs = await statfs(this.dir)
      return fs.bavail * fs.bsize >= LOW_SPACE_BYTES
    } catch {
      // A file system that cannot say (or a directory gone): the writes themselves will tell.
      return true
    }
  }
}
