/**
 * @module `kb daemon logs`: the tail of `<data dir>/daemon.log`, optionally followed.
 */
import {Flags} from '@oclif/core'
import {closeSync, existsSync, openSync, readSync, statSync, watch} from 'node:fs'
import {KbError} from '../../src/shared/errors.js'
import {dataDir, dataFiles} from '../../src/shared/paths.js'
import {KbCommand} from '../../src/cli/base.js'
import {isLoopbackUrl, logTail, probeHealth} from '../../src/cli/daemon/manager.js'
import {prettyLogLine} from '../../src/cli/daemon/log-lines.js'
import {safeText} from '../../src/cli/output/safe-text.js'

export default class DaemonLogs extends KbCommand<typeof DaemonLogs> {
  static override summary = "Show the local kb daemon's log"
  static override description =
    'The daemon started by kb (autostart or `kb daemon start`) logs JSON lines to daemon.log in its data directory; a foreground `kb daemon run` logs to its own stderr, so there is nothing to show here. ' +
    "On a terminal each line is shown for people (local time, level, message, request, other fields); piped, and in --json's lines, as written."
  static override examples = [
    '<%= config.bin %> daemon logs',
    '<%= config.bin %> daemon logs -n 100',
    '<%= config.bin %> daemon logs --follow',
  ]
  static override flags = {
    lines: Flags.integer({char: 'n', description: 'how many lines from the end', default: 50, min: 0}),
    follow: Flags.boolean({char: 'f', description: 'keep printing new lines until interrupted', default: false}),
  }

  /**
   * The log of the local daemon that answers at the base URL (it says where its log goes), else the one in
   * the CLI's data directory. A foreground `kb daemon run` logs to its own stderr: there is no file to show.
   */
  private async logFile(): Promise<string> {
    const h = isLoopbackUrl(this.baseUrl) ? await probeHealth(this.baseUrl) : null
    if (h?.log === null)
      throw new KbError(
        'not_found',
        `the kb daemon at ${this.baseUrl} (pid ${h.pid}, data ${h.data_dir}) runs in the foreground (\`kb daemon run\`) and logs to its own stderr, not to a file; \`kb daemon logs\` shows the log of a daemon started by \`kb daemon start\` or autostart`,
      )
    return h?.log ?? dataFiles(dataDir()).log
  }

  async run(): Promise<{file: string; lines: string[]}> {
    const file = await this.logFile()
    if (!existsSync(file))
      throw new KbError('not_found', `no daemon log at ${file} yet: the daemon writes it when started by \`kb daemon start\` or autostart`)
    const lines = this.flags.lines === 0 ? [] : logTail(file, this.flags.lines)
    // On a terminal, for people (local times, level words); piped, the JSON lines as written.
    const pretty = this.mode.tty && !this.jsonEnabled()
    const show = (line: string): string => (pretty ? prettyLogLine(line, this.mode) : safeText(line))
    // JSON lines escape controls already; anything else written to the log (a crash) may carry request text.
    if (!this.jsonEnabled() && lines.length > 0) this.out(lines.map(show).join('\n'))
    if (this.flags.follow && !this.jsonEnabled()) await follow(file, show)
    return {file, lines}
  }
}

/** Prints what is appended to `file`, line by line as `show` makes it, until SIGINT/SIGTERM. */
async function follow(file: string, show: (line: string) => string): Promise<void> {
  let pos = statSync(file).size
  // A line written in two pieces is shown once whole.
  let partial = ''
  const pump = (): void => {
    const size = statSync(file).size
    if (size < pos) pos = 0 // truncated or rotated
    if (size === pos) return
    const fd = openSync(file, 'r')
    try {
      const buf = Buffer.alloc(size - pos)
      readSync(fd, buf, 0, buf.length, pos)
      const lines = (partial + buf.toString('utf8')).split('\n')
      partial = lines.pop()!
      for (const line of lines) process.stdout.write(`${show(line)}\n`)
      pos = size
    } finally {
      closeSync(fd)
    }
  }
  await new Promise<void>((resolve) => {
    const watcher = watch(file, () => pump())
    const timer = setInterval(pump, 500)
    const stop = (): void => {
      watcher.close()
      clearInterval(timer)
      resolve()
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
}
