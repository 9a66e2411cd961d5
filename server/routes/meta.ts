/**
 * @module Unauthenticated routes about the service itself: health (with the daemon's proof that it owns
 * its data directory, when asked) and the OpenAPI document.
 */
import {createHmac} from 'node:crypto'
import {KbError} from '../../src/shared/errors.js'
import {CHALLENGE_HEADER, CHALLENGE_PATTERN, proofMessage} from '../../src/shared/daemon-proof.js'
import type {DaemonInfo} from '../../src/shared/paths.js'
import {HealthSchema} from '../../src/shared/schemas.js'
import {route, type RouteDef} from '../http/route.js'

/** A caller on this machine: an IPv4 loopback address (also IPv4-mapped) or ::1. */
function loopbackPeer(address: string | undefined): boolean {
  const a = (address ?? '').toLowerCase()
  return a === '::1' || a.startsWith('127.') || a.startsWith('::ffff:127.')
}

/**
 * `proofSecret`: the secret of `daemon.secret`; a daemon without a data directory (tests, benchmarks) has none.
 * `local`: what a daemon bound to loopback tells callers on the same machine about itself (docs/api.md, "Health").
 */
export function metaRoutes(
  version: string,
  openapi: () => Record<string, unknown>,
  proofSecret?: Buffer,
  local?: () => DaemonInfo | null,
): RouteDef[] {
  const tags = ['meta']
  return [
    route({
      method: 'GET',
      path: '/health',
      operationId: 'health',
      summary: 'Liveness and version (no auth)',
      tags,
      auth: false,
      description: `With a \`Kb-Challenge\` header (32–128 hex digits) a local daemon adds \`proof\`, which the CLI checks before it sends a credential (docs/security.md).`,
      responses: {200: {description: 'ok', schema: HealthSchema}},
      handler: async ({req}) => {
        const info = local && loopbackPeer(req.socket.remoteAddress) ? local() : null
        const base = {
          status: 'ok' as const,
          version,
          ...(info ? {pid: info.pid, started_at: info.started_at, data_dir: info.data_dir, log: info.log ?? null} : {}),
        }
        const challenge = req.headers[CHALLENGE_HEADER]
        if (challenge === undefined || !proofSecret) return base
        if (typeof challenge !== 'string' || !CHALLENGE_PATTERN.test(challenge))
          throw new KbError('bad_request', `${CHALLENGE_HEADER} must be 32 to 128 lower-case hex digits`)
        const message = proofMessage(challenge, req.socket.localAddress ?? '', req.socket.localPort ?? 0)
        return {...base, proof: createHmac('sha256', proofSecret).update(message).digest('hex')}
      },
    }),
    route({
      method: 'GET',
      path: '/openapi.json',
      operationId: 'openapi',
      summary: 'This API as an OpenAPI 3.1 document (no auth)',
      tags,
      auth: false,
      responses: {200: {description: 'The OpenAPI document'}},
      handler: async () => openapi(),
    }),
  ]
}
