/**
 * @module Streamed requests for bodies too large to hold as one string: `kb export` and `kb backup`
 * download into a file or stdout, `kb import` uploads a file of up to 512 MiB. Problem answers become
 * `KbError` as in the JSON client. Like the JSON client, pinned to the address the local daemon proved
 * itself on, so `localhost` cannot lead the credential to another listener (docs/security.md).
 */
import {request as httpRequest, type IncomingMessage} from 'node:http'
import type {Readable} from 'node:stream'
import {KbError} from '../../shared/errors.js'
import {problemToError, type ApiClient} from '../../shared/client.js'
import {pinnedLookup} from './http-transport.js'

export interface StreamRequest {
  method: 'GET' | 'POST'
  path: string
  query?: Record<string, string | boolean | undefined>
  body?: Readable
  contentType?: string
  accept: string
}

/**
 * Sends the request and resolves with the response once its status is 2xx; an error status throws its
 * problem. `address`: connect there whatever the host name resolves to (the proven daemon's).
 */
export async function streamRequest(client: ApiClient, r: StreamRequest, address: string | undefined): Promise<IncomingMessage> {
  const url = new URL(client.baseUrl + r.path)
  for (const [k, v] of Object.entries(r.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
  const headers: Record<string, string> = {accept: `${r.accept}, application/problem+json`}
  if (client.key) headers.authorization = `Bearer ${client.key}`
  if (r.contentType) headers['content-type'] = r.contentType
  const request = url.protocol === 'https:' ? (await import('node:https')).request : httpRequest
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    // A pinned request gets a connection of its own: the global agent's pool does not tell pinned sockets apart.
    const pin = address ? {lookup: pinnedLookup(address), agent: false as const} : {}
    const req = request(url, {method: r.method, headers, ...pin}, resolve)
    req.on('error', (e: NodeJS.ErrnoException) =>
      reject(new KbError('unreachable', `the kb server at ${url.origin} is not reachable (${e.code ?? e.message})`, {cause: e})),
    )
    if (r.body) {
      r.body.on('error', (e) => req.destroy(e))
      r.body.pipe(req)
    } else req.end()
  })
  if (res.statusCode! < 400) return res
  let text = ''
  for await (const chunk of res) text += String(chunk)
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // not a problem document; the status says enough
  }
  throw problemToError(res.statusCode!, body, res.headers, `${r.method} ${url.pathname}`)
}

/** The whole response body as JSON. */
export async function readJson<T>(res: IncomingMessage): Promise<T> {
  let text = ''
  for await (const chunk of res) text += String(chunk)
  return JSON.parse(text) as T
}
