/**
 * @module `kb fork <id>`: a private copy to work on (a branch of the entry); piped, prints the new id.
 */
import {Flags} from '@oclif/core'
import {writeRequests} from '../src/shared/client.js'
import type {EntryCreated} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {entryIdArg, noQueueFlag, scopeFlag} from '../src/cli/flags.js'
import {isUuid} from '../src/cli/project/project.js'
import {green, oneLine} from '../src/cli/output/format.js'
import {isQueued, type QueuedWrite} from '../src/cli/outbox/state.js'
import {choiceFrom, clearSensitive, sensitiveFlags} from '../src/cli/safe-publish.js'
import {similarLines} from '../src/cli/similar.js'
import {shortId} from '../src/shared/short-id.js'

export default class Fork extends KbCommand<typeof Fork> {
  static override summary = 'Fork a knowledge entry (create a branch)'
  static override description =
    'Copies body, tags, url and thought chain into a new entry whose forked_from is the original. Title defaults to "<title> (fork)", scope to private; it keeps the parent\'s project when you are a member (or takes --project).'
  static override examples = [
    '<%= config.bin %> fork 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --title "Same crash on Windows"',
    'id=$(<%= config.bin %> fork "$parent")',
  ]
  static override args = {id: entryIdArg}
  static override entryArgs = ['id']
  static override flags = {
    title: Flags.string({description: 'title of the fork'}),
    scope: scopeFlag('scope of the fork (default private)'),
    'no-queue': noQueueFlag,
    // Into a scope that reaches new readers, the fork is scanned as a publish would be (docs/cli.md, "Safe publish").
    ...sensitiveFlags,
  }

  async run(): Promise<EntryCreated | QueuedWrite> {
    // Only an explicit --project moves the fork: by default the server keeps the parent's project.
    const ref = this.flags.project ? {ref: this.flags.project.trim(), source: 'flag' as const} : null
    const input = {
      ...(this.flags.title !== undefined ? {title: this.flags.title} : {}),
      ...(this.flags.scope ? {scope: this.flags.scope} : {}),
      ...(ref && isUuid(ref.ref) ? {project_id: ref.ref.toLowerCase()} : {}),
    }
    const entry = await clearSensitive(
      choiceFrom(this.flags),
      {mode: this.mode, json: this.jsonEnabled(), what: `forking ${shortId(this.args.id)}`},
      (c) => {
        const request = writeRequests.fork(this.args.id, {...input, ...c})
        const draft = {command: 'fork', label: this.args.id, request, ...(ref && !isUuid(ref.ref) ? {project_ref: ref} : {})}
        return this.write<EntryCreated>(draft, this.flags['no-queue'])
      },
    )
    if (isQueued(entry)) return entry
    if (this.mode.tty) this.out(`${green(this.mode, 'Forked')} ${shortId(this.args.id)} → ${shortId(entry.id)}  ${oneLine(entry.title)}`)
    else this.out(entry.id)
    // Into a wider scope the server names entries there that look like it (docs/cli.md, "kb fork ID").
    const similar = entry.similar ?? []
    if (!this.jsonEnabled() && similar.length > 0)
      process.stderr.write(
        `kb: similar entries exist where it goes (comment on one instead of keeping a copy):\n${similarLines(similar).join('\n')}\n`,
      )
    return entry
  }
}
