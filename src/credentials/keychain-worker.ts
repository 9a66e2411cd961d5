/**
 * @module Runs one OS-keychain call in a worker thread, so the main thread can give up on it after a
 * timeout: on a broken D-Bus the native call blocks and would otherwise hang the CLI.
 */
import {parentPort, workerData} from 'node:worker_threads'

interface Job {
  op: 'get' | 'set' | 'delete'
  service: string
  account: string
  password?: string
}

const job = workerData as Job
try {
  const {Entry} = await import('@napi-rs/keyring')
  const entry = new Entry(job.service, job.account)
  let value: string | null | boolean = null
  if (job.op === 'get') value = entry.getPassword() ?? null
  else if (job.op === 'set') entry.setPassword(job.password ?? '')
  else value = entry.deletePassword()
  parentPort!.postMessage({ok: true, value})
} catch (e) {
  parentPort!.postMessage({ok: false, reason: (e instanceof Error ? e.message : String(e)).split('\n')[0]})
}
