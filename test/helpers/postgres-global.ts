/**
 * @module Global setup of the `postgres` vitest project (vitest.config.ts): one throw-away PostgreSQL cluster for
 * the whole run, whose superuser URL the tests get with `inject('kbPostgresAdmin')`; each daemon then makes its
 * own database in it (test/helpers/postgres.ts). Removed when the run ends.
 */
import type {TestProject} from 'vitest/node'
import {startCluster} from '../../bench/postgres-cluster.js'

export async function setup(project: TestProject): Promise<() => void> {
  const cluster = await startCluster()
  project.provide('kbPostgresAdmin', cluster.url())
  return () => cluster.stop()
}
