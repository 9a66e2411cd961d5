/**
 * @module What every answer leaves behind, written once for fastify's hooks (server/app.ts) and the fast lane of
 * `GET /knowledge/:id` (fast-get.ts): the request's id and the fields of its one log line.
 */
import {randomUUID} from 'node:crypto'
import type {IncomingHttpHeaders} from 'node:http'
import {loggedUrl} from './log-url.js'

/** Printable ASCII, at most 200 characters: an `X-Request-Id` a client may choose (docs/api.md, "Conventions"). */
const CLIENT_REQUEST_ID = /^[\x21-\x7e]{1,200}$/

/** The request's id: the client's `X-Request-Id` when it is one printable word, else a new UUID. */
export function requestIdOf(headers: IncomingHttpHeaders): string {
  const h = headers['x-request-id']
  return typeof h === 'string' && CLIENT_REQUEST_ID.test(h) ? h : randomUUID()
}

/** The fields of the one `request` line an answer is logged with (its target with secrets masked, log-url.ts). */
export interface RequestLogFields {
  method: string
  url: string
  status: number
  ms: number
}

export function requestLogFields(method: string, target: string, status: number, elapsedMs: number): RequestLogFields {
  return {method, url: loggedUrl(target), status, ms: Math.round(elapsedMs * 10) / 10}
}
