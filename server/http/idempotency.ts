/**
 * @module The `Idempotency-Key` request header (docs/api.md, "Idempotency"; the IETF httpapi draft's semantics),
 * written once for every route that honours it: a repeat with the same key and the same request within 24 h
 * gets the first answer back without acting again; the same key with another request is 422
 * `idempotency_key_reused`; a repeat while the first is still running is 409 `idempotency_key_in_use`. Keys
 * belong to a principal. Records live in the store, so every daemon of a team server sees the same ones.
 */
import {createHash, randomUUID, type Hash} from 'node:crypto'
import {Readable, Transform} from 'node:stream'
import type {FastifyBaseLogger, FastifyReply, FastifyRequest} from 'fastify'
import {IDEMPOTENCY_KEY_MAX} from '../../src/shared/contract.js'
import {KbError} from '../../src/shared/errors.js'
import type {IdempotencyStore} from '../store/idempotency.js'
import type {RouteDef} from './route.js'

const IDEMPOTENCY_TTL_MS = 24 * 3600_000
/** A claim left unanswered this long belongs to a daemon that died mid-request: a repeat may take it over. */
const ABANDONED_AFTER_MS = 5 * 60_000
/** The header a repeated answer carries, as Stripe's API does (the draft names none). */
export const REPLAYED_HEADER = 'Idempotent-Replayed'
const SWEEP_INTERVAL_MS = 3600_000
const KEPT_HEADERS = ['content-type', 'location', 'etag']
/** An sf-string's characters (RFC 8941 §3.3.3) without its escapes: printable ASCII but `"` and `\`. */
const KEY_CHARS = /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/

/** Every authenticated POST and PATCH honours the header, unless its route opts out. */
export function honoursIdempotencyKey(r: RouteDef): boolean {
  return r.auth && (r.method === 'POST' || r.method === 'PATCH') && r.idempotencyKey !== false
}

/** The key an `Idempotency-Key` value holds (an sf-string `"…"`, or the same characters bare); undefined when absent. */
function parseIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined
  const raw = (Array.isArray(value) ? value.join(', ') : value).trim()
  const key = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX || !KEY_CHARS.test(key) || key.trim() !== key) {
    throw new KbError(
      'bad_request',
      `Idempotency-Key must be a quoted string of 1–${IDEMPOTENCY_KEY_MAX} printable ASCII characters without " or \\, e.g. "${randomUUID()}"`,
    )
  }
  return key
}

/** JSON with object keys sorted, so the same body sent with its fields in another order is the same request. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(v) ?? 'null'
}

const requestHash = (req: FastifyRequest): Hash => createHash('sha256').update(`${req.method} ${req.url}\n`)

interface Held {
  principalId: string
  key: string
  claim: string
  /** Known before the handler runs, except for a streamed body: then hashed as the handler reads it. */
  fingerprint: string | null
  stream?: {hash: Hash; ended: boolean}
}

export interface IdempotencyOptions {
  /** How much of a streamed body (an import) a repeat may send to be compared with the first. */
  maxStreamBytes: number
}

export class IdempotencyLayer {
  private readonly held = new WeakMap<FastifyRequest, Held>()
  private timer: NodeJS.Timeout | null = null

  constructor(
    private readonly store: IdempotencyStore,
    private readonly log: FastifyBaseLogger,
    private readonly options: IdempotencyOptions,
  ) {}

