/**
 * @module vitest global setup: after the run, one line per system part this machine lacks, so the tests
 * skipped for it are named at the end of the output (test/helpers/system.ts). Under `KB_TEST_REQUIRE_ALL=1`
 * a missing part stops the run before it starts.
 */
import {findSystem, requireAll, SYSTEM_PARTS} from './system.js'

export function setup(): () => void {
  const missing = SYSTEM_PARTS.map((p) => findSystem(p)).filter((f) => f.missing !== null)
  if (missing.length > 0 && requireAll()) {
    throw new Error(`KB_TEST_REQUIRE_ALL=1 but ${missing.map((f) => f.missing).join('; ')}: install it (\`.ci/run\` does)`)
  }
  return () => {
    for (const f of missing) console.log(`skipped: ${f.missing} — \`.ci/run\` installs it; the tests that need ${f.part} did not run`)
  }
}
