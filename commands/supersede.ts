/**
 * @module `kb supersede <old> --by <new>`: mark an entry replaced by another (docs/cli.md, "Supersede and merge").
 */
import {Args, Flags} from '@oclif/core'
import {writeRequests} from '../src/shared/client.js'
import {KbError} from '../src/shared/errors.js'
import type {EntryFull} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {noQueueFlag} from '../src/cli/flags.js'
import {green, oneLine} from '../src/cli/output/format.js'
import {isQueued, type QueuedWrite} from '../src/cli/outbox/state.js'
import {shortId} from '../src/shared/short-id.js'

export default class Supersede extends KbCommand<typeof Supersede> {
  static override summary = 'Mark an entry replaced by another one'
  static override description =
    'The old entry leaves `kb list` and `kb search` (--include-superseded brings it back); `kb show` says which entry replaced it. ' +
    "The entry's author, a maintainer of its project or the owner may do it. --undo withdraws it."
  static override examples = [
    '<%= config.bin %> supersede 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --by 0193a7e3-0000-7000-8000-000000000001 --note "fixed upstream"',
    '<%= config.bin %> supersede 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --undo',
  ]
  static override args = {id: Args.string({description: 'the entry that is replaced', required: true})}
  static override entryArgs = ['id']
  static override entryFlags = ['by']
  static override flags = {
    by: Flags.string({description: 'the entry that replaces it'}),
    undo: Flags.boolean({description: 'withdraw a supersede: the entry stands again', default: false}),
    note: Flags.string({char: 'n', description: 'why (added as a comment)'}),
    'no-queue': noQueueFlag,
  }

  async run(): Promise<EntryFull | QueuedWrite> {
    const {flags, args} = this
    if ((flags.by === undefined) === !flags.undo) throw new KbError('usage', 'say which entry replaces it (--by <id>), or --undo')
    const input = {by: flags.undo ? null : flags.by!.toLowerCase(), ...(flags.note !== undefined ? {note: flags.note} : {})}
    const entry = await this.write<EntryFull>(
      {command: 'supersede', label: args.id, request: writeRequests.supersede(args.id, input)},
      flags['no-queue'],
    )
    if (isQueued(entry)) return entry
    if (this.mode.tty)
      this.out(
        entry.superseded_by
          ? `${green(this.mode, 'Superseded')} ${shortId(entry.id)}  ${oneLine(entry.title)}\nby ${shortId(entry.superseded_by)}`
          : `${green(this.mode, 'Stands again')} ${shortId(entry.id)}  ${oneLine(entry.title)}`,
      )
    else this.out(`${entry.id}\t${entry.superseded_by ?? '-'}`)
    return entry
  }
}
