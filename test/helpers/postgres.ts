/**
 * @module PostgreSQL for tests: a throw-away cluster (bench/postgres-cluster.ts) for the tests of one `describe`
 * (faults need a server of their own to stop), or the one the `postgres` project's global setup shares
 * (postgres-global.ts), and a fresh database for each store or daemon.
 */
import {afterAll, beforeAll, inject} from 'vitest'
import {createDatabase, startCluster, type ClusterOptions, type PostgresCluster} from '../../bench/postgres-cluster.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The superuser URL of the cluster shared by the `postgres` project (KB_TEST_STORE=postgres); '' without it. */
    kbPostgresAdmin: string
  }
}

/** Starts a cluster before the tests of the current `describe` and removes it after them; returns a getter. */
export function useCluster(options: ClusterOptions = {}): () => PostgresCluster {
  let cluster: PostgresCluster | null = null
  beforeAll(async () => {
    cluster = await startCluster(options)
  }, 180_000)
  afterAll(() => cluster?.stop())
  return () => {
    if (!cluster) throw new Error('the PostgreSQL cluster is not running (beforeAll failed?)')
    return cluster
  }
}

/** Whether the API tests run on PostgreSQL (the `postgres` project sets KB_TEST_STORE=postgres). */
export function testStoreIsPostgres(): boolean {
  return process.env.KB_TEST_STORE === 'postgres'
}

/** A fresh database in the shared cluster, for one daemon of the API tests on PostgreSQL. */
export async function sharedDatabase(): Promise<string> {
  const admin = inject('kbPostgresAdmin')
  if (!admin) throw new Error('KB_TEST_STORE=postgres but no cluster was provided: run the `postgres` vitest project')
  return createDatabase(admin)
}
