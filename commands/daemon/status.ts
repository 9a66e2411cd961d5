/**
 * @module `kb daemon status`: is the daemon of the base URL up, which version, which process.
 */
import {ERROR_CODES} from '../../src/shared/errors.js'
import {dataDir, dataFiles} from '../../src/shared/paths.js'
import {KbCommand} from '../../src/cli/base.js'
import {isAlive, isLoopbackUrl, probeHealth, readDaemonInfo} from '../../src/cli/daemon/manager.js'
import {cell, dim, green, oneLine, red} from '../../src/cli/output/format.js'

export interface DaemonStatus {
  url: string
  running: boolean
  version: string | null
  cli_version: string
  pid: number | null
  started_at: string | null
  data_dir: string | null
  /** null when not local, or when it runs in the foreground (`kb daemon run` logs to its stderr). */
  log: string | null
  /** The daemon's store cannot take writes: its disk is full (`/health` says `disk_full`; docs/operations.md). */
  disk_full: boolean
}

export default class DaemonStatusCmd extends KbCommand<typeof DaemonStatusCmd> {
  static override summary = 'Show whether the kb daemon is running'
  static override description = 'Exit code 0 when /health answers, 6 when it does not (no autostart here).'
  static override examples = ['<%= config.bin %> daemon status', '<%= config.bin %> daemon status --json']

  async run(): Promise<DaemonStatus> {
    const url = this.baseUrl
    const h = await probeHealth(url)
    const local = isLoopbackUrl(url)
    // A local daemon says which process and data directory it is (a foreground `kb daemon run --data-dir`
    // the CLI does not know); an older one does not, and then its daemon.json in the CLI's data directory does.
    const dir = local ? (h?.data_dir ?? dataDir()) : null
    const info = h?.pid !== undefined ? null : dir ? readDaemonInfo(dir) : null
    const pid = h?.pid ?? (info && isAlive(info.pid) ? info.pid : null)
    const status: DaemonStatus = {
      url,
      running: h !== null,
      version: h?.version ?? null,
      cli_version: this.config.version,
      pid: h ? pid : null,
      started_at: h ? (h.started_at ?? info?.started_at ?? null) : null,
      data_dir: dir,
      log: h?.log !== undefined ? h.log : dir ? dataFiles(dir).log : null,
      disk_full: h?.status === 'disk_full',
    }
    if (this.mode.tty) {
      this.out(
        h
          ? `${green(this.mode, 'running')}  kb ${oneLine(h.version)} at ${url}${status.pid ? ` (pid ${status.pid}, since ${status.started_at})` : ''}`
          : `${red(this.mode, 'not running')}  nothing answers at ${url}`,
      )
      if (dir) this.out(dim(this.mode, `data ${dir} · log ${status.log ?? 'its stderr (kb daemon run in the foreground)'}`))
      if (status.disk_full) this.out(red(this.mode, 'disk full: writes are refused (503) until there is room; reads go on'))
    } else {
      this.out([h ? 'running' : 'stopped', url, h?.version ?? '', status.pid ?? ''].map(cell).join('\t'))
    }
    if (!h) {
      process.exitCode = ERROR_CODES.unreachable.exit
      // Exit 6 says why on stderr, as every failure does (docs/cli.md, "Exit codes"); a terminal has read it above.
      if (!this.mode.tty || this.jsonEnabled())
        process.stderr.write(
          `kb: nothing answers at ${url}; ${local ? 'start the daemon with `kb daemon start`' : 'check --base-url (KB_BASE_URL)'}\n`,
        )
    }
    return status
  }
}
