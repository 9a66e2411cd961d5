/**
 * @module Which store a URL names and how it is logged (server/store/open.ts): every form node-postgres takes,
 * libpq's socket form among them, selects PostgreSQL, and no form shows its password; a daemon on one logs
 * a connection that broke without the connection's internals.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {redactedStoreUrl, storeKindOf} from '../../../server/store/open.js'
import {type ChildDaemon, startChildDaemon} from '../../helpers/daemon.js'
import {useCluster} from '../../helpers/postgres.js'
import {requireSystem} from '../../helpers/system.js'

describe('storeKindOf', () => {
  it('takes every PostgreSQL URL form, the socket forms too', () => {
    for (const url of [
      'postgres://kb:pw@db.internal:5432/kb',
      'postgresql://kb@db.internal/kb?sslmode=verify-full',
      // libpq's socket directory: a user without a host, which WHATWG's URL parser refuses.
      'postgres://kb@/kb?host=/run/postgresql',
      'postgres:///kb?host=/run/postgresql&user=kb',
    ])
      expect(storeKindOf(url), url).toBe('postgres')
    expect(storeKindOf(undefined)).toBe('sqlite')
  })

  it('refuses what is not a URL, or not PostgreSQL', () => {
    expect(() => storeKindOf('db.internal:5432')).toThrow(/is not a URL/)
    expect(() => storeKindOf('mysql://x@y/z')).toThrow(/must be postgres:\/\/… \(a PostgreSQL database\), not mysql:\/\//)
  })
})

describe('redactedStoreUrl', () => {
  it('hides the password wherever the URL holds it, and keeps the rest', () => {
    expect(redactedStoreUrl('postgres://kb:s3cret@127.0.0.1:1/kb')).toBe('postgres://kb:***@127.0.0.1:1/kb')
    expect(redactedStoreUrl('postgres://kb:s3cret@/kb?host=/run/postgresql')).toBe('postgres://kb:***@/kb?host=/run/postgresql')
    expect(redactedStoreUrl('postgres:///kb?user=kb&password=s3cret&host=/run/postgresql')).toBe(
      'postgres:///kb?user=kb&password=***&host=/run/postgresql',
    )
    expect(redactedStoreUrl('postgres://kb@db/kb?sslmode=require')).toBe('postgres://kb@db/kb?sslmode=require')
  })
})

requireSystem('postgres').describe('a daemon on a socket directory', () => {
  const cluster = useCluster()
  let d: ChildDaemon
  beforeAll(async () => {
    const tcp = new URL(await cluster().createDatabase())
    d = await startChildDaemon({storeUrl: `postgres://${tcp.username}@${tcp.pathname}?host=${cluster().dir}&port=${cluster().port}`})
  }, 120_000)
  afterAll(async () => {
    await d?.stop()
  })

  it("runs on libpq's form postgres://user@/database?host=<directory>", async () => {
    const health = await fetch(`${d.url}/health`)
    expect(await health.json()).toMatchObject({store: {kind: 'postgres', answers: true}})
  })

  it('logs a connection that broke while idle in one short line, without the connection object', async () => {
    // An idle connection in the pool, which the restart cuts.
    expect((await fetch(`${d.url}/health`)).status).toBe(200)
    await cluster().restart()
    let line: string | undefined
    for (let i = 0; i < 100 && !line; i++) {
      line = d
        .stderr()
        .split('\n')
        .find((l) => l.includes('a database connection broke'))
      if (!line) await new Promise((r) => setTimeout(r, 100))
    }
    expect(line).toBeDefined()
    expect(line).toContain('terminating connection due to administrator command')
    // pg-pool hangs the client on the error: its buffers, its backend's cancel key, its parameters.
    expect(line).not.toMatch(/secretKey|connectionParameters/)
    expect(line!.length).toBeLessThan(1_000)
  }, 60_000)
})
