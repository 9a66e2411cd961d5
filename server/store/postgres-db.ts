/**
 * @module The PostgreSQL connection of the Store driver: a node-postgres pool with bounded timeouts, queries and
 * transactions that turn a database that cannot be reached (down, restarting, out of connections, too slow)
 * into 503 `unavailable` with Retry-After, and the versioned migrations applied under an advisory lock.
 * The pool reconnects by itself: a broken connection is dropped and the next request opens a new one.
 */
import pg from 'pg'
import {KbError} from '../../src/shared/errors.js'

export type Row = Record<string, unknown>

/** What runs SQL: the pool (one statement, autocommit) or a transaction's connection. */
export interface Queryable {
  query<T = Row>(sql: string, params?: unknown[]): Promise<T[]>
  /** Runs a statement; the number of rows it changed. */
  run(sql: string, params?: unknown[]): Promise<number>
}

export interface PostgresOptions {
  /** postgres://user:password@host:port/database?… (libpq parameters such as sslmode may follow). */
  url: string
  /** Connections this daemon opens at most (default 10). */
  poolSize?: number
  /** How long a request waits for a connection before it is answered 503 (default 5 s). */
  connectTimeoutMs?: number
  /** The server cancels a statement running longer than this (default 15 s); the request gets 503. */
  statementTimeoutMs?: number
}

/** Seconds a client is told to wait (Retry-After) when the database does not answer. */
const RETRY_AFTER_S = 2
/** pg_advisory_lock keys: migrations, and the owner bootstrap (kb's, in a 64-bit space shared with other applications). */
export const LOCKS = {migrate: 0x6b62_0001, bootstrap: 0x6b62_0002, sweep: 0x6b62_0003, import: 0x6b62_0004} as const

/** SQLSTATE classes and codes that mean "the database cannot serve now", not "the request is wrong". */
const UNAVAILABLE_STATES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '53000',
  '53100',
  '53200',
  '57014',
  '55P03',
  '40001',
  '40P01',
  '25P03',
])
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
])
/** node-postgres's own words for a connection that broke or never came (it gives them no code). */
const NETWORK_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'not queryable',
  'connection error',
  'Client was closed',
]

/**
 * A prepared statement whose result columns changed under it (another daemon migrated the schema): PostgreSQL
 * refuses to run it on that connection ("cached plan must not change result type").
 */
function planChanged(e: unknown): boolean {
  return (e as {code?: unknown})?.code === '0A000'
}

/** Whether an error means the database could not serve (so the request may be retried), as opposed to a failed statement. */
function isUnavailable(e: unknown): boolean {
  const code = (e as {code?: unknown})?.code
  if (typeof code === 'string') {
    if (code.length === 5 && (code.startsWith('08') || UNAVAILABLE_STATES.has(code))) return true
    if (NETWORK_CODES.has(code)) return true
  }
  const message = e instanceof Error ? e.message : ''
  return NETWORK_MESSAGES.some((m) => message.includes(m))
}

/** Deadlocks and serialization failures: the transaction may simply be run again. */
function isRetryable(e: unknown): boolean {
  const code = (e as {code?: unknown})?.code
  return code === '40P01' || code === '40001'
}

function unavailable(cause: unknown): KbError {
  return new KbError('unavailable', 'the database (PostgreSQL) is not answering; retry in a moment', {
    headers: {'Retry-After': String(RETRY_AFTER_S)},
    cause,
  })
}

/** SQLSTATEs of text PostgreSQL cannot store: U+0000 (NUL), which SQLite keeps. */
const NUL_STATES = new Set(['22021', '22P05'])

/**
 * The error as callers see it: 503 when the database could not serve, 422 for text it cannot hold (a client
 * sent it: never a 500), else unchanged.
 */
function mapped(e: unknown): unknown {
  if (e instanceof KbError) return e
  if (NUL_STATES.has(String((e as {code?: unknown})?.code))) {
    return new KbError('validation_failed', 'text on this server (PostgreSQL) cannot hold the character U+0000 (NUL); remove it', {
      errors: [{path: '(body)', message: 'contains U+0000'}],
      cause: e,
    })
  }
  return isUnavailable(e) ? unavailable(e) : e
}

function queryable(run: (sql: string, params?: unknown[]) => Promise<pg.QueryResult>): Queryable {
  return {
    query: async <T>(sql: string, params?: unknown[]) => (await run(sql, params)).rows as T[],
    run: async (sql, params) => (await run(sql, params)).rowCount ?? 0,
  }
}

export class PostgresDb implements Queryable {
  readonly pool: pg.Pool
  private readonly direct: Queryable
  private readonly options: PostgresOptions

