/**
 * @module `kb search` without oclif (docs/performance.md, "CLI start-up: the lean search"): bin/run.js sends a search
 * here, because loading oclif and its configuration costs more than the search itself. Flags are read as oclif's
 * manifest describes the command (its names, letters, options and exclusions) and the integer bounds the command
 * declares (search-run.ts); the search is the command's own (runSearch), with the same client, daemon autostart and
 * proof, and errors reported as the command reports them. Whatever it does not handle exactly as oclif would —
 * help, a flag or form it does not know, a value oclif would refuse, an environment variable oclif reads, writes
 * waiting in the outbox, and on a terminal a note the command would give (a daemon to start: its spinner; a warning)
 * — it leaves to the command, before doing anything.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {ApiClient} from '../shared/client.js'
import {dataDir} from '../shared/paths.js'
import {httpClient} from './client/http-transport.js'
import {transportWords} from './client/transport-words.js'
import {resolveBaseUrl} from './config/config.js'
import {resolveCredential} from './credentials/credentials.js'
import {autostartEnabled, ensureDaemon, isLoopbackUrl} from './daemon/manager.js'
import {impostorError, probeDaemon, probeDaemonIfUp, type DaemonProbe} from './daemon/proof.js'
import {jsonText, outputMode} from './output/format.js'
import {reportCommandError} from './output/command-error.js'
import {hasQueued} from './outbox/state.js'
import {projectRef, resolveProjectId} from './project/project.js'
import {runSearch, SEARCH_INTEGER_FLAGS, type SearchFlags} from './search-run.js'

/** A flag as oclif's manifest describes it. */
interface ManifestFlag {
  name: string
  type: 'option' | 'boolean'
  char?: string
  options?: string[]
  multiple?: boolean
  exclusive?: string[]
  dependsOn?: string[]
  relationships?: unknown[]
  exactlyOne?: string[]
  env?: string
  allowStdin?: boolean | string
  default?: unknown
}

interface Parsed {
  flags: Record<string, string | number | boolean>
  words: string[]
}

/** The `KB_…` variables oclif itself reads (its configuration, debug output, `--json` by environment): oclif's to handle. */
const OCLIF_ENV = ['CONTENT_TYPE', 'DEBUG', 'DISABLE_THEME', 'CONFIG_DIR', 'CACHE_DIR', 'BINPATH', 'NPM_REGISTRY', 'REDIRECTED']

/** Whether the environment asks for something of oclif's (its own variables, debug output). */
function oclifEnv(env: NodeJS.ProcessEnv): boolean {
  if (OCLIF_ENV.some((k) => env[`KB_${k}`] !== undefined)) return true
  return env.DEBUG !== undefined || env.CLI_FLAGS_DEBUG !== undefined || Object.keys(env).some((k) => k.startsWith('OCLIF_'))
}

/** An integer oclif reads as the same number, within the flag's bounds; null otherwise (oclif then says why). */
function integerValue(name: string, value: string): number | null {
  const bounds = (SEARCH_INTEGER_FLAGS as Record<string, {min: number; max: number}>)[name]
  if (!bounds || !/^[1-9]\d{0,8}$/.test(value)) return null
  const n = Number(value)
  return n >= bounds.min && n <= bounds.max ? n : null
}

/** The value a flag that takes one gets from `value`, or null when oclif would read it differently or refuse it. */
function optionValue(flag: ManifestFlag, value: string | undefined): string | number | null {
  if (value === undefined || value === '' || value.startsWith('-')) return null
  if (flag.options) return flag.options.includes(value) ? value : null
  if (flag.name in SEARCH_INTEGER_FLAGS) return integerValue(flag.name, value)
  return value
}

/** `--name value`, `-c value`, `--switch` and words: oclif's reading of them, or null for anything else. */
function parseArgs(args: string[], manifestFlags: Record<string, ManifestFlag>): Parsed | null {
  const byChar = new Map<string, ManifestFlag>(Object.values(manifestFlags).flatMap((f) => (f.char ? [[`-${f.char}`, f] as const] : [])))
  const flags: Parsed['flags'] = {}
  const words: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (!arg.startsWith('-')) {
      words.push(arg)
      continue
    }
    const flag = arg.startsWith('--') ? manifestFlags[arg.slice(2)] : byChar.get(arg)
    if (!flag || flag.name in flags) return null
    if (flag.type === 'boolean') flags[flag.name] = true
    else {
      const value = optionValue(flag, args[++i])
      if (value === null) return null
      flags[flag.name] = value
    }
  }
  // Exclusive flags together: oclif's error.
  for (const name of Object.keys(flags)) if (manifestFlags[name]!.exclusive?.some((other) => other in flags)) return null
  return {flags, words}
}

