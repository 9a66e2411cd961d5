/**
 * @module `kb hook run post-commit` (hidden): what the installed hook calls. Resolves each entry named
 * in HEAD's `Resolves-KB` trailers; any failure is a warning and exit 0, so git is never blocked.
 */
import {Args} from '@oclif/core'
import {KbError} from '../../src/shared/errors.js'
import {KbCommand} from '../../src/cli/base.js'
import {commitRemoteUrl, headCommit} from '../../src/cli/hooks/git-hook.js'
import {oneLine} from '../../src/cli/output/format.js'

export interface HookRunResult {
  commit: string | null
  resolved: string[]
  failed: {id: string; error: string}[]
}

export default class HookRun extends KbCommand<typeof HookRun> {
  static override hidden = true
  static override summary = 'Run kb\'s git hook (called by the installed hook)'
  static override args = {hook: Args.string({description: 'hook name', options: ['post-commit'], required: true})}

  async run(): Promise<HookRunResult> {
    const result: HookRunResult = {commit: null, resolved: [], failed: []}
    try {
      const commit = await headCommit()
      if (!commit) return result
      result.commit = commit.sha
      if (commit.ids.length === 0) return result
      const url = await commitRemoteUrl(commit.sha)
      const note = `Resolved by commit ${commit.short}: ${commit.subject}`
      const client = await this.client()
      for (const id of commit.ids) {
        try {
          await client.resolve(id, {note, ...(url ? {url} : {})})
          result.resolved.push(id)
          process.stderr.write(`kb: resolved ${oneLine(id)} (commit ${commit.short})\n`)
        } catch (e) {
          // No server: the other ids would fail the same way.
          if (e instanceof KbError && e.code === 'unreachable') throw e
          const error = e instanceof Error ? e.message : String(e)
          result.failed.push({id, error})
          this.warnLine(`could not resolve ${id} from commit ${commit.short}: ${error}`)
        }
      }
    } catch (e) {
      const error = e instanceof KbError ? e.message : e instanceof Error ? e.message : String(e)
      this.warnLine(`the Resolves-KB trailer was not applied: ${error}`)
      result.failed.push({id: '*', error})
    }
    return result
  }

  protected override async catch(err: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<unknown> {
    // A hook must never fail the commit, even on a usage error.
    await super.catch(err)
    process.exitCode = 0
    return undefined
  }
}
