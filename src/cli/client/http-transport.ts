/**
 * @module The CLI's transport over node:http. Measured here: `fetch` adds ≈190 ms of start-up (it loads
 * Node's bundled undici on first use) and the undici package ≈320 ms, while node:http is already in the
 * snapshot and adds nothing — and the CLI runs in git hooks (docs/performance.md). A server that cannot
 * be reached becomes `KbError('unreachable')` (exit 6) with a message that says what to do.
 */
import type {LookupAddress} from 'node:dns'
import {Agent, request as httpRequest, type RequestOptions} from 'node:http'
import type {LookupFunction} from 'node:net'
import {KbError} from '../../shared/errors.js'
import {ApiClient, type ClientOptions, type Transport, type TransportRequest, type TransportResponse} from '../../shared/client.js'

export interface HttpTransportOptions {
  /** Appended to the "not reachable" message: what to do about it. */
  unreachableHint?: string
  /** Appended instead when the server took the request but did not answer in time: it runs, so starting it is no advice. */
  noAnswerHint?: string
  /** How the "not reachable" message names the server: "kb daemon" for a local one. */
  serverLabel?: string
  /**
   * Connect to this address whatever the host name resolves to: the one the local daemon proved itself on
   * (src/cli/daemon/proof.ts), so `localhost` cannot lead a later connection to another listener.
   */
  address?: string
}

const agents = new Map<string, Agent>()

/** A DNS lookup that answers `address` whatever the name: connections go to the proven daemon (see `address`). */
export function pinnedLookup(address: string): LookupFunction {
  return (_host, o, cb) => {
    const family = address.includes(':') ? 6 : 4
    if (o.all) (cb as unknown as (e: null, a: LookupAddress[]) => void)(null, [{address, family}])
    else cb(null, address, family)
  }
}

/** Keep-alive agents per origin (and pinned address), so the requests of one command share a connection. */
async function agentFor(url: URL, address: string | undefined): Promise<Agent> {
  const key = `${url.protocol}${url.host} ${address ?? ''}`
  let agent = agents.get(key)
  if (!agent) {
    const lookup = address ? pinnedLookup(address) : undefined
    const options = {keepAlive: true, ...(lookup ? {lookup} : {})}
    // node:https pulls in TLS: only remote servers pay for it.
    agent = url.protocol === 'https:' ? new (await import('node:https')).Agent(options) : new Agent(options)
    agents.set(key, agent)
  }
  return agent
}

export function httpTransport(o: HttpTransportOptions = {}): Transport {
  const hint = o.unreachableHint ?? 'check --base-url'
  const label = o.serverLabel ?? 'kb server'
  const unreachable = (url: URL, e: Error & {code?: string; noAnswer?: boolean}): KbError => {
    if (e.noAnswer)
      return new KbError('unreachable', `${label} at ${url.origin} did not answer (${e.message}); ${o.noAnswerHint ?? 'retry later'}`, {
        cause: e,
      })
    const why =
      e.code === 'ECONNREFUSED'
        ? 'connection refused'
        : e.code === 'ENOTFOUND'
          ? 'unknown host'
          : e.code === 'ETIMEDOUT'
            ? e.message
            : (e.code ?? e.message)
    return new KbError('unreachable', `${label} at ${url.origin} is not reachable (${why}); ${hint}`, {cause: e})
  }
  return {
    async send(r: TransportRequest): Promise<TransportResponse> {
      const https = r.url.protocol === 'https:'
      if (!https && r.url.protocol !== 'http:') {
        throw new KbError(
          'usage',
          `base URL ${r.url.origin} must start with http:// or https://; fix --base-url, KB_BASE_URL or \`kb config set base_url\``,
        )
      }
      const request = https ? (await import('node:https')).request : httpRequest
      const options: RequestOptions = {method: r.method, headers: r.headers, agent: await agentFor(r.url, o.address)}
      return new Promise((resolve, reject) => {
        const req = request(r.url, options, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          const {remoteAddress, remotePort} = res.socket
          const peer = remoteAddress && remotePort ? {peer: {address: remoteAddress, port: remotePort}} : {}
          res.on('end', () =>
            resolve({status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), ...peer}),
          )
          res.on('error', (e) => reject(unreachable(r.url, e)))
        })
        req.setTimeout(r.timeoutMs, () =>
          req.destroy(
            Object.assign(new Error(`no answer within ${Math.round(r.timeoutMs / 1000)} s`), {code: 'ETIMEDOUT', noAnswer: true}),
          ),
        )
        req.on('error', (e) => reject(unreachable(r.url, e)))
        req.end(r.body)
      })
    },
  }
}

/** An `ApiClient` that talks HTTP: what every CLI command, the TUI and `kb mcp` use. */
export function httpClient(o: Omit<ClientOptions, 'transport'> & HttpTransportOptions): ApiClient {
  return new ApiClient({...o, transport: httpTransport(o)})
}
