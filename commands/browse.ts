/**
 * @module `kb browse [query]`: the interactive TUI (Ink). Ink and React are imported here, inside run(),
 * and nowhere else on the CLI's paths, so other commands never pay their ≈540 ms.
 */
import {Args} from '@oclif/core'
import {KbError} from '../src/shared/errors.js'
import {KbCommand} from '../src/cli/base.js'
import {scopeFlag, statusFlag} from '../src/cli/flags.js'

export default class Browse extends KbCommand<typeof Browse> {
  static override summary = 'Browse and act on knowledge interactively (TUI)'
  static override description =
    'Search as you type, read entries in full, and edit (in $EDITOR), resolve, comment, fork, publish, open, copy or delete them with one key. Needs a terminal; in scripts use `kb search` or `kb list`. Press ? inside for every key.'
  static override examples = [
    '<%= config.bin %> browse',
    '<%= config.bin %> browse "port in use" --status open',
    '<%= config.bin %> browse --scope global',
  ]
  static override enableJsonFlag = false
  static override strict = false
  static override args = {query: Args.string({description: 'start with this search (focus starts in the results)'})}
  static override flags = {
    scope: scopeFlag('start with only entries of this scope (s cycles it)'),
    status: statusFlag(),
  }

  async run(): Promise<void> {
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new KbError('usage', 'kb browse needs a terminal (stdin and stdout); in scripts use `kb search <words>` or `kb list`')
    }
    const client = await this.client()
    // A server that is down or refuses the credential should not keep the UI from starting: the UI
    // shows that error with its fix. Any other project error (an unknown --project) is the caller's.
    let projectId: string | null = null
    try {
      projectId = await this.projectId()
    } catch (e) {
      if (!(e instanceof KbError) || !['unreachable', 'unauthenticated', 'unavailable', 'internal'].includes(e.code)) throw e
    }
    const query = this.positional.join(' ').trim()
    const {runBrowse} = await importOutsideCi(() => import('../src/cli/tui/run.js'))
    await runBrowse({
      client,
      ...(query ? {query} : {}),
      ...(this.flags.scope ? {scope: this.flags.scope} : {}),
      ...(this.flags.status ? {status: this.flags.status} : {}),
      projectId,
    })
  }
}

/**
 * Runs `load` (the import of Ink) with CI and CONTINUOUS_INTEGRATION unset, then puts them back. Ink reads
 * them once as it loads (is-in-ci) and, when set, draws nothing until it exits; `kb browse` has just
 * checked that it runs on a terminal, so a CI variable left in a shell must not blank the screen.
 */
async function importOutsideCi<T>(load: () => Promise<T>): Promise<T> {
  const saved = (['CI', 'CONTINUOUS_INTEGRATION'] as const).map((k) => [k, process.env[k]] as const)
  for (const [k] of saved) delete process.env[k]
  try {
    return await load()
  } finally {
    for (const [k, v] of saved) if (v !== undefined) process.env[k] = v
  }
}
