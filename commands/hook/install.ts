/**
 * @module `kb hook install`: the hooks that check anchors after commit, merge and checkout, and resolve `Resolves-KB: <id>` trailers.
 */
import {Flags} from '@oclif/core'
import {join} from 'node:path'
import {KbCommand} from '../../src/cli/base.js'
import {installHook, type HookInstall} from '../../src/cli/hooks/git-hook.js'
import {green} from '../../src/cli/output/format.js'

export default class HookInstall_ extends KbCommand<typeof HookInstall_> {
  static override summary = 'Install the git hooks that check anchors and resolve entries named in commit trailers'
  static override description = `post-commit, post-merge and post-checkout each start \`kb check --changed-in <what git just changed>\` in the background (it never starts the daemon, prints nothing and git does not wait for it). After each commit whose message has a trailer "Resolves-KB: <id>", the entry is resolved with the note "Resolved by commit <short sha>: <subject>" and, when the remote is on a known forge, the commit's web URL. The hooks go where git looks for hooks (core.hooksPath honoured). They never block or fail git: when kb is missing, unreachable or fails they print a warning and exit 0; without the trailer post-commit exits at once.

An existing hook that kb did not write is never overwritten: with --chain, one line calling kb's script is appended to it; without, kb installs the others, says what to add and exits 5.`
  static override examples = [
    '<%= config.bin %> hook install',
    '<%= config.bin %> hook install --chain',
    'git commit -m "Fix port reuse" -m "Resolves-KB: 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980"',
  ]
  static override flags = {
    chain: Flags.boolean({description: "append a call to kb's script to an existing hook that kb did not write", default: false}),
  }

  async run(): Promise<HookInstall> {
    const r = await installHook({node: process.execPath, bin: join(this.config.root, 'bin', 'run.js'), chain: this.flags.chain})
    const words = {installed: 'Installed', updated: 'Updated', chained: 'Chained into', 'already-chained': 'Already chained into'}
    for (const h of r.hooks) {
      if (this.mode.tty) this.out(`${green(this.mode, words[h.outcome])} ${h.hook}`)
      else this.out(`${h.outcome}\t${h.hook}`)
    }
    return r
  }
}
