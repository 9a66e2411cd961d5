/**
 * @module A `fetch` for the OAuth requests to the local daemon (docs/security.md): every request goes to the
 * address the daemon proved itself on, over node:http, and only to the base URL's origin — so a sign-in,
 * a refresh token or a revocation never reaches another listener, whatever `localhost` resolves to or
 * whatever URL a discovery document names.
 */
import type {Headers as RawHeaders} from '../../shared/client.js'
import {KbError} from '../../shared/errors.js'
import {httpTransport} from '../client/http-transport.js'

/** What kb's OAuth code passes to fetch (and oauth4webapi to its `customFetch`). */
interface OAuthFetchInit {
  method?: string
  headers?: Record<string, string>
  body?: string | URLSearchParams | null
  redirect?: 'manual'
}

export type OAuthFetch = (url: string | URL, init?: OAuthFetchInit) => Promise<Response>

/** Where the local daemon proved it owns the data directory: its origin (the base URL's) and the address it answered on. */
export interface ProvenDaemon {
  origin: string
  address: string
}

const TIMEOUT_MS = 30_000

function headersOf(h: RawHeaders): Headers {
  const out = new Headers()
  for (const [name, value] of Object.entries(h)) {
    if (value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, String(v))
  }
  return out
}

/** `fetch` pinned to the proven daemon; a URL of any other origin is refused before anything is sent. */
export function pinnedFetch(daemon: ProvenDaemon): OAuthFetch {
  const transport = httpTransport({address: daemon.address, serverLabel: 'kb daemon', unreachableHint: 'run `kb daemon start`'})
  return async (input, init = {}) => {
    const url = new URL(input)
    if (url.origin !== daemon.origin)
      throw new KbError(
        'conflict',
        `the local sign-in goes only to the kb daemon at ${daemon.origin}, which proved it owns the data directory, not to ${url.origin}`,
      )
    const body = init.body === undefined || init.body === null ? undefined : String(init.body)
    const res = await transport.send({method: init.method ?? 'GET', url, headers: init.headers ?? {}, body, timeoutMs: TIMEOUT_MS})
    const empty = res.status === 204 || res.status === 205 || res.status === 304
    return new Response(empty ? null : res.text, {status: res.status, headers: headersOf(res.headers)})
  }
}
