/**
 * @module `kb flag <id> --reason …`: say an entry should not be trusted as it is (stale, incorrect,
 * duplicate, obsolete); `--withdraw` takes your flag back.
 */
import {Flags} from '@oclif/core'
import {writeRequests} from '../src/shared/client.js'
import {FLAG_REASONS} from '../src/shared/contract.js'
import {KbError} from '../src/shared/errors.js'
import type {FlagBody} from '../src/shared/schemas.js'
import type {EntryFull} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {entryIdArg, noQueueFlag} from '../src/cli/flags.js'
import {green, oneLine, yellow} from '../src/cli/output/format.js'
import {isQueued, type QueuedWrite} from '../src/cli/outbox/state.js'
import {shortId} from '../src/shared/short-id.js'

export default class Flag extends KbCommand<typeof Flag> {
  static override summary = 'Flag a knowledge entry as stale, incorrect, a duplicate or obsolete'
  static override description =
    'One open flag per person per entry: flagging again replaces yours. A stale, incorrect or obsolete flag makes the entry stale until you withdraw it (--withdraw, or `kb verify`) or its author edits it; a duplicate flag names the other entry (--duplicate-of) and lowers its rank a little.'
  static override examples = [
    '<%= config.bin %> flag 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --reason stale --note "the pool was rewritten in 2.0"',
    '<%= config.bin %> flag 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --reason duplicate --duplicate-of 0193a7e2-6d2f-7c4b-8a0f-3e5d6c7b8a91',
    '<%= config.bin %> flag 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --withdraw',
  ]
  static override args = {id: entryIdArg}
  static override entryArgs = ['id']
  static override entryFlags = ['duplicate-of']
  static override flags = {
    reason: Flags.option({options: FLAG_REASONS, description: 'why: stale, incorrect, duplicate or obsolete'})(),
    'duplicate-of': Flags.string({description: 'with --reason duplicate: the entry this one duplicates'}),
    note: Flags.string({char: 'n', description: 'what is wrong with it'}),
    withdraw: Flags.boolean({
      description: 'take back your open flag on the entry',
      default: false,
      exclusive: ['reason', 'duplicate-of', 'note'],
    }),
    'no-queue': noQueueFlag,
  }

  async run(): Promise<EntryFull | QueuedWrite> {
    const {args, flags} = this
    if (flags.withdraw) {
      const entry = await (await this.client()).withdrawFlag(args.id)
      if (this.mode.tty) this.out(`${green(this.mode, 'Withdrew')} your flag on ${shortId(entry.id)}  ${oneLine(entry.title)}`)
      else this.out(`${entry.id}\twithdrawn`)
      return entry
    }
    if (!flags.reason) throw new KbError('usage', `say why: --reason ${FLAG_REASONS.join('|')} (or --withdraw to take your flag back)`)
    if (flags['duplicate-of'] !== undefined && flags.reason !== 'duplicate')
      throw new KbError('usage', '--duplicate-of goes with --reason duplicate')
    const body: FlagBody = {
      reason: flags.reason,
      ...(flags.note !== undefined ? {note: flags.note} : {}),
      ...(flags['duplicate-of'] !== undefined ? {duplicate_of: flags['duplicate-of']} : {}),
    }
    const entry = await this.write<EntryFull>(
      {command: 'flag', label: `${args.id} (${flags.reason})`, request: writeRequests.flag(args.id, body)},
      flags['no-queue'],
    )
    if (isQueued(entry)) return entry
    if (this.mode.tty) this.out(`${yellow(this.mode, 'Flagged')} ${shortId(entry.id)}  ${oneLine(entry.title)} (${flags.reason})`)
    else this.out(`${entry.id}\t${flags.reason}`)
    return entry
  }
}
