/**
 * @module Long work on the event loop in slices: between them other requests are served (docs/api.md,
 * "Bounded work"), so a large import or a token-packed search does not stall `/health` or anyone's reads.
 */

/** How long a slice runs before it lets other work in. */
const SLICE_MS = 5

export class TimeSlice {
  private started = performance.now()

  constructor(private readonly ms = SLICE_MS) {}

  /** Lets the event loop run other callbacks (I/O included) if this slice has used its time; else returns at once. */
  async pause(): Promise<void> {
    if (performance.now() - this.started < this.ms) return
    await new Promise((resolve) => setImmediate(resolve))
    this.started = performance.now()
  }
}