/** The search command's flags as oclif's manifest lists them, or null without a manifest (a build that has none). */
function searchFlags(root: string): Record<string, ManifestFlag> | null {
  try {
    const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))
    const command = manifest.commands?.search
    // The command's shape as this path knows it: one required argument, read loosely (strict off), --json on.
    if (!command || command.strict !== false || !command.enableJsonFlag || Object.keys(command.args ?? {}).join() !== 'query') return null
    const flags = command.flags as Record<string, ManifestFlag>
    // A flag oclif fills in or checks beyond its own value (a default, an environment variable, stdin, relations):
    // oclif's to read.
    const plain = (f: ManifestFlag): boolean =>
      !f.multiple && !f.env && !f.allowStdin && !f.dependsOn && !f.relationships && !f.exactlyOne && f.default === undefined
    return Object.values(flags).every(plain) ? flags : null
  } catch {
    return null
  }
}

/** What the error report asks of the run: a client made, the daemon's last proof, a request sent without a credential. */
interface RunState {
  made: boolean
  probe?: {dir: string; probe: DaemonProbe}
  sentWithout?: boolean
}

/**
 * The client as the command base makes it for an API key (base.ts makeClient): the local daemon started when
 * autostart is on, and proved to own the credential's data directory. Null for an OAuth credential (the command
 * refreshes it).
 */
async function makeClient(baseUrl: string, root: string, version: string, state: RunState): Promise<ApiClient | null> {
  const local = isLoopbackUrl(baseUrl)
  const words = transportWords(local)
  // The command's notes (a daemon started, a version left running, a credential it could not use) go to a
  // terminal only: with stderr on one, whatever would print one is left to the command, before anything is started.
  const tty = process.stderr.isTTY === true
  if (local && autostartEnabled()) {
    const r = await ensureDaemon({baseUrl, root, cliVersion: version, ...(tty ? {onStart: leaveToOclif} : {})})
    if (tty && r.warning) return null
    state.probe = {dir: dataDir(), probe: r.probe}
  }
  const credential = await resolveCredential(baseUrl, local)
  if (credential.kind === 'oauth' || (tty && credential.problem)) return null
  state.sentWithout = credential.source === 'none'
  const dir = credential.daemonDataDir
  if (local && dir) {
    if (state.probe?.dir !== dir || !state.probe.probe.proven) state.probe = {dir, probe: await probeDaemon(baseUrl, dir, 2000, words)}
    if (!state.probe.probe.proven) throw await impostorError(baseUrl, dir, state.probe.probe)
  }
  const address = state.probe?.probe.proven ? state.probe.probe.peer?.address : undefined
  const client = httpClient({baseUrl, key: credential.key, userAgent: `kb/${version}`, ...words, ...(address ? {address} : {})})
  state.made = true
  return client
}

/** Thrown to leave the search to the command: an OAuth credential, or a note the command gives on a terminal. */
class LeaveToOclif extends Error {}

/** A daemon about to be started with stderr on a terminal: the command shows its spinner and note. */
function leaveToOclif(): never {
  throw new LeaveToOclif()
}

/**
 * Runs `kb search` for `args` (what follows `search`), its output written; false, having written nothing, when the
 * command should run it instead.
 */
export async function runLeanSearch(args: string[], root: string, version: string): Promise<boolean> {
  if (oclifEnv(process.env)) return false
  const manifestFlags = searchFlags(root)
  const parsed = manifestFlags && parseArgs(args, manifestFlags)
  if (!parsed || parsed.words.length === 0) return false
  const {flags, words} = parsed
  let baseUrl: string
  try {
    baseUrl = resolveBaseUrl(flags['base-url'] as string | undefined).url
  } catch {
    return false
  }
  if (hasQueued(baseUrl)) return false
  // What oclif's command module sets up when it loads: a pipe closed early (`kb search … | head -1`) is no error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err
  })
  const json = flags.json === true
  const local = isLoopbackUrl(baseUrl)
  const state: RunState = {made: false}
  let made: Promise<ApiClient> | undefined
  const client = (): Promise<ApiClient> =>
    (made ??= makeClient(baseUrl, root, version, state).then((c) => {
      if (!c) throw new LeaveToOclif()
      return c
    }))
  const mode = outputMode()
  try {
    const result = await runSearch(
      {
        client,
        projectId: async () => {
          const ref = await projectRef(flags.project as string | undefined, baseUrl)
          return ref ? resolveProjectId(ref, await client(), baseUrl) : null
        },
        mode,
        json,
        out: (text) => {
          if (!json) process.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`)
        },
      },
      flags as SearchFlags,
      words,
    )
    if (json) process.stdout.write(`${jsonText(result)}\n`)
  } catch (e) {
    if (e instanceof LeaveToOclif) return false
    await reportCommandError(e as Error, {
      command: 'search',
      json,
      remote: state.made && !local,
      flags: Object.keys(manifestFlags!)
        .filter((f) => f !== 'json')
        .map((f) => `--${f}`),
      elsewhere: async () => {
        // As the command base's daemonElsewhere: sent without a credential, the local daemon says where its data is.
        if (!local || !state.sentWithout) return null
        const dir = dataDir()
        if (state.probe?.dir !== dir)
          state.probe = {dir, probe: (await probeDaemonIfUp(baseUrl, dir).catch(() => null)) ?? {health: null, proven: false, peer: null}}
        const said = state.probe.probe.health?.data_dir
        return said && said !== dir ? {baseUrl, looked: dir, dir: said} : null
      },
    })
  }
  return true
}
