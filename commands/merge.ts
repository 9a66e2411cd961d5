/**
 * @module `kb merge <a> --into <b>`: supersede a by b, with a's comments and tags carried over (docs/cli.md, "Supersede and merge").
 */
import {Args, Flags} from '@oclif/core'
import {writeRequests} from '../src/shared/client.js'
import type {EntryFull} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {noQueueFlag} from '../src/cli/flags.js'
import {green, oneLine} from '../src/cli/output/format.js'
import {isQueued, type QueuedWrite} from '../src/cli/outbox/state.js'
import {shortId} from '../src/shared/short-id.js'

export default class Merge extends KbCommand<typeof Merge> {
  static override summary = 'Merge an entry into another one'
  static override description =
    "The entry's comments are copied onto the other one (each naming where it came from), its tags are added to the other's, a comment " +
    'on each records the merge, and the entry is superseded by the other. You must be allowed to supersede both ' +
    '(author, a maintainer of the project, or the owner).'
  static override examples = [
    '<%= config.bin %> merge 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --into 0193a7e3-0000-7000-8000-000000000001 --note "same fix"',
  ]
  static override args = {id: Args.string({description: 'the entry merged (it is superseded)', required: true})}
  static override entryArgs = ['id']
  static override entryFlags = ['into']
  static override flags = {
    into: Flags.string({description: 'the entry it is merged into', required: true}),
    note: Flags.string({char: 'n', description: 'why (added to the comment that records the merge)'}),
    'no-queue': noQueueFlag,
  }

  async run(): Promise<EntryFull | QueuedWrite> {
    const {flags, args} = this
    const input = {into: flags.into.toLowerCase(), ...(flags.note !== undefined ? {note: flags.note} : {})}
    const entry = await this.write<EntryFull>(
      {command: 'merge', label: args.id, request: writeRequests.merge(args.id, input)},
      flags['no-queue'],
    )
    if (isQueued(entry)) return entry
    if (this.mode.tty) this.out(`${green(this.mode, 'Merged')} ${shortId(args.id)} into ${shortId(entry.id)}  ${oneLine(entry.title)}`)
    else this.out(entry.id)
    return entry
  }
}
