/**
 * @module Usage counts (docs/api.md, "Usage"): every time an entry is returned at `standard` or `full` it is counted
 * here, in memory, and the counts are written in one statement per batch — every few seconds and when the daemon
 * stops — never a database write per read. On PostgreSQL the database adds each batch to what is stored, so the
 * counts of several daemons add up.
 */
import type {FastifyBaseLogger} from 'fastify'
import type {Store} from '../store/store.js'

/** Distinct entries a daemon holds counts for before it writes them whatever the clock says. */
const PENDING_MAX = 10_000

export class UsageCounter {
  private pending = new Map<string, {n: number; at: string}>()
  private timer: NodeJS.Timeout | undefined
  private flushing: Promise<void> | null = null

  constructor(
    private readonly store: Store,
    private readonly flushMs: number,
    private readonly log?: FastifyBaseLogger,
  ) {}

  /** One retrieval of entry `id` now. */
  note(id: string, at: string): void {
    const p = this.pending.get(id)
    if (p) {
      p.n++
      if (at > p.at) p.at = at
    } else {
      this.pending.set(id, {n: 1, at})
      if (this.pending.size >= PENDING_MAX) void this.flush()
    }
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.flushMs)
    this.timer.unref()
  }

  /** Stops the clock and writes what is held. */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.flush()
  }

  /** Writes the counts held in one batch; a failed batch is held again for the next flush. */
  async flush(): Promise<void> {
    if (this.flushing) await this.flushing
    if (this.pending.size === 0) return
    const batch = [...this.pending].map(([id, p]) => ({id, n: p.n, at: p.at}))
    this.pending = new Map()
    this.flushing = this.store.history
      .addUsage(batch)
      .catch((e: unknown) => {
        this.log?.warn({err: e}, 'usage counts not written; kept for the next flush')
        for (const u of batch) {
          const p = this.pending.get(u.id)
          this.pending.set(u.id, p ? {n: p.n + u.n, at: p.at > u.at ? p.at : u.at} : {n: u.n, at: u.at})
        }
      })
      .finally(() => {
        this.flushing = null
      })
    await this.flushing
  }
}
