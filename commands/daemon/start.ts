/**
 * @module `kb daemon start`: start the local daemon in the background (what autostart does).
 */
import {Flags} from '@oclif/core'
import {KbError} from '../../src/shared/errors.js'
import {DEFAULT_HOST, DEFAULT_PORT, dataDir, dataFiles} from '../../src/shared/paths.js'
import {KbCommand} from '../../src/cli/base.js'
import {isLoopbackUrl, readDaemonInfo, spawnDaemon, stopDaemon} from '../../src/cli/daemon/manager.js'
import {impostorError, probeDaemonIfUp} from '../../src/cli/daemon/proof.js'
import {green, oneLine} from '../../src/cli/output/format.js'

export interface DaemonStartResult {
  url: string
  version: string
  pid: number | null
  data_dir: string
  log: string
  started: boolean
}

export default class DaemonStart extends KbCommand<typeof DaemonStart> {
  static override summary = 'Start the local kb daemon in the background'
  static override description = `Listens on the port of the base URL (default ${DEFAULT_HOST}:${DEFAULT_PORT}) with the default data directory ($KB_DATA_DIR, $XDG_DATA_HOME/kb or ~/.local/share/kb); logs go to daemon.log there. A daemon of another kb version started from this data directory is replaced. Commands do this by themselves unless KB_NO_AUTOSTART is set.`
  static override examples = [
    '<%= config.bin %> daemon start',
    '<%= config.bin %> daemon start --port 7500',
    'KB_DATA_DIR=/tmp/kb <%= config.bin %> daemon start --base-url http://127.0.0.1:7500/api/v1',
  ]
  static override flags = {
    port: Flags.integer({
      description: "TCP port, as `kb daemon run --port` (default: the base URL's)",
      min: 1,
      max: 65535,
      exclusive: ['base-url'],
    }),
    host: Flags.string({
      description:
        "loopback address to bind, as `kb daemon run --host` (default: the base URL's); to serve the network, use `kb daemon run`",
      exclusive: ['base-url'],
    }),
  }

  /** The base URL to serve: --port and --host change the one in effect, as `kb daemon run`'s do. */
  private target(): string {
    const {port, host} = this.flags
    if (port === undefined && host === undefined) return this.baseUrl
    const u = new URL(this.baseUrl)
    if (host !== undefined) u.hostname = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
    if (port !== undefined) u.port = String(port)
    return u.toString().replace(/\/+$/, '')
  }

  async run(): Promise<DaemonStartResult> {
    const baseUrl = this.target()
    if (!isLoopbackUrl(baseUrl))
      throw new KbError(
        'usage',
        `${baseUrl} is not a local address; \`kb daemon start\` runs a daemon on this machine for you (use --port, or --base-url http://127.0.0.1:<port>/api/v1); to serve the network, run \`kb daemon run --host <address>\``,
      )
    const dir = dataDir()
    const files = dataFiles(dir)
    let p = await probeDaemonIfUp(baseUrl, dir)
    let started = false
    if (p?.health && p.health.version !== this.config.version) {
      const info = readDaemonInfo(dir)
      if (!info || info.pid === process.ppid)
        throw new KbError(
          'conflict',
          `a kb ${p.health.version} daemon that was not started from ${dir} answers at ${new URL(baseUrl).host}; stop it, or pick another port with --base-url`,
        )
      await stopDaemon(dir)
      p = null
    }
    if (!p) {
      p = await spawnDaemon({baseUrl, root: this.config.root})
      started = true
    }
    if (!p.health || !p.proven) throw await impostorError(baseUrl, dir, p)
    const h = p.health
    const info = readDaemonInfo(dir)
    const result = {url: baseUrl, version: h.version, pid: info?.pid ?? null, data_dir: dir, log: files.log, started}
    if (this.mode.tty)
      this.out(
        started
          ? `${green(this.mode, 'Started')} the kb daemon ${oneLine(h.version)} at ${baseUrl} (pid ${result.pid ?? '?'})`
          : `The kb daemon ${oneLine(h.version)} is already running at ${baseUrl}`,
      )
    else this.out(`${baseUrl}\t${result.pid ?? ''}\t${started ? 'started' : 'running'}`)
    if (baseUrl !== this.baseUrl) this.note(`other commands reach it with --base-url ${baseUrl} (or \`kb config set base_url ${baseUrl}\`)`)
    return result
  }
}
