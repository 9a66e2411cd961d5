/**
 * @module Unauthenticated routes about the service itself: health (with the store it runs on and whether that
 * answers, and the daemon's proof that it owns its data directory, when asked) and the OpenAPI document.
 */
import {createHmac} from 'node:crypto'
import {ERROR_CODES, KbError} from '../../src/shared/errors.js'
import {CHALLENGE_HEADER, CHALLENGE_PATTERN, proofMessage} from '../../src/shared/daemon-proof.js'
import type {DaemonInfo} from '../../src/shared/paths.js'
import {HealthSchema} from '../../src/shared/schemas.js'
import {operation} from '../http/operation.js'
import type {RouteDef} from '../http/route.js'
import type {DiskState} from '../http/disk-state.js'
import type {Store} from '../store/store.js'
import {errorResponses} from './common.js'

/** Seconds a load balancer or client is told to wait when the store does not answer. */
const RETRY_AFTER_S = 2

/** A caller on this machine: an IPv4 loopback address (also IPv4-mapped) or ::1. */
function loopbackPeer(address: string | undefined): boolean {
  const a = (address ?? '').toLowerCase()
  return a === '::1' || a.startsWith('127.') || a.startsWith('::ffff:127.')
}

/**
 * `proofSecret`: the secret of `daemon.secret`; a daemon without a data directory (tests, benchmarks) has none.
 * `local`: what a daemon bound to loopback tells callers on the same machine about itself (docs/api.md, "Service").
 */
export function metaRoutes(
  version: string,
  openapi: () => Record<string, unknown>,
  {store, disk}: {store: Store; disk: DiskState},
  proofSecret?: Buffer,
  local?: () => DaemonInfo | null,
): RouteDef[] {
  const tags = ['meta']
  return [
    operation('health', {
      summary: 'Liveness, version and the store (no auth)',
      tags,
      auth: false,
      description:
        'Asks the store a trivial question each time: 503 `unavailable` when it does not answer within a few seconds (a team ' +
        "server's PostgreSQL down), so a load balancer takes this daemon out of rotation. A store that cannot take writes (a full " +
        'disk) is 200 with `status: disk_full` and `store.writable: false`: reads are still served. With a `Kb-Challenge` header (32–128 hex ' +
        'digits) a local daemon adds `proof`, which the CLI checks before it sends a credential (docs/security.md).',
      responses: {200: {description: 'ok', schema: HealthSchema}, ...errorResponses(400, 503)},
      handler: async ({req, reply}) => {
        const challenge = req.headers[CHALLENGE_HEADER]
        if (challenge !== undefined && proofSecret && (typeof challenge !== 'string' || !CHALLENGE_PATTERN.test(challenge))) {
          throw new KbError('bad_request', `${CHALLENGE_HEADER} must be 32 to 128 lower-case hex digits`)
        }
        // Not to a web page (a request with an Origin): any origin may read /health, and which process and data
        // directory serve it are for the CLI on this machine only (docs/security.md, "Web pages in your browser").
        const info = local && loopbackPeer(req.socket.remoteAddress) && req.headers.origin === undefined ? local() : null
        const [answers, writable] = await Promise.all([store.answers(), disk.writable()])
        const health = {
          version,
          store: {kind: store.driver, answers, writable},
          ...(info ? {pid: info.pid, started_at: info.started_at, data_dir: info.data_dir, log: info.log ?? null} : {}),
        }
        if (!health.store.answers) {
          // A problem like any other 503, with the health fields as extension members.
          reply.code(503).header('Retry-After', String(RETRY_AFTER_S)).type('application/problem+json')
          const {status, title} = ERROR_CODES.unavailable
          const detail = `the store (${store.driver}) is not answering`
          return {type: 'about:blank', title, status, code: 'unavailable', detail, instance: req.url.split('?')[0], ...health}
        }
        // Reads are still served on a full disk: 200, with a status word that says writes are refused.
        const status = writable ? ('ok' as const) : ('disk_full' as const)
        if (challenge === undefined || !proofSecret) return {status, ...health}
        const message = proofMessage(challenge as string, req.socket.localAddress ?? '', req.socket.localPort ?? 0)
        return {status, ...health, proof: createHmac('sha256', proofSecret).update(message).digest('hex')}
      },
    }),
    operation('openapi', {
      summary: 'This API as an OpenAPI 3.1 document (no auth)',
      tags,
      auth: false,
      responses: {200: {description: 'The OpenAPI document'}},
      handler: async () => openapi(),
    }),
  ]
}
