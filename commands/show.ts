/**
 * @module `kb show <id>`: one entry at a detail level.
 */
import {Args} from '@oclif/core'
import type {EntryView} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {DETAIL_DEFAULT} from '../src/shared/contract.js'
import {detailFlag, detailOr, noPagerFlag} from '../src/cli/flags.js'
import {renderEntry} from '../src/cli/output/format.js'

export default class Show extends KbCommand<typeof Show> {
  static override summary = 'Show a knowledge entry'
  static override description =
    'Default detail: standard (or config default_detail). full adds comments, the thought chain, branches and the resolution.'
  static override examples = [
    '<%= config.bin %> show 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980',
    '<%= config.bin %> show 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --detail full --json',
  ]
  static override args = {id: Args.string({description: 'entry id', required: true})}
  static override flags = {detail: detailFlag(), 'no-pager': noPagerFlag}
  static override pager = true

  async run(): Promise<EntryView> {
    const client = await this.client()
    const {entry} = await client.getEntry(this.args.id, detailOr(this.flags.detail, DETAIL_DEFAULT.entry))
    const by = entry.superseded_by
    // The replacement's title, for the "superseded by" line; gone or hidden meanwhile, the id alone says it.
    const replacement = by
      ? await client.getEntry(by, 'summary').then(
          (r) => r.entry,
          () => undefined,
        )
      : undefined
    this.out(renderEntry(entry, this.mode, replacement))
    return entry
  }
}
