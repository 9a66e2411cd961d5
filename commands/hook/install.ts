/**
 * @module `kb hook install`: the post-commit hook that resolves `Resolves-KB: <id>` trailers.
 */
import {Flags} from '@oclif/core'
import {join} from 'node:path'
import {KbCommand} from '../../src/cli/base.js'
import {installHook, type HookInstall} from '../../src/cli/hooks/git-hook.js'
import {green} from '../../src/cli/output/format.js'

export default class HookInstall_ extends KbCommand<typeof HookInstall_> {
  static override summary = 'Install the git hook that resolves entries named in commit trailers'
  static override description = `After each commit whose message has a trailer "Resolves-KB: <id>", the entry is resolved with the note "Resolved by commit <short sha>: <subject>" and, when the remote is on a known forge, the commit's web URL. The hook goes where git looks for hooks (core.hooksPath honoured). It never blocks or fails a commit: when kb is missing, unreachable or fails it prints a warning and exits 0; without the trailer it exits at once.

An existing post-commit hook that kb did not write is never overwritten: with --chain, one line calling kb's hook is appended to it; without, kb says what to add and exits 5.`
  static override examples = [
    '<%= config.bin %> hook install',
    '<%= config.bin %> hook install --chain',
    'git commit -m "Fix port reuse" -m "Resolves-KB: 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980"',
  ]
  static override flags = {
    chain: Flags.boolean({description: "append a call to kb's hook to an existing post-commit hook", default: false}),
  }

  async run(): Promise<HookInstall> {
    const r = await installHook({node: process.execPath, bin: join(this.config.root, 'bin', 'run.js'), chain: this.flags.chain})
    const what = {installed: 'Installed', updated: 'Updated', chained: 'Chained into', 'already-chained': 'Already chained into'}[r.outcome]
    if (this.mode.tty) this.out(`${green(this.mode, what)} ${r.hook}`)
    else this.out(`${r.outcome}\t${r.hook}`)
    return r
  }
}