  constructor(options: PostgresOptions, onError: (e: Error) => void = () => {}) {
    this.options = options
    // bigint columns (seq, count(*)) as numbers: every value kb stores fits in 2^53.
    const types = new pg.TypeOverrides()
    types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v))
    const statementTimeout = options.statementTimeoutMs ?? 15_000
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      idleTimeoutMillis: 30_000,
      // The server's limit, and ours for a server that stopped answering without closing the connection.
      statement_timeout: statementTimeout,
      query_timeout: statementTimeout + 5_000,
      idle_in_transaction_session_timeout: 60_000,
      keepAlive: true,
      application_name: 'kb',
      types,
    })
    // An idle connection that breaks (the server restarted) is dropped by the pool; without a listener the
    // event would end the process.
    this.pool.on('error', onError)
    // Not pool.query: it destroys the connection after any failed statement, a unique violation included.
    this.direct = queryable(async (sql, params) => {
      const name = this.named.get(sql)
      if (name === undefined) return this.withClient((client) => client.query(sql, params))
      try {
        return await this.withClient((client) => client.query({name, text: sql, values: params ?? []}))
      } catch (e) {
        // The connection that held the stale plan is gone (withClient); the statement runs once more, unprepared.
        if (!planChanged(e)) throw e
        return this.withClient((client) => client.query(sql, params))
      }
    })
  }

  /** PostgreSQL texts run as named statements: each connection parses and plans them once (docs/performance.md). */
  private readonly named = new Map<string, string>()

  /**
   * Runs each of `texts` (PostgreSQL's form, as bindPostgres makes it) outside a transaction as a prepared
   * statement from now on: the reads every request makes. A fixed few, so each connection holds a bounded set.
   */
  prepare(texts: readonly string[]): void {
    for (const text of texts) if (!this.named.has(text)) this.named.set(text, `kb_${this.named.size + 1}`)
  }

  query<T = Row>(sql: string, params?: unknown[]): Promise<T[]> {
    return this.direct.query<T>(sql, params)
  }

  run(sql: string, params?: unknown[]): Promise<number> {
    return this.direct.run(sql, params)
  }

  /** A connection of the pool for `use`, released afterwards (destroyed if it broke). */
  async withClient<T>(use: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient
    try {
      client = await this.pool.connect()
    } catch (e) {
      throw mapped(e)
    }
    // While checked out a connection has no listener of the pool's: one error event must not end the process.
    let broken: Error | undefined
    const onError = (e: Error): void => {
      broken = e
    }
    client.on('error', onError)
    try {
      return await use(client)
    } catch (e) {
      if (isUnavailable(e) || planChanged(e)) broken ??= e as Error
      throw mapped(e)
    } finally {
      client.off('error', onError)
      client.release(broken)
    }
  }

  /**
   * Runs `work` in one transaction (READ COMMITTED; callers lock what they change with `FOR UPDATE` or
   * conditional updates), committed when it returns, rolled back when it throws. A deadlock or
   * serialization failure runs it again, up to three times.
   */
  async tx<T>(work: (q: Queryable) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.withClient(async (client) => {
          await client.query('BEGIN')
          try {
            const result = await work(queryable((sql, params) => client.query(sql, params)))
            await client.query('COMMIT')
            return result
          } catch (e) {
            await client.query('ROLLBACK').catch(() => {})
            throw e
          }
        })
      } catch (e) {
        const cause = e instanceof KbError ? e.cause : e
        if (attempt < 3 && isRetryable(cause)) {
          await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * (attempt + 1)))
          continue
        }
        throw e
      }
    }
  }

  /**
   * Applies the migrations the database lacks, each in its own transaction, while holding the migration
   * advisory lock: of several daemons starting at once, one migrates and the others then find nothing to do.
   */
  async migrate(steps: readonly string[]): Promise<number> {
    return this.withClient(async (client) => {
      await client.query('SELECT pg_advisory_lock($1)', [LOCKS.migrate])
      try {
        await client.query('CREATE TABLE IF NOT EXISTS kb_schema (version integer NOT NULL)')
        const rows = (await client.query<{version: number}>('SELECT version FROM kb_schema')).rows
        const current = rows[0]?.version ?? 0
        if (current > steps.length) {
          throw new Error(`the database was written by a newer kb (schema ${current}, this kb knows ${steps.length}); upgrade kb`)
        }
        for (let v = current; v < steps.length; v++) {
          await client.query('BEGIN')
          try {
            await client.query(steps[v]!)
            await client.query('DELETE FROM kb_schema')
            await client.query('INSERT INTO kb_schema (version) VALUES ($1)', [v + 1])
            await client.query('COMMIT')
          } catch (e) {
            await client.query('ROLLBACK').catch(() => {})
            throw e
          }
        }
        return steps.length
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [LOCKS.migrate]).catch(() => {})
      }
    })
  }

  /** Whether the database answers a trivial query within `timeoutMs`. */
  async answers(timeoutMs = 2_000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs)
    })
    try {
      return await Promise.race([
        this.query('SELECT 1').then(
          () => true,
          () => false,
        ),
        late,
      ])
    } finally {
      clearTimeout(timer)
    }
  }

  /** A connection of its own, outside the pool (a session whose life means something: server/store/postgres-lease.ts). */
  session(applicationName: string): pg.Client {
    return new pg.Client({
      connectionString: this.options.url,
      connectionTimeoutMillis: this.options.connectTimeoutMs ?? 5_000,
      keepAlive: true,
      application_name: applicationName,
    })
  }

  async close(): Promise<void> {
    await this.pool.end()
  }
}
