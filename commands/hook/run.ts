/**
 * @module `kb hook run post-commit` (hidden): what the installed hook calls. Resolves each entry named
 * in HEAD's `Resolves-KB` trailers; any failure is a warning and exit 0, so git is never blocked.
 */
import {Args} from '@oclif/core'
import {writeRequests} from '../../src/shared/client.js'
import {KbError} from '../../src/shared/errors.js'
import {KbCommand} from '../../src/cli/base.js'
import {commitRemoteUrl, headCommit} from '../../src/cli/hooks/git-hook.js'
import {isQueued, isUnreachable} from '../../src/cli/outbox/state.js'
import {oneLine} from '../../src/cli/output/format.js'
import {shortId} from '../../src/shared/short-id.js'

export interface HookRunResult {
  commit: string | null
  resolved: string[]
  /** Queued for `kb sync`: the server could not be reached (the hook says nothing about it). */
  queued: string[]
  failed: {id: string; error: string}[]
}

export default class HookRun extends KbCommand<typeof HookRun> {
  static override hidden = true
  static override summary = "Run kb's git hook (called by the installed hook)"
  static override args = {hook: Args.string({description: 'hook name', options: ['post-commit'], required: true})}

  // A commit cannot be asked to retry: an unreachable server queues the resolution, silently.
  protected override quietQueue = true
  // The entries' history says the hook resolved them (docs/api.md, "History"); a write queued for later is sent by
  // `kb sync` as the person's own.
  protected override via = 'hook' as const

  async run(): Promise<HookRunResult> {
    const result: HookRunResult = {commit: null, resolved: [], queued: [], failed: []}
    try {
      const commit = await headCommit()
      if (!commit) return result
      result.commit = commit.sha
      if (commit.ids.length === 0) return result
      const url = await commitRemoteUrl(commit.sha)
      const note = `Resolved by commit ${commit.short}: ${commit.subject}`
      for (const ref of commit.ids) {
        // A trailer may name an entry by its short id (docs/cli.md, "Short ids"); only the server reads one, so a
        // short id met while the server is out of reach is reported, not queued (a whole id is queued).
        let id: string | undefined
        try {
          id = await this.entryId(ref)
          // Once one is queued, `write` queues the rest without trying the server again.
          const done = await this.write({
            command: 'hook resolve',
            label: `${id} (commit ${commit.short})`,
            request: writeRequests.resolve(id, {note, ...(url ? {url} : {})}),
          })
          if (isQueued(done)) {
            result.queued.push(id)
            continue
          }
          result.resolved.push(id)
          process.stderr.write(`kb: resolved ${shortId(id)} (commit ${commit.short})\n`)
        } catch (e) {
          // No server (queueing is off): the other ids would fail the same way.
          if (isUnreachable(e) && id !== undefined) throw e
          const error = e instanceof Error ? e.message : String(e)
          result.failed.push({id: ref, error})
          this.warnLine(`could not resolve ${oneLine(ref)} from commit ${commit.short}: ${error}`)
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
