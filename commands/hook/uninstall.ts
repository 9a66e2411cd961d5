/**
 * @module `kb hook uninstall`: remove kb's post-commit hook (or its line in someone else's hook).
 */
import {KbCommand} from '../../src/cli/base.js'
import {uninstallHook, type HookUninstall} from '../../src/cli/hooks/git-hook.js'

export default class HookUninstall_ extends KbCommand<typeof HookUninstall_> {
  static override summary = "Remove kb's git hook"
  static override examples = ['<%= config.bin %> hook uninstall']

  async run(): Promise<HookUninstall> {
    const r = await uninstallHook()
    if (this.mode.tty)
      this.out(
        r.what === 'hook' ? `Removed ${r.hook}` : r.what === 'chain' ? `Removed kb's line from ${r.hook}` : `No kb hook in ${r.hook}`,
      )
    else this.out(`${r.removed ? 'removed' : 'none'}\t${r.hook}`)
    return r
  }
}
