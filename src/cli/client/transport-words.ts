/**
 * @module How "not reachable" and "did not answer" messages name the server and what they advise: the local daemon
 * or a remote kb server. One source for the command base (base.ts) and the lean `kb search` (lean-search.ts).
 */
import {autostartEnabled} from '../daemon/manager.js'
import type {HttpTransportOptions} from './http-transport.js'

export type TransportWords = Required<Pick<HttpTransportOptions, 'unreachableHint' | 'noAnswerHint' | 'serverLabel'>>

/** The words for a local (loopback) base URL or a remote one. */
export function transportWords(local: boolean): TransportWords {
  if (!local)
    return {
      unreachableHint: 'check --base-url / KB_BASE_URL / `kb config get base_url` and the network',
      noAnswerHint: 'retry later',
      serverLabel: 'kb server',
    }
  return {
    unreachableHint: autostartEnabled()
      ? 'run `kb daemon start` or check --base-url'
      : 'start it with `kb daemon start` (autostart is off: KB_NO_AUTOSTART is set) or check --base-url',
    noAnswerHint: 'if it is a kb daemon, it is busy or stuck: see `kb daemon logs`, then retry',
    serverLabel: 'kb daemon',
  }
}
