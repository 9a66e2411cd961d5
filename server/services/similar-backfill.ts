/**
 * @module The similar-pairs backfill (docs/search.md, "Similar entries"): entries written before kb kept similar
 * pairs have none, so after the daemon starts it checks them in the background, oldest first, as their authors
 * would have been checked at create — one entry per turn of the event loop, a pause after each batch, its place
 * kept in the store so that a restart goes on where it stopped. A pair already known (in either order) is kept once.
 */
import type {FastifyBaseLogger} from 'fastify'
import type {Store} from '../store/store.js'
import {SimilarFinder} from './similar.js'

/** Entries read per batch (the place is kept after each entry). */
const BATCH = 20
/** The pause after each batch, so that the backfill takes a share of a core, not all of it. */
const PAUSE_MS = 200

export class SimilarBackfill {
  private readonly finder: SimilarFinder
  private stopped = false
  private running: Promise<void> | null = null
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly store: Store,
    private readonly pauseMs = PAUSE_MS,
    private readonly log?: FastifyBaseLogger,
  ) {
    this.finder = new SimilarFinder(store)
  }

  /** Starts once the daemon is up (after the first pause), in the background. */
  start(): void {
    this.timer = setTimeout(() => {
      this.running = this.run().catch((e: unknown) =>
        this.log?.warn({err: e}, 'similar-pairs backfill stopped; it goes on at the next start'),
      )
    }, this.pauseMs)
    this.timer.unref()
  }

  /** Stops after the entry being checked; what was done is kept. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.running
  }

  /** Every pending entry, batch by batch; resolves when none is left or on stop. */
  async run(): Promise<void> {
    for (;;) {
      const batch = await this.store.history.backfillPending(BATCH)
      if (batch.length === 0 || this.stopped) return
      for (const e of batch) {
        if (this.stopped) return
        const similar = await this.finder.findFor({principalId: e.authorId}, e, [e.id])
        await this.finder.record(e.id, similar)
        await this.store.history.backfillDone(e.seq)
        // One check per turn: requests waiting meanwhile go first (docs/api.md, "Bounded work").
        await new Promise((resolve) => setImmediate(resolve))
      }
      await new Promise((resolve) => setTimeout(resolve, this.pauseMs))
    }
  }
}
