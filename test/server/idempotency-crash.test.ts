/**
 * An Idempotency-Key claimed by a request that never finished because its daemon was SIGKILLed (issue 24;
 * docs/api.md, "Idempotency"): on SQLite, one daemon per store, so the restarted daemon frees every claim left
 * unanswered — the key takes a new request at once instead of answering "in use" for minutes.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {corpusImport} from '../../bench/hostile-shapes.js'
import {startChildDaemon, tempDir, type ChildDaemon} from '../helpers/daemon.js'

let d: ChildDaemon | undefined
afterAll(async () => {
  await d?.stop()
})

const post = (dd: ChildDaemon, key: string, body: string): Promise<Response> =>
  fetch(`${dd.url}/import`, {
    method: 'POST',
    headers: {authorization: `Bearer ${dd.ownerKey}`, 'content-type': 'application/x-ndjson', 'idempotency-key': key},
    body,
  })

describe('a key claimed when the daemon was killed', () => {
  it('is free after the restart, even for another body', {timeout: 120_000}, async () => {
    if (process.env.KB_TEST_STORE === 'postgres') return // daemons share a PostgreSQL store: a claim is abandoned after 5 min
    const dataDir = tempDir('kb-idem-crash-')
    d = await startChildDaemon({dataDir})
    const key = 'import-killed-midway'
    const importing = post(d, key, corpusImport(3000)).catch(() => null)
    // Until the claim is there (the import runs for seconds), then SIGKILL.
    for (let i = 0; i < 100; i++) {
      const probe = await post(d, key, corpusImport(1))
      if (probe.status === 409) break
      await new Promise((r) => setTimeout(r, 50))
    }
    d.child.kill('SIGKILL')
    await d.exited
    await importing
    d = await startChildDaemon({dataDir})
    const other = await post(d, key, corpusImport(2))
    expect(other.status, await other.clone().text()).toBe(200)
    expect(((await other.json()) as {created: number}).created).toBe(2)
  })
})
