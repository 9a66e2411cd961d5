/**
 * @module `kb hook uninstall`: remove kb's git hooks (or their lines in someone else's hooks).
 */
import {KbCommand} from '../../src/cli/base.js'
import {uninstallHook, type HookUninstall} from '../../src/cli/hooks/git-hook.js'

export default class HookUninstall_ extends KbCommand<typeof HookUninstall_> {
  static override summary = "Remove kb's git hooks"
  static override examples = ['<%= config.bin %> hook uninstall']

  async run(): Promise<HookUninstall> {
    const r = await uninstallHook()
    for (const h of r.hooks) {
      if (this.mode.tty)
        this.out(
          h.what === 'hook' ? `Removed ${h.hook}` : h.what === 'chain' ? `Removed kb's line from ${h.hook}` : `No kb hook in ${h.hook}`,
        )
      else this.out(`${h.removed ? 'removed' : 'none'}\t${h.hook}`)
    }
    return r
  }
}
