/**
 * @module The loopback redirect listener of `kb auth login --web` (RFC 8252 §7.3): 127.0.0.1 only, a port the OS
 * picks, one real callback answered with a page that tells its outcome; stray requests are answered and ignored.
 */
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import {KbError} from '../../shared/errors.js'
import type {OAuthCredential} from '../credentials/credentials.js'
import {CALLBACK_HEADERS, callbackPage} from './callback-page.js'
import {RELOGIN} from './errors.js'

export const CALLBACK_PATH = '/callback'

/** What the browser is shown for a callback, and what the login ends with. */
export interface Answer {
  status: number
  ok: boolean
  title: string
  message: string
  /** false: answer the browser but keep waiting (a stray request). */
  done?: boolean
  credential?: OAuthCredential
  error?: KbError
}

export interface Listener {
  port: number
  /** Resolves with the credential of the first real callback, or rejects with its error. */
  handle(fn: (callback: URL) => Promise<Answer>): Promise<OAuthCredential>
  close(): Promise<void>
}

/** The loopback redirect listener on 127.0.0.1 (never all interfaces) with a port the OS picks. */
export async function listen(): Promise<Listener> {
  let handler: ((callback: URL) => Promise<Answer>) | null = null
  let settle: {resolve: (c: OAuthCredential) => void; reject: (e: Error) => void} | null = null
  let busy = false
  let finished = false
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const page = (status: number, ok: boolean, title: string, message: string, then?: () => void): void => {
      res.writeHead(status, CALLBACK_HEADERS).end(callbackPage(ok, title, message), then)
    }
    // Browsers also ask for /favicon.ico; only the callback counts.
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH || !handler) {
      res.writeHead(404, {'content-type': 'text/plain; charset=utf-8', connection: 'close'}).end('Not found')
      return
    }
    if (finished || busy) {
      page(409, false, 'Already handled', finished ? 'kb has already finished this sign-in.' : 'kb is still finishing this sign-in.')
      return
    }
    busy = true
    void handler(url)
      .catch(unexpected)
      .then((a) => {
        busy = false
        if (a.done === false) {
          page(a.status, a.ok, a.title, a.message)
          return
        }
        finished = true
        // Settled once the page is on its way: closing the listener must not cut it off.
        page(a.status, a.ok, a.title, a.message, () => {
          if (a.credential) settle?.resolve(a.credential)
          else settle?.reject(a.error ?? new KbError('unauthenticated', `the sign-in failed; ${RELOGIN}`))
        })
      })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as {port: number}).port
  return {
    port,
    handle: (fn) => {
      handler = fn
      return new Promise((resolve, reject) => (settle = {resolve, reject}))
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A handler that threw: the browser is told, and the login ends with the error. */
function unexpected(e: unknown): Answer {
  const message = e instanceof Error ? e.message : String(e)
  return {
    status: 500,
    ok: false,
    title: 'Sign-in failed',
    message,
    error: e instanceof KbError ? e : new KbError('internal', `the sign-in failed unexpectedly (${message})`),
  }
}