  /** Runs after authentication and validation: claims the key, or answers a repeat from the store. */
  readonly preHandler = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const key = parseIdempotencyKey(req.headers['idempotency-key'])
    if (key === undefined) return undefined
    const principalId = req.caller!.principal.id
    const streamed = req.body instanceof Readable
    const fingerprint = streamed ? null : requestHash(req).update(canonicalJson(req.body)).digest('hex')
    const now = Date.now()
    const claim = randomUUID()
    const outcome = await this.store.claim(
      {principal_id: principalId, key, fingerprint, claim, created_at: iso(now), expires_at: iso(now + IDEMPOTENCY_TTL_MS)},
      iso(now - ABANDONED_AFTER_MS),
    )
    if (outcome.claimed) {
      const held: Held = {principalId, key, claim, fingerprint}
      if (streamed) req.body = this.hashing(req.body as Readable, (held.stream = {hash: requestHash(req), ended: false}))
      this.held.set(req, held)
      return undefined
    }
    const {record} = outcome
    if (!record.response) {
      throw new KbError(
        'idempotency_key_in_use',
        'a request with this Idempotency-Key is still being processed; repeat it in a moment to get its answer',
        {headers: {'Retry-After': '1'}},
      )
    }
    const sent = streamed ? await this.digestStream(req, req.body as Readable) : fingerprint
    if (sent !== record.fingerprint) {
      throw new KbError(
        'idempotency_key_reused',
        'this Idempotency-Key was used in the last 24 hours for a different request (another body or target); send a new key',
      )
    }
    reply.code(record.response.status).headers(record.response.headers).header(REPLAYED_HEADER, 'true')
    return reply.send(record.response.body)
  }

  /** Keeps the answer of a claimed request for its repeats; gives the key up when a retry should run again. */
  readonly onSend = async (req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const held = this.held.get(req)
    if (!held) return payload
    this.held.delete(req)
    const body =
      payload === null || payload === undefined
        ? ''
        : typeof payload === 'string'
          ? payload
          : Buffer.isBuffer(payload)
            ? payload.toString('utf8')
            : null
    // A stream read only in part has no fingerprint to compare a repeat with.
    const fingerprint = held.stream ? (held.stream.ended ? held.stream.hash.digest('hex') : null) : held.fingerprint
    try {
      // 5xx: something went wrong on our side and nothing was committed (docs/api.md): a retry should run.
      if (reply.statusCode >= 500 || body === null || fingerprint === null) {
        await this.store.release(held.principalId, held.key, held.claim)
      } else {
        const headers: Record<string, string> = {}
        for (const name of KEPT_HEADERS) {
          const v = reply.getHeader(name)
          if (v !== undefined) headers[name] = String(v)
        }
        const kept = await this.store.complete(held.principalId, held.key, held.claim, fingerprint, {
          status: reply.statusCode,
          headers,
          body,
        })
        if (!kept) this.log.warn({key: held.key}, 'idempotency: the claim was taken over before the answer was kept')
      }
    } catch (e) {
      // The answer still goes out; a repeat sees 409 until the claim counts as abandoned.
      this.log.error({err: e, key: held.key}, 'idempotency: keeping the answer failed')
    }
    return payload
  }

  /** The body as the handler will read it, hashed on the way through. */
  private hashing(body: Readable, state: {hash: Hash; ended: boolean}): Readable {
    const tee = new Transform({
      transform(chunk: Buffer, _enc, done) {
        state.hash.update(chunk)
        done(null, chunk)
      },
      flush(done) {
        state.ended = true
        done()
      },
    })
    body.on('error', (e) => tee.destroy(e))
    return body.pipe(tee)
  }

  /** A repeated streamed body's fingerprint: read to the end (bounded), nothing else done with it. */
  private async digestStream(req: FastifyRequest, body: Readable): Promise<string> {
    const hash = requestHash(req)
    let total = 0
    for await (const chunk of body as AsyncIterable<Buffer>) {
      total += chunk.length
      if (total > this.options.maxStreamBytes)
        throw new KbError('payload_too_large', `the body is larger than ${this.options.maxStreamBytes} bytes`)
      hash.update(chunk)
    }
    return hash.digest('hex')
  }

  /** Sweeps expired records now and every hour until `stop`; the timer does not keep the process alive. */
  start(): void {
    if (this.timer) return
    const sweep = (): void => {
      this.store.purgeExpired(iso(Date.now())).catch((e: unknown) => this.log.warn({err: e}, 'idempotency: sweeping expired keys failed'))
    }
    sweep()
    this.timer = setInterval(sweep, SWEEP_INTERVAL_MS)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }
}

const iso = (ms: number): string => new Date(ms).toISOString()
