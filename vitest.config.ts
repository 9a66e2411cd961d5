import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Names the system parts (chromium, tmux, …) this machine lacks, whose tests were skipped.
    globalSetup: ['test/helpers/system-summary.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more workers than that only makes the daemons they start compete.
    maxWorkers: 2,
  },
})
