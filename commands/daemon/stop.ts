/**
 * @module `kb daemon stop`: stop the local daemon gracefully (SIGTERM, wait for it to finish requests).
 */
import {dataDir} from '../../src/shared/paths.js'
import {KbCommand} from '../../src/cli/base.js'
import {isLoopbackUrl, probeHealth, stopDaemon} from '../../src/cli/daemon/manager.js'

export interface DaemonStopResult {
  stopped: boolean
  pid: number | null
  data_dir: string
  /** Nothing of this data directory ran, but a daemon of another one answers at the base URL: how to stop that one. */
  elsewhere?: {url: string; data_dir: string; pid: number | null}
}

export default class DaemonStop extends KbCommand<typeof DaemonStop> {
  static override summary = 'Stop the local kb daemon'
  static override description =
    'Sends SIGTERM to the daemon of the data directory ($KB_DATA_DIR, $XDG_DATA_HOME/kb or ~/.local/share/kb) and waits until it has finished in-flight requests and exited. Not running is not an error; when a daemon of another data directory answers at the base URL, it says which and how to stop it.'
  static override examples = ['<%= config.bin %> daemon stop', 'KB_DATA_DIR=/srv/kb <%= config.bin %> daemon stop']

  async run(): Promise<DaemonStopResult> {
    const dir = dataDir()
    const r = await stopDaemon(dir)
    const result: DaemonStopResult = {stopped: r.stopped, pid: r.pid, data_dir: dir}
    if (!r.stopped && isLoopbackUrl(this.baseUrl)) {
      // Only named, never signalled: what /health says of itself proves nothing about the process it names.
      const h = await probeHealth(this.baseUrl)
      if (h?.data_dir && h.data_dir !== dir) result.elsewhere = {url: this.baseUrl, data_dir: h.data_dir, pid: h.pid ?? null}
    }
    if (this.mode.tty) this.out(r.stopped ? `Stopped the kb daemon (pid ${r.pid})` : `No kb daemon is running for ${dir}`)
    else this.out(r.stopped ? `stopped\t${r.pid}` : 'not-running')
    const other = result.elsewhere
    if (other && !this.jsonEnabled())
      this.warnLine(
        `the kb daemon at ${other.url}${other.pid ? ` (pid ${other.pid})` : ''} keeps its data in ${other.data_dir}: stop it with \`KB_DATA_DIR=${other.data_dir} kb daemon stop\`, or Ctrl-C where it runs in the foreground`,
      )
    return result
  }
}
