/**
 * @module `kb daemon run`: the daemon in the foreground, logging to stderr.
 */
import {Command, Flags} from '@oclif/core'
import {DEFAULT_HOST, DEFAULT_PORT, dataDir} from '../../src/shared/paths.js'
import {usageLine} from '../../src/cli/output/usage-error.js'

export default class DaemonRun extends Command {
  static override summary = 'Run the kb daemon in the foreground'
  static override description =
    'Serves the /api/v1 HTTP API until SIGTERM or SIGINT, over SQLite in the data directory or, for a team server, a PostgreSQL database (docs/team-server.md). Logs are JSON lines on stderr.'
  static override examples = [
    '<%= config.bin %> daemon run',
    '<%= config.bin %> daemon run --port 0 --data-dir /tmp/kb-test',
    '<%= config.bin %> daemon run --host 0.0.0.0 --store-url postgres://kb@db.internal/kb --public-url https://kb.example.com/api/v1',
  ]
  static override flags = {
    port: Flags.integer({description: 'TCP port (0 picks a free one)', default: DEFAULT_PORT, min: 0, max: 65535, env: 'KB_PORT'}),
    host: Flags.string({description: 'address to bind; a non-loopback one serves the network', default: DEFAULT_HOST, env: 'KB_HOST'}),
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
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(DaemonRun)
    const {startDaemon, DaemonError} = await import('../../server/daemon.js')
    const envHosts = (process.env.KB_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean)
    let daemon
    try {
      daemon = await startDaemon({
        dataDir: flags['data-dir'] ?? dataDir(),
        host: flags.host,
        port: flags.port,
        version: this.config.version,
        allowedHosts: [...(flags['allow-host'] ?? []), ...envHosts],
        ...(flags['public-url'] ? {publicBaseUrl: flags['public-url'].replace(/\/+$/, '')} : {}),
        logLevel: flags['log-level'],
        ...(flags['store-url'] ? {storeUrl: flags['store-url']} : {}),
      })
    } catch (e) {
      if (e instanceof DaemonError) this.error(e.message, {exit: 1})
      throw e
    }
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
    const exit = err.oclif?.exit
    process.exitCode = exit ?? 1
    if (err.message.startsWith('EEXIT:')) return undefined
    process.stderr.write(`kb: ${exit === 2 ? usageLine(err.message) : err.message}\n`)
    return undefined
  }
}
