/**
 * @module Keeps the review tally small on a team server (docs/performance.md, "Review queue"): PostgreSQL's counter
 * rows are sharded by the writing connection, so the rows of connections that have ended are folded into one at
 * start and every ten minutes (Store.history.foldTally; nothing to do on SQLite).
 */
import type {FastifyBaseLogger} from 'fastify'
import type {Store} from '../store/store.js'

const FOLD_EVERY_MS = 10 * 60_000

export class TallyFolder {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | null = null

  constructor(
    private readonly store: Store,
    private readonly log?: FastifyBaseLogger,
  ) {}

  start(): void {
    void this.fold()
    this.timer = setInterval(() => void this.fold(), FOLD_EVERY_MS)
    this.timer.unref()
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.running
  }

  /** One fold; a failure is logged and tried again at the next tick (the counts stay right either way). */
  fold(): Promise<void> {
    this.running ??= this.store.history
      .foldTally()
      .catch((e: unknown) => this.log?.warn({err: e}, 'review tally not folded; tried again later'))
      .finally(() => {
        this.running = null
      })
    return this.running
  }
}
