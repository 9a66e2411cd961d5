/**
 * @module `kb daemon run`: the daemon in the foreground, logging to stderr.
 */
import {Command, Flags} from '@oclif/core'
import {RECALL_RETENTION_DAYS_DEFAULT} from '../../src/shared/contract.js'
import {KbError} from '../../src/shared/errors.js'
import {API_PATH, DEFAULT_BASE_URL, DEFAULT_HOST, DEFAULT_PORT, dataDir} from '../../src/shared/paths.js'
import {usageLine} from '../../src/cli/output/usage-error.js'

/** The host and port a `--base-url` names (docs/cli.md, "The daemon"): an http URL ending in /api/v1. */
function listenAddress(baseUrl: string): {host: string; port: number} {
  let u: URL
  try {
    u = new URL(baseUrl)
  } catch {
    throw new KbError('usage', `--base-url "${baseUrl}" is not a URL (like ${DEFAULT_BASE_URL})`)
  }
  if (u.protocol !== 'http:' || u.pathname.replace(/\/+$/, '') !== API_PATH)
    throw new KbError('usage', `--base-url "${baseUrl}": the daemon serves plain http at ${API_PATH} (like ${DEFAULT_BASE_URL})`)
  const host = u.hostname === 'localhost' ? '127.0.0.1' : u.hostname.replace(/^\[|\]$/g, '')
  return {host, port: Number(u.port || 80)}
}

export default class DaemonRun extends Command {
  static override summary = 'Run the kb daemon in the foreground'
  static override description =
    'Serves the /api/v1 HTTP API until SIGTERM or SIGINT, over SQLite in the data directory or, for a team server, a PostgreSQL database (docs/team-server.md). ' +
    'Logs are JSON lines on stderr (`kb daemon logs` shows only the log of a daemon kb started). With --json, one JSON line on stdout says where it listens once it does (url, pid, data_dir). ' +
    '--project does not apply: the daemon serves every project.'
  static override examples = [
    '<%= config.bin %> daemon run',
    '<%= config.bin %> daemon run --port 0 --data-dir /tmp/kb-test --json',
    '<%= config.bin %> daemon run --base-url http://127.0.0.1:7500/api/v1',
    '<%= config.bin %> daemon run --host 0.0.0.0 --store-url postgres://kb@db.internal/kb --public-url https://kb.example.com/api/v1',
  ]
  static override flags = {
    port: Flags.integer({description: 'TCP port (0 picks a free one)', default: DEFAULT_PORT, min: 0, max: 65535, env: 'KB_PORT'}),
    host: Flags.string({description: 'address to bind; a non-loopback one serves the network', default: DEFAULT_HOST, env: 'KB_HOST'}),
    'base-url': Flags.string({
      description: 'serve at the host and port of this URL (http://HOST:PORT/api/v1), the one other commands are given',
      exclusive: ['port', 'host'],
      helpGroup: 'GLOBAL',
    }),
    json: Flags.boolean({
      description: 'print where it listens as one JSON line on stdout (and a start-up failure as JSON)',
      helpGroup: 'GLOBAL',
    }),
    'data-dir': Flags.string({description: 'where the store lives (default: $KB_DATA_DIR, $XDG_DATA_HOME/kb or ~/.local/share/kb)'}),
    'allow-host': Flags.string({description: 'also accept requests whose Host header names this host (repeatable)', multiple: true}),
    'public-url': Flags.string({description: 'the public base URL ending in /api/v1, when behind a proxy', env: 'KB_PUBLIC_URL'}),
    'store-url': Flags.string({
      description:
        'run on this PostgreSQL database (postgres://user:password@host:5432/kb), shared by every daemon of a team server; default: SQLite in the data directory',
      env: 'KB_STORE_URL',
    }),
    'log-level': Flags.option({
      options: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      default: 'info',
      env: 'KB_LOG_LEVEL',
    })(),
    'recall-retention-days': Flags.integer({
      description: 'days the record of what was recalled for agents is kept (GET /recalls)',
      default: RECALL_RETENTION_DAYS_DEFAULT,
      min: 1,
      max: 3650,
      env: 'KB_RECALL_RETENTION_DAYS',
    }),
    'open-projects': Flags.boolean({
      description:
        "anyone who knows a remote joins its project without a maintainer's approval or an invitation (the behaviour before membership)",
      env: 'KB_OPEN_PROJECTS',
    }),
    web: Flags.boolean({
      description: 'serve the web view at the root of the daemon (docs/web.md); --no-web serves the API alone',
      default: true,
      allowNo: true,
      env: 'KB_WEB',
    }),
    // Set by `kb daemon start` and autostart, which send stderr there: recorded for `kb daemon status/logs`.
    'log-file': Flags.string({hidden: true}),
  }

  private json = false

  async run(): Promise<void> {
    const {flags} = await this.parse(DaemonRun)
    this.json = flags.json
    const address = flags['base-url'] ? listenAddress(flags['base-url']) : {host: flags.host, port: flags.port}
    const {startDaemon, DaemonError} = await import('../../server/daemon.js')
    const envHosts = (process.env.KB_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean)
    const dir = flags['data-dir'] ?? dataDir()
    let daemon
    try {
      daemon = await startDaemon({
        dataDir: dir,
        ...address,
        version: this.config.version,
        allowedHosts: [...(flags['allow-host'] ?? []), ...envHosts],
        ...(flags['public-url'] ? {publicBaseUrl: flags['public-url'].replace(/\/+$/, '')} : {}),
        logLevel: flags['log-level'],
        ...(flags['log-file'] ? {logFile: flags['log-file']} : {}),
        ...(flags['store-url'] ? {storeUrl: flags['store-url']} : {}),
        recallRetentionDays: flags['recall-retention-days'],
        ...(flags['open-projects'] ? {openProjects: true} : {}),
        ...(flags.web ? {} : {web: false}),
      })
    } catch (e) {
      if (e instanceof DaemonError) this.error(e.message, {exit: 1})
      throw e
    }
    if (flags.json) process.stdout.write(`${JSON.stringify(daemon.info)}\n`)
    await new Promise<void>((resolve) => {
      const onSignal = (): void => {
        process.off('SIGTERM', onSignal)
        process.off('SIGINT', onSignal)
        daemon.stop().then(resolve, (e: unknown) => {
          process.stderr.write(`kb daemon: error while stopping: ${String(e)}\n`)
          process.exitCode = 1
          resolve()
        })
      }
      process.on('SIGTERM', onSignal)
      process.on('SIGINT', onSignal)
    })
  }

  /** Start-up failures (a busy port, a locked data dir) and parse errors: one `kb:` line, like every command's. */
  protected override async catch(err: Error & {oclif?: {exit?: number}}): Promise<unknown> {
    const exit = err instanceof KbError ? err.exitCode : (err.oclif?.exit ?? 1)
    process.exitCode = exit
    if (err.message.startsWith('EEXIT:')) return undefined
    const message = exit === 2 && !(err instanceof KbError) ? usageLine(err.message, 'daemon run') : err.message
    if (this.json || this.argv.includes('--json')) {
      const code = err instanceof KbError ? err.code : exit === 2 ? 'usage' : 'error'
      process.stdout.write(`${JSON.stringify({error: {code, message, exit}})}\n`)
    }
    process.stderr.write(`kb: ${message}\n`)
    return undefined
  }
}
