import {defineConfig} from 'vitest/config'
import {findSystem} from './test/helpers/system.js'

/**
 * The API tests: they talk HTTP to daemons started by test/helpers/daemon.ts and make no assumption about the
 * store, so the `postgres` project runs them again with every daemon on a fresh PostgreSQL database.
 */
const API_TESTS = [
  'test/server/endpoints/*.test.ts',
  'test/server/oauth/{authorize,browser,discovery-registration,grants,oauth4webapi,token}.test.ts',
  'test/server/search/{aged,bounded,feedback,forgiving,ranking}.test.ts',
  'test/server/{fast-get,fuzz,hostile,smoke,summary,visibility}.test.ts',
  'test/server/transfer/{authorship,import-threads,import-twice,malformed,round-trip}.test.ts',
  'test/server/web/*.test.ts',
  'test/mcp/{batch,http,http-curation,http-short-ids,http-trust,join-pending,recall-record,safe-publish,stdio}.test.ts',
]

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more workers than that only makes the daemons they start compete.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          // Names the system parts (chromium, tmux, PostgreSQL …) this machine lacks, whose tests were skipped.
          globalSetup: ['test/helpers/system-summary.ts'],
        },
      },
      // Without PostgreSQL's programs there is no second run; the `sqlite` project names the skip (and
      // fails the run under KB_TEST_REQUIRE_ALL=1).
      ...(findSystem('postgres').missing === null
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: API_TESTS,
                env: {KB_TEST_STORE: 'postgres'},
                globalSetup: ['test/helpers/postgres-global.ts'],
              },
            },
          ]
        : []),
    ],
  },
})
