/**
 * @module `kb publish <id>`: widen an entry's scope (private → project → global).
 */
import {Args} from '@oclif/core'
import {writeRequests} from '../src/shared/client.js'
import type {EntryFull} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {noQueueFlag, scopeFlag} from '../src/cli/flags.js'
import {green, oneLine} from '../src/cli/output/format.js'
import {isQueued, type QueuedWrite} from '../src/cli/outbox/state.js'

export default class Publish extends KbCommand<typeof Publish> {
  static override summary = 'Publish a knowledge entry to a wider scope'
  static override description = 'Default: the next wider scope — private → project (when the entry has a project) or global; project → global. A scope that is not wider fails with exit 5.'
  static override examples = ['<%= config.bin %> publish 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980', '<%= config.bin %> publish 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --scope global']
  static override args = {id: Args.string({description: 'entry id', required: true})}
  static override flags = {scope: scopeFlag('the scope to publish to (default: the next wider one)'), 'no-queue': noQueueFlag}

  async run(): Promise<EntryFull | QueuedWrite> {
    const request = writeRequests.publish(this.args.id, this.flags.scope ? {scope: this.flags.scope} : {})
    const entry = await this.write<EntryFull>({command: 'publish', label: this.args.id, request}, this.flags['no-queue'])
    if (isQueued(entry)) return entry
    if (this.mode.tty) this.out(`${green(this.mode, 'Published')} ${entry.id} to ${entry.scope}`)
    else this.out(`${entry.id}\t${entry.scope}`)
    return entry
  }
}
