/**
 * @module The exact `Host` check every request passes first (docs/security.md): one Host line, a host name with at
 * most one port, and a name this daemon answers to — loopback's, or one it was told (`--allow-host`, the public base URL).
 */
import type {IncomingMessage} from 'node:http'
import type {FastifyInstance} from 'fastify'
import {KbError} from '../../src/shared/errors.js'

/**
 * The Host names every daemon answers to, on any port (docs/security.md): exact, so that no DNS name a web
 * page controls — `*.localhost` included, which not every resolver keeps on this machine — reaches it.
 */
const LOCAL_HOST_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]']

/** Why a request is refused for its Host, or null when it is not; the check of every request and of the fast lane (fast-get.ts). */
export type HostRefusal = (req: IncomingMessage) => KbError | null

/**
 * Refuses, before anything else, a request whose Host is not one of loopback's names or of `allowedHosts`; the
 * check itself is returned for the fast lane of `GET /knowledge/:id`.
 */
export function addHostCheck(app: FastifyInstance, allowedHosts: readonly string[]): HostRefusal {
  const refusal = hostCheck(allowedHosts)
  app.addHook('onRequest', async (req) => {
    const refused = refusal(req.raw)
    if (refused) throw refused
  })
  return refusal
}

function hostCheck(allowedHosts: readonly string[]): HostRefusal {
  const allowed = new Set([...LOCAL_HOST_NAMES, ...allowedHosts.map((h) => h.toLowerCase())])
  return (req) => {
    // node keeps the first of several Host lines; a proxy may route by another, so the check would be
    // checking the wrong name (RFC 9112 §3.2: such a request is a 400).
    const raw = req.rawHeaders
    let hosts = 0
    for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++
    if (hosts > 1) return new KbError('bad_request', 'the request has more than one Host header')
    const host = hostName(req.headers.host)
    if (host === null) return new KbError('forbidden', 'requests whose Host is not a host name with at most one port are refused')
    if (!allowed.has(host)) {
      return new KbError('forbidden', `requests for host "${host}" are refused; start the daemon with --allow-host ${host} to serve it`)
    }
    return null
  }
}

/** The host name of a Host header, lower case, without port; IPv6 keeps its brackets. */
function hostName(host: string | undefined): string | null {
  if (!host) return ''
  const h = host.trim().toLowerCase()
  // A name and at most one port of digits (RFC 9110 §7.2): `localhost:7471:1` would become the issuer of tokens.
  const close = h.startsWith('[') ? h.indexOf(']') + 1 : 0
  if (h.startsWith('[') && close === 0) return null
  const colon = h.indexOf(':', close)
  const name = close > 0 ? h.slice(0, close) : colon === -1 ? h : h.slice(0, colon)
  const rest = close > 0 ? h.slice(close) : colon === -1 ? '' : h.slice(colon)
  return rest === '' || /^:[0-9]{1,5}$/.test(rest) ? name : null
}
