/**
 * @module The OS keychain (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows)
 * through @napi-rs/keyring, each call bounded by a timeout (3 s, or KB_KEYCHAIN_TIMEOUT_MS).
 */
import {Worker} from 'node:worker_threads'

export const KEYCHAIN_SERVICE = 'kb'

export type KeychainResult = {ok: true; value: string | null | boolean} | {ok: false; reason: string}

export function keychainTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.KB_KEYCHAIN_TIMEOUT_MS)
  return Number.isFinite(n) && n > 0 ? n : 3000
}

/** One keychain operation for `account` (a base URL) in service "kb"; never throws, never hangs. */
export function keychainCall(op: 'get' | 'set' | 'delete', account: string, password?: string, timeoutMs = keychainTimeoutMs()): Promise<KeychainResult> {
  return new Promise((resolve) => {
    let settled = false
    const done = (r: KeychainResult): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      // A worker stuck in a native call cannot be stopped; unref'd, it does not keep the CLI alive.
      void worker.terminate().catch(() => undefined)
      resolve(r)
    }
    const worker = new Worker(new URL('./keychain-worker.js', import.meta.url), {workerData: {op, service: KEYCHAIN_SERVICE, account, password}})
    worker.unref()
    const timer = setTimeout(() => done({ok: false, reason: `no answer from the keychain within ${timeoutMs / 1000} s`}), timeoutMs)
    worker.once('message', (m: KeychainResult) => done(m))
    worker.once('error', (e) => done({ok: false, reason: e.message}))
    worker.once('exit', (code) => done({ok: false, reason: `keychain worker exited with ${code}`}))
  })
}
