/**
 * @module System parts some tests drive for real (chromium, a Secret Service, tmux, PostgreSQL, fish, zsh, unshare): found on
 * this machine or not. Without one, the tests that need it are skipped and the run says why, so `npm test`
 * is green with Node and git alone; under `KB_TEST_REQUIRE_ALL=1` (set by `.ci/run`, which installs every
 * part) a missing part fails the run instead. `KB_TEST_HIDE_SYSTEM=chromium,tmux,…` (or `all`) makes parts
 * count as missing, so CI can prove the skips.
 */
import {execFileSync} from 'node:child_process'
import {accessSync, constants, readdirSync} from 'node:fs'
import {delimiter, join} from 'node:path'
import {describe} from 'vitest'

export const SYSTEM_PARTS = ['chromium', 'secret-service', 'tmux', 'postgres', 'fish', 'zsh', 'unshare'] as const
export type SystemPart = (typeof SYSTEM_PARTS)[number]

export interface SystemFound {
  part: SystemPart
  /** The executable (chromium, tmux) or the directory holding the programs (postgres: initdb, pg_ctl); null when missing. */
  path: string | null
  /** Why it is missing, as printed: "chromium not installed". */
  missing: string | null
}

/** What each part is made of: the programs that must all be found, and the words used when it is not. */
const PARTS: Record<SystemPart, {programs: string[][]; what: string}> = {
  // One of these names (Debian: chromium; Ubuntu's deb: chromium-browser; Google's builds).
  chromium: {programs: [['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']], what: 'chromium'},
  'secret-service': {
    programs: [['dbus-run-session'], ['gnome-keyring-daemon']],
    what: 'a Secret Service (dbus-run-session and gnome-keyring-daemon)',
  },
  tmux: {programs: [['tmux']], what: 'tmux'},
  postgres: {programs: [['initdb'], ['pg_ctl']], what: 'PostgreSQL (initdb and pg_ctl)'},
  // The shells whose completion scripts are tried for real (bash is always there).
  fish: {programs: [['fish']], what: 'fish'},
  zsh: {programs: [['zsh']], what: 'zsh'},
  // A daemon on a small file system of its own (a tmpfs in a mount namespace), to fill its disk for real.
  unshare: {programs: [['unshare'], ['mount']], what: 'unshare and mount (util-linux)'},
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The first directory of `dirs` holding an executable named one of `names`, as a full path. */
function which(names: string[], dirs: string[]): string | null {
  for (const dir of dirs) for (const name of names) if (dir !== '' && executable(join(dir, name))) return join(dir, name)
  return null
}

/** Debian installs PostgreSQL's server programs off the PATH, one directory per major version (newest first). */
function postgresDirs(root = '/usr/lib/postgresql'): string[] {
  try {
    return readdirSync(root)
      .sort((a, b) => Number(b) - Number(a))
      .map((v) => join(root, v, 'bin'))
  } catch {
    return []
  }
}

function hidden(env: NodeJS.ProcessEnv): Set<string> {
  const list = (env.KB_TEST_HIDE_SYSTEM ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  return new Set(list.includes('all') ? SYSTEM_PARTS : list)
}

/**
 * Whether `unshare` may make the user and mount namespace the disk tests use: installed is not enough where the
 * kernel or a policy (Ubuntu's AppArmor restriction, a container's seccomp) refuses it, and those tests would fail.
 */
function namespacesAllowed(unshare: string): boolean {
  try {
    execFileSync(unshare, ['--user', '--map-root-user', '--mount', 'true'], {stdio: 'ignore', timeout: 5000})
    return true
  } catch {
    return false
  }
}

/** Looks for a part on `env.PATH` (PostgreSQL also under /usr/lib/postgresql/<version>/bin). */
export function findSystem(part: SystemPart, env: NodeJS.ProcessEnv = process.env): SystemFound {
  const spec = PARTS[part]
  const missing = `${spec.what} not installed`
  if (hidden(env).has(part)) return {part, path: null, missing: `${missing} (hidden by KB_TEST_HIDE_SYSTEM)`}
  const onPath = (env.PATH ?? '').split(delimiter)
  // PostgreSQL's programs must come from one installation: try PATH as a whole, then each version's bin.
  const candidates = part === 'postgres' ? [onPath, ...postgresDirs().map((d) => [d])] : [onPath]
  for (const dirs of candidates) {
    const found = spec.programs.map((names) => which(names, dirs))
    if (found.every((p) => p !== null)) {
      if (part === 'unshare' && !namespacesAllowed(found[0]!))
        return {part, path: null, missing: `${spec.what} found, but this machine refuses an unprivileged user and mount namespace`}
      return {part, path: part === 'postgres' ? found[0]!.slice(0, found[0]!.lastIndexOf('/')) : found[0]!, missing: null}
    }
  }
  return {part, path: null, missing}
}

/** True when `.ci/run` asked for every part: a missing one is then an error, not a skip. */
export function requireAll(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.KB_TEST_REQUIRE_ALL === '1'
}

export interface RequiredSystem {
  /** `describe`, skipping its tests when a part is missing. */
  describe: ReturnType<typeof describe.skipIf>
  available: boolean
  /** Each part's path (see `SystemFound.path`), when available. */
  paths: Partial<Record<SystemPart, string>>
}

/**
 * The parts a group of tests needs. Use the returned `describe` for those tests (file-level hooks of a file
 * whose every test is skipped do not run). When a part is missing it prints
 * "skipped: chromium not installed — `.ci/run` installs it", or throws under `KB_TEST_REQUIRE_ALL=1`.
 */
export function requireSystem(...parts: SystemPart[]): RequiredSystem {
  const found = parts.map((p) => findSystem(p))
  const missing = found.filter((f) => f.missing !== null)
  const paths = Object.fromEntries(found.filter((f) => f.path !== null).map((f) => [f.part, f.path!]))
  if (missing.length === 0) return {describe: describe.skipIf(false), available: true, paths}
  const why = missing.map((f) => f.missing).join('; ')
  if (requireAll()) throw new Error(`KB_TEST_REQUIRE_ALL=1 but ${why}: install it (\`.ci/run\` does) instead of skipping these tests`)
  console.warn(`skipped: ${why} — \`.ci/run\` installs it`)
  return {describe: describe.skipIf(true), available: false, paths}
}
