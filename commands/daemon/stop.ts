/**
 * @module `kb daemon stop`: stop the local daemon gracefully (SIGTERM, wait for it to finish requests).
 */
import {dataDir} from '../../src/shared/paths.js'
import {KbCommand} from '../../src/cli/base.js'
import {isLoopbackUrl, probeHealth, stopDaemon} from '../../src/cli/daemon/manager.js'

export default class DaemonStop extends KbCommand<typeof DaemonStop> {
  static override summary = 'Stop the local kb daemon'
  static override description =
    'Sends SIGTERM to the daemon of the data directory ($KB_DATA_DIR, $XDG_DATA_HOME/kb or ~/.local/share/kb) and waits until it has finished in-flight requests and exited. Not running is not an error; a daemon of another data directory that answers at the base URL is named, with the command that stops it.'
  static override examples = ['<%= config.bin %> daemon stop']

  async run(): Promise<{stopped: boolean; pid: number | null; data_dir: string}> {
    const dir = dataDir()
    const r = await stopDaemon(dir)
    if (this.mode.tty) this.out(r.stopped ? `Stopped the kb daemon (pid ${r.pid})` : `No kb daemon is running for ${dir}`)
    else this.out(r.stopped ? `stopped\t${r.pid}` : 'not-running')
    if (!r.stopped) await this.nameOtherDaemon(dir)
    return {stopped: r.stopped, pid: r.pid, data_dir: dir}
  }

  /** A daemon of another data directory (`kb daemon run --data-dir`) still answers here: say which, and how to stop it. */
  private async nameOtherDaemon(dir: string): Promise<void> {
    if (!isLoopbackUrl(this.baseUrl)) return
    const h = await probeHealth(this.baseUrl).catch(() => null)
    if (!h?.data_dir || h.data_dir === dir) return
    this.note(
      `the kb daemon at ${this.baseUrl} (pid ${h.pid ?? '?'}) keeps its data in ${h.data_dir}; stop it with \`KB_DATA_DIR=${h.data_dir} kb daemon stop\``,
    )
  }
}
