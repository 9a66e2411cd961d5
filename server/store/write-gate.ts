/**
 * @module The SQLite driver's write gate (docs/api.md, "Import"). An import writes through a connection of
 * its own, in slices that let other requests run between them, and holds SQLite's write lock until it
 * commits or rolls back. Meanwhile every other write of the driver waits here, asynchronously: waiting
 * on the lock inside SQLite (its busy timeout) would stop the event loop. Reads do not wait; they see the
 * store as it was before the import.
 */

export class WriteGate {
  private holder: Promise<void> | null = null

  /** Whether an exclusive writer (an import) holds the gate. */
  get busy(): boolean {
    return this.holder !== null
  }

  /** Resolves once no exclusive writer holds the gate; the caller then writes synchronously, in the same turn. */
  async wait(): Promise<void> {
    while (this.holder) await this.holder
  }

  /** Runs `work` while every other writer waits; exclusive writers take turns. */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    while (this.holder) await this.holder
    let release!: () => void
    this.holder = new Promise((resolve) => (release = resolve))
    try {
      // A writer that passed `wait()` before the gate closed has its write queued as a microtask: let it run
      // before this one takes SQLite's write lock.
      await new Promise((resolve) => setImmediate(resolve))
      return await work()
    } finally {
      this.holder = null
      release()
    }
  }
}
