/**
 * @module What a request body may be (docs/api.md, "Errors"): JSON only, not nested too deep (json-depth.ts), validated
 * without coercion — query strings and path parameters are text; the import's JSON Lines reach its own route only,
 * as a stream.
 */
import type {FastifyInstance} from 'fastify'
import {KbError} from '../../src/shared/errors.js'
import {createValidator} from '../../src/shared/validator.js'
import {JSON_DEPTH_MAX, nestsDeeperThan} from './json-depth.js'

/** The refusal of a body that is not JSON, on every route (415). */
export function notJsonBody(): KbError {
  return new KbError('unsupported_media_type', 'send the body as JSON with Content-Type: application/json')
}

/** The validators and the body parsers of the API; `importUrl` is the one route that takes JSON Lines. */
export function addBodyParsers(app: FastifyInstance, importUrl: string): void {
  // Bodies are JSON, validated without coercion; query strings and path parameters are text.
  const bodyAjv = createValidator('json')
  const textAjv = createValidator('query')
  app.setValidatorCompiler(({schema, httpPart}) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema))

  app.removeAllContentTypeParsers()
  // fastify tests the regex against the whole header, parameters included (`application/json; charset=utf-8`).
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json\s*(;|$)/i, {parseAs: 'string'}, (_req, body, done) => {
    const text = String(body)
    if (text.trim() === '') return done(null, undefined)
    if (nestsDeeperThan(text)) {
      return done(new KbError('bad_request', `request body nests arrays and objects more than ${JSON_DEPTH_MAX} deep`), undefined)
    }
    try {
      done(null, JSON.parse(text))
    } catch (e) {
      done(new KbError('bad_request', `request body is not valid JSON: ${(e as Error).message}`), undefined)
    }
  })
  // Imports are JSON Lines of up to 512 MiB, which the /import route reads as a stream itself
  // (server/services/transfer/); every other route refuses them like any body that is not JSON.
  app.addContentTypeParser(/^application\/x-ndjson\s*(;|$)/i, (req, payload, done) => {
    if (req.routeOptions.url !== importUrl) return done(notJsonBody(), undefined)
    done(null, payload)
  })
}
