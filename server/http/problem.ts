/**
 * @module Every failure leaves the daemon as an RFC 9457 problem: this maps any thrown thing to one.
 */
import {randomUUID} from 'node:crypto'
import type {Duplex} from 'node:stream'
import type {FastifyError, FastifyReply, FastifyRequest} from 'fastify'
import {codeForStatus, type FieldError, KbError} from '../../src/shared/errors.js'
import {UUID_PATTERN} from '../../src/shared/contract.js'
import {notJsonBody} from './body-parsers.js'
import {DISK_FULL_RETRY_AFTER_S} from './disk-state.js'

interface AjvError {
  instancePath?: string
  message?: string
  keyword?: string
  params?: Record<string, unknown>
}

/** Turns ajv's errors into `{path, message}` pairs with slash paths (`thought_chain/0/kind`). */
export function fieldErrors(validation: AjvError[]): FieldError[] {
  const out: FieldError[] = []
  const seen = new Set<string>()
  for (const v of validation) {
    let path = (v.instancePath ?? '').replace(/^\//, '')
    let message = v.message ?? 'is invalid'
    if (v.keyword === 'required' && typeof v.params?.missingProperty === 'string') {
      path = path ? `${path}/${v.params.missingProperty}` : v.params.missingProperty
      message = 'required'
    } else if (v.keyword === 'additionalProperties' && typeof v.params?.additionalProperty === 'string') {
      path = path ? `${path}/${v.params.additionalProperty}` : v.params.additionalProperty
      message = 'unknown field'
    } else if (v.keyword === 'pattern' && v.params?.pattern === UUID_PATTERN) {
      // The regular expression means nothing to a person who typed a wrong id.
      message = 'is not an id (a UUID such as 0193e0a1-…)'
    } else if (v.keyword === 'anyOf' || v.keyword === 'const') {
      // A union's branches each complain; the enum-like summary below says it once.
      if (v.keyword === 'const') continue
      message = 'is not one of the allowed values'
    }
    const key = `${path}\u0000${message}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({path: path || '(body)', message})
  }
  return out
}

/** Maps an error to a KbError: ours pass through, fastify's and ajv's get their codes, the rest is internal. */
export function toKbError(error: unknown): KbError {
  if (error instanceof KbError) return error
  const e = error as FastifyError & {validation?: AjvError[]; validationContext?: string}
  if (e && Array.isArray(e.validation)) {
    const errors = fieldErrors(e.validation)
    const where = e.validationContext
    const summary = errors.map((x) => `${x.path}: ${x.message}`).join('; ')
    if (where === 'body') return new KbError('validation_failed', summary, {errors})
    return new KbError('bad_request', `invalid ${where === 'params' ? 'path' : 'query'} parameter — ${summary}`, {errors})
  }
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new KbError('payload_too_large', 'request body is larger than 1 MiB')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return notJsonBody()
      return new KbError('bad_request', 'Content-Length does not match the body')
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new KbError('bad_request', 'request body is not valid JSON')
    // A full disk (SQLite's SQLITE_FULL, the file system's ENOSPC) is no fault of the request and nothing was
    // changed: 503 with a clear reason (a CLI queues the write), not a 500 (docs/api.md, "Errors").
    case 'SQLITE_FULL':
    case 'ENOSPC':
      return new KbError('unavailable', 'the disk of the store is full: nothing was changed; free some space and repeat the request', {
        headers: {'Retry-After': String(DISK_FULL_RETRY_AFTER_S)},
        cause: error,
      })
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_INVALID_URL':
      return new KbError('bad_request', 'the request URL is malformed')
    default:
      break
  }
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500
  if (status >= 400 && status < 500) return new KbError(codeForStatus(status), e.message || 'bad request')
  return new KbError('internal', 'internal error; the daemon log has the details under this request id', {cause: error})
}

export function sendProblem(req: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const kb = toKbError(error)
  if (kb.code === 'internal') req.log.error({err: error, reqId: req.id}, 'unexpected error')
  else if (kb.code === 'unavailable' && kb.cause !== undefined) req.log.warn({err: kb.cause, reqId: req.id}, kb.message)
  else req.log.debug({code: kb.code, detail: kb.message}, 'request failed')
  if (kb.headers) for (const [k, v] of Object.entries(kb.headers)) reply.header(k, v)
  return reply
    .code(kb.status)
    .type('application/problem+json')
    .send({...kb.toProblem(), instance: req.url.split('?')[0]})
}

/**
 * Answers a request that never became one (node's HTTP parser refused it: an unknown method, a raw
 * non-ASCII target, a broken header, oversized headers, a timeout) with a problem too, instead of
 * fastify's own JSON shape; then closes the connection, as node does.
 */
export function sendClientErrorProblem(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const kb =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new KbError('request_timeout', 'the request was not received in time')
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? new KbError('headers_too_large', 'the request headers are too large')
        : new KbError('bad_request', 'the request is not well-formed HTTP')
  const body = JSON.stringify(kb.toProblem())
  // An answer to HEAD has no body, or the client reads it as garbage.
  const head = (err as {rawPacket?: Buffer}).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD '
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${kb.status} ${kb.toProblem().title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
    )
  }
  socket.destroy()
}
