/**
 * @module `kb resolve <id>`: mark an entry resolved, with an optional note and source URL.
 */
import {Args, Flags} from '@oclif/core'
import {writeRequests} from '../src/shared/client.js'
import type {EntryFull} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {noQueueFlag} from '../src/cli/flags.js'
import {green, oneLine} from '../src/cli/output/format.js'
import {isQueued, type QueuedWrite} from '../src/cli/outbox/state.js'

export default class Resolve extends KbCommand<typeof Resolve> {
  static override summary = 'Resolve a knowledge entry'
  static override description = 'Idempotent: resolving a resolved entry changes nothing. Reopen with `kb edit <id> --status open`.'
  static override examples = [
    '<%= config.bin %> resolve 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --note "Fixed by pinning better-sqlite3" --url https://github.com/acme/api/pull/42',
  ]
  static override args = {id: Args.string({description: 'entry id', required: true})}
  static override flags = {
    note: Flags.string({char: 'n', description: 'how it was resolved'}),
    url: Flags.string({description: 'where: a commit, pull request or doc (absolute http(s) URL)'}),
    'no-queue': noQueueFlag,
  }

  async run(): Promise<EntryFull | QueuedWrite> {
    const request = writeRequests.resolve(this.args.id, {
      ...(this.flags.note !== undefined ? {note: this.flags.note} : {}),
      ...(this.flags.url !== undefined ? {url: this.flags.url} : {}),
    })
    const entry = await this.write<EntryFull>({command: 'resolve', label: this.args.id, request}, this.flags['no-queue'])
    if (isQueued(entry)) return entry
    if (this.mode.tty) this.out(`${green(this.mode, 'Resolved')} ${entry.id}  ${oneLine(entry.title)}`)
    else this.out(`${entry.id}\t${entry.status}`)
    return entry
  }
}
