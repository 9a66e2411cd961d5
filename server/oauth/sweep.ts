/**
 * @module The sweep of expired OAuth records: codes, tokens, consent requests and long-idle clients. A timer
 * runs it every PURGE_INTERVAL_MS; writes also run it, at most once a minute, so a busy server stays small.
 */
import type {Store} from '../store/store.js'
import {CODE_RETENTION_MS, IDLE_CLIENT_TTL_MS, PURGE_INTERVAL_MS, UNUSED_CLIENT_TTL_MS} from './config.js'
import type {Logger} from './endpoint.js'

export class OAuthSweeper {
  private timer: NodeJS.Timeout | null = null
  private lastPurge = 0

  constructor(
    private readonly store: Store,
    private readonly log?: Logger,
  ) {}

  /** Deletes expired codes, tokens, consent requests and long-idle clients. */
  async purge(now: number = Date.now()): Promise<number> {
    this.lastPurge = now
    return this.store.oauth.purgeExpired({
      now: new Date(now).toISOString(),
      codes: new Date(now - CODE_RETENTION_MS).toISOString(),
      unusedClients: new Date(now - UNUSED_CLIENT_TTL_MS).toISOString(),
      idleClients: new Date(now - IDLE_CLIENT_TTL_MS).toISOString(),
    })
  }

  /** Sweeps now and then every PURGE_INTERVAL_MS until `stop`; the timer does not keep the process alive. */
  start(): void {
    if (this.timer) return
    this.maybePurge(true)
    this.timer = setInterval(() => this.maybePurge(true), PURGE_INTERVAL_MS)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  /** After a write: sweeps if the last sweep is over a minute old, so a server without the timer still stays small. */
  afterWrite(): void {
    this.maybePurge()
  }

  private maybePurge(force = false): void {
    if (!force && Date.now() - this.lastPurge < 60_000) return
    this.lastPurge = Date.now()
    this.purge().catch((e: unknown) => this.log?.warn({err: e}, 'oauth: purging expired records failed'))
  }
}
