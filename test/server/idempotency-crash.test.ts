/**
 * An Idempotency-Key claimed by a request that never finished because its daemon was SIGKILLed (issue 24;
 * docs/api.md, "Idempotency"): on SQLite, one daemon per store, so the restarted daemon frees every claim left
 * unanswered — the key takes a new request at once instead of answering "in use" for minutes. On PostgreSQL,
 * where other daemons keep running, the claim names the killed daemon's lease session, which PostgreSQL ends
 * when the process dies: another daemon takes the key within seconds.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {corpusImport} from '../../bench/hostile-shapes.js'
import {queryStore, startChildDaemon, tempDir, type ChildDaemon} from '../helpers/daemon.js'
import {useCluster} from '../helpers/postgres.js'
import {requireSystem} from '../helpers/system.js'

const postgres = requireSystem('postgres')
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

/** Starts a long import under `key` on `dd`, and resolves once its claim is in the store, unanswered. */
async function claimedByImport(dd: ChildDaemon, key: string): Promise<void> {
  // A first claim under another key, so that the long import's claim is not the one that opens the store's lease.
  expect((await post(dd, `${key}-before`, corpusImport(1))).status).toBe(200)
  void post(dd, key, corpusImport(3000)).catch(() => null)
  // Read in the store, not probed with the key: a probe that arrived first would take the key itself.
  for (let i = 0; i < 400; i++) {
    const rows = await queryStore<{status: number | null}>(dd, 'SELECT status FROM idempotency_keys WHERE key = ?', [key])
    if (rows.length === 1 && rows[0]!.status === null) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error('the import never held the key')
}

describe('a key claimed when the daemon was killed', () => {
  it('is free after the restart, even for another body', {timeout: 120_000}, async () => {
    if (process.env.KB_TEST_STORE === 'postgres') return // daemons share a PostgreSQL store: a claim is abandoned after 5 min
    const dataDir = tempDir('kb-idem-crash-')
    d = await startChildDaemon({dataDir})
    const key = 'import-killed-midway'
    // Until the claim is there (the import runs for seconds), then SIGKILL.
    await claimedByImport(d, key)
    d.child.kill('SIGKILL')
    await d.exited
    d = await startChildDaemon({dataDir})
    const other = await post(d, key, corpusImport(2))
    expect(other.status, await other.clone().text()).toBe(200)
    expect(((await other.json()) as {created: number}).created).toBe(2)
  })
})

postgres.describe('a key claimed by a daemon killed on PostgreSQL', () => {
  const cluster = useCluster()
  const daemons: ChildDaemon[] = []
  afterAll(async () => {
    await Promise.all(daemons.map((x) => x.stop()))
  })

  it('is taken over by another daemon within seconds, even for another body', {timeout: 180_000}, async () => {
    const storeUrl = await cluster().createDatabase()
    const dataDir = tempDir('kb-idem-crash-pg-')
    const a = await startChildDaemon({dataDir, storeUrl})
    const b = await startChildDaemon({dataDir: tempDir('kb-idem-crash-pg-b-'), storeUrl})
    daemons.push(a, b)
    b.ownerKey = a.ownerKey // one store, one owner: the second daemon found it bootstrapped
    const key = 'import-killed-midway'
    await claimedByImport(a, key)
    // The other daemon sees the claim held while its daemon lives.
    expect((await post(b, key, corpusImport(2))).status).toBe(409)
    a.child.kill('SIGKILL')
    await a.exited
    // PostgreSQL ends the killed daemon's session when its socket closes; until then a repeat is told 409.
    const killedAt = Date.now()
    let other: Response
    for (;;) {
      other = await post(b, key, corpusImport(2))
      if (other.status !== 409 || Date.now() - killedAt > 60_000) break
      await new Promise((r) => setTimeout(r, 250))
    }
    expect(other.status, await other.clone().text()).toBe(200)
    expect(((await other.json()) as {created: number}).created).toBe(2)
    // Without the lease this took five minutes (the abandonment rule for claims that name no session).
    expect(Date.now() - killedAt).toBeLessThan(30_000)
  })
})
