/**
 * @module The OS keychain (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows)
 * through @napi-rs/keyring, each call in a child process bounded by a timeout (3 s, or
 * KB_KEYCHAIN_TIMEOUT_MS): a hung D-Bus must not hang the CLI.
 */
import {spawn} from 'node:child_process'
import {fileURLToPath} from 'node:url'

const KEYCHAIN_SERVICE = 'kb'

export type KeychainResult = {ok: true; value: string | null | boolean} | {ok: false; reason: string}

function keychainTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.KB_KEYCHAIN_TIMEOUT_MS)
  return Number.isFinite(n) && n > 0 ? n : 3000
}

/** One keychain operation for `account` (a base URL) in service "kb"; never throws, never hangs. */
export function keychainCall(
  op: 'get' | 'set' | 'delete',
  account: string,
  password?: string,
  timeoutMs = keychainTimeoutMs(),
): Promise<KeychainResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL('./keychain-worker.js', import.meta.url))], {
      stdio: ['pipe', 'pipe', 'ignore'],
      windowsHide: true,
    })
    let out = ''
    let settled = false
    const done = (r: KeychainResult): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      resolve(r)
    }
    const timer = setTimeout(() => done({ok: false, reason: `no answer from the keychain within ${timeoutMs / 1000} s`}), timeoutMs)
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.on('error', (e) => done({ok: false, reason: e.message}))
    child.on('close', (code) => {
      try {
        done(JSON.parse(out) as KeychainResult)
      } catch {
        done({ok: false, reason: `the keychain helper exited with ${code}`})
      }
    })
    child.stdin.end(JSON.stringify({op, service: KEYCHAIN_SERVICE, account, password}))
  })
}
