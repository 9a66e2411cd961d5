/**
 * @module Unauthenticated routes about the service itself: health (with the daemon's proof that it owns
 * its data directory, when asked) and the OpenAPI document.
 */
import {createHmac} from 'node:crypto'
import {KbError} from '../../src/shared/errors.js'
import {CHALLENGE_HEADER, CHALLENGE_PATTERN, proofMessage} from '../../src/shared/daemon-proof.js'
import {HealthSchema} from '../../src/shared/schemas.js'
import {route, type RouteDef} from '../http/route.js'

/** `proofSecret`: the secret of `daemon.secret`; a daemon without a data directory (tests, benchmarks) has none. */
export function metaRoutes(version: string, openapi: () => Record<string, unknown>, proofSecret?: Buffer): RouteDef[] {
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
        const challenge = req.headers[CHALLENGE_HEADER]
        if (challenge === undefined || !proofSecret) return {status: 'ok', version}
        if (typeof challenge !== 'string' || !CHALLENGE_PATTERN.test(challenge))
          throw new KbError('bad_request', `${CHALLENGE_HEADER} must be 32 to 128 lower-case hex digits`)
        const message = proofMessage(challenge, req.socket.localAddress ?? '', req.socket.localPort ?? 0)
        return {status: 'ok', version, proof: createHmac('sha256', proofSecret).update(message).digest('hex')}
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
