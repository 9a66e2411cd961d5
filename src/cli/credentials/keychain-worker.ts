/**
 * @module Runs one OS-keychain call in a short-lived child process, so the CLI can give up on it after a
 * timeout: on a broken D-Bus the native call blocks for good, and a blocked worker thread would keep
 * the CLI from exiting, while a child process can be killed. The job arrives on stdin (a secret never
 * goes into argv, which `ps` shows); the result leaves as one JSON line on stdout.
 */
interface Job {
  op: 'get' | 'set' | 'delete'
  service: string
  account: string
  password?: string
}

const chunks: Buffer[] = []
for await (const c of process.stdin) chunks.push(c as Buffer)
let result: unknown
try {
  const job = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Job
  const {Entry} = await import('@napi-rs/keyring')
  const entry = new Entry(job.service, job.account)
  let value: string | null | boolean = null
  if (job.op === 'get') value = entry.getPassword() ?? null
  else if (job.op === 'set') entry.setPassword(job.password ?? '')
  else value = entry.deletePassword()
  result = {ok: true, value}
} catch (e) {
  result = {ok: false, reason: (e instanceof Error ? e.message : String(e)).split('\n')[0]}
}
process.stdout.write(`${JSON.stringify(result)}\n`)
