/**
 * @module The PostgreSQL session an Idempotency-Key claim is tied to (docs/api.md, "Idempotency"): each daemon
 * keeps one idle connection of its own and names its backend (pid and start time) in every claim it makes. The
 * backend lives exactly as long as that connection, so when the daemon dies — SIGKILL, a crash, the machine
 * gone — PostgreSQL ends it, it leaves `pg_stat_activity`, and a retry may take the claim over at once instead
 * of waiting for the five minutes after which any unanswered claim counts as abandoned.
 */
import type pg from 'pg'
import type {PostgresDb} from './postgres-db.js'

/** A backend as `pg_stat_activity` names it: a pid is reused, a pid with its start time is not. */
export interface SessionHolder {
  pid: number
  /** `backend_start` as PostgreSQL writes it (microseconds, time zone), compared as a timestamptz. */
  started: string
}

export class PostgresLease {
  private current: Promise<{client: pg.Client; holder: SessionHolder}> | null = null
  private closed = false

  constructor(
    private readonly db: PostgresDb,
    private readonly onError: (e: unknown) => void = () => {},
  ) {}

  /**
   * The backend of this daemon's session, opened on first use and again after it broke; null when it cannot be
   * opened (the claim then falls back to the five-minute rule rather than failing the request).
   */
  async holder(): Promise<SessionHolder | null> {
    if (this.closed) return null
    this.current ??= this.open()
    try {
      return (await this.current).holder
    } catch (e) {
      this.current = null
      this.onError(e)
      return null
    }
  }

  private async open(): Promise<{client: pg.Client; holder: SessionHolder}> {
    const client = this.db.session('kb idempotency lease')
    const forget = (): void => {
      // A broken session no longer holds the claims made under it; the next claim opens a new one.
      if (this.current === opened) this.current = null
    }
    client.on('error', (e) => {
      forget()
      this.onError(e)
    })
    client.on('end', forget)
    const opened = (async () => {
      await client.connect()
      const {rows} = await client.query<{pid: number; started: string}>(
        'SELECT pid, backend_start::text AS started FROM pg_stat_activity WHERE pid = pg_backend_pid()',
      )
      return {client, holder: rows[0]!}
    })()
    opened.catch(() => client.end().catch(() => {}))
    return opened
  }

  async close(): Promise<void> {
    this.closed = true
    const current = this.current
    this.current = null
    if (current) await current.then(({client}) => client.end()).catch(() => {})
  }
}
