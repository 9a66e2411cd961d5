/**
 * @module `kb verify <id>`: say the entry still holds. In a checkout of its project, its anchors are
 * re-based on the checkout (HEAD and the text as it is now), so they are current again.
 */
import {Flags} from '@oclif/core'
import {writeRequests} from '../src/shared/client.js'
import type {VerifyBody} from '../src/shared/schemas.js'
import type {EntryFull} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {entryIdArg, noQueueFlag} from '../src/cli/flags.js'
import {green, oneLine} from '../src/cli/output/format.js'
import {isQueued, type QueuedWrite} from '../src/cli/outbox/state.js'
import {shortId} from '../src/shared/short-id.js'

export default class Verify extends KbCommand<typeof Verify> {
  static override summary = 'Say a knowledge entry still holds'
  static override description =
    'Records that you checked the entry and it is still right: it becomes fresh again unless a flag by someone else or a changed anchor still says otherwise, and your own open flag on it is withdrawn. ' +
    "In a checkout of the entry's project, its anchors are re-based on the checkout: HEAD and a hash of the text as it is now (files that are not in the checkout are left as they are). " +
    'A note is kept as a comment "Verified: <note>".'
  static override examples = [
    '<%= config.bin %> verify 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980',
    '<%= config.bin %> verify 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --note "still true after the pool rewrite"',
  ]
  static override args = {id: entryIdArg}
  static override entryArgs = ['id']
  static override flags = {
    note: Flags.string({char: 'n', description: 'what you checked (kept as a comment)'}),
    'no-queue': noQueueFlag,
  }

  async run(): Promise<EntryFull | QueuedWrite> {
    const {args, flags} = this
    const body: VerifyBody = {...(flags.note !== undefined ? {note: flags.note} : {})}
    try {
      const anchors = await this.rebased()
      if (anchors.length > 0) body.anchors = anchors
    } catch (e) {
      // Out of reach: the verification waits for `kb sync` without re-basing (that needs the entry's anchors).
      if (!this.queues(e, flags['no-queue'])) throw e
    }
    const entry = await this.write<EntryFull>(
      {command: 'verify', label: args.id, request: writeRequests.verify(args.id, body)},
      flags['no-queue'],
    )
    if (isQueued(entry)) return entry
    const state = typeof entry.freshness === 'string' ? entry.freshness : entry.freshness.state
    if (this.mode.tty) {
      const rebased = body.anchors ? `; ${body.anchors.length} anchor${body.anchors.length === 1 ? '' : 's'} re-based` : ''
      this.out(`${green(this.mode, 'Verified')} ${shortId(entry.id)}  ${oneLine(entry.title)} (${state}${rebased})`)
    } else this.out(`${entry.id}\t${state}`)
    return entry
  }

  /** The entry's anchors re-based on this checkout, when it is one of the entry's project; [] otherwise. */
  private async rebased(): Promise<NonNullable<VerifyBody['anchors']>> {
    const {checkoutAt, rebaseAnchors} = await import('../src/cli/anchors/local.js')
    const co = await checkoutAt()
    if (co === null) return []
    const client = await this.client()
    const entry = (await client.getEntry(this.args.id, 'standard')).entry as EntryFull
    if (entry.anchors.length === 0) return []
    if (entry.project_id !== null && entry.project_id !== (await this.projectId())) return []
    return rebaseAnchors(entry.anchors, co)
  }
}
