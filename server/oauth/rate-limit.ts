/**
 * @module A token bucket per key (a client address), in memory: enough to stop a runaway loop from filling
 * the store with registrations while letting a dozen real clients a minute through.
 */

interface Bucket {
  tokens: number
  at: number
}

const MAX_KEYS = 10_000

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>()
  private readonly perMs: number

  constructor(
    private readonly burst: number,
    perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = perMinute / 60_000
  }

  /** Takes one token for `key`: 0 if allowed, else the seconds until one is available (for Retry-After). */
  take(key: string): number {
    const t = this.now()
    const b = this.buckets.get(key) ?? {tokens: this.burst, at: t}
    b.tokens = Math.min(this.burst, b.tokens + (t - b.at) * this.perMs)
    b.at = t
    if (b.tokens >= 1) {
      b.tokens -= 1
      this.remember(key, b)
      return 0
    }
    this.remember(key, b)
    return Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000))
  }

  private remember(key: string, b: Bucket): void {
    this.buckets.set(key, b)
    if (this.buckets.size <= MAX_KEYS) return
    // Full buckets carry no information: forget them first, then the oldest.
    const t = this.now()
    for (const [k, v] of this.buckets) if (v.tokens + (t - v.at) * this.perMs >= this.burst) this.buckets.delete(k)
    for (const k of this.buckets.keys()) {
      if (this.buckets.size <= MAX_KEYS) break
      this.buckets.delete(k)
    }
  }
}
