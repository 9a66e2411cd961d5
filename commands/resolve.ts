/**
 * @module `kb resolve <id>`: mark an entry resolved, with an optional note and source URL.
 */
import {Args, Flags} from '@oclif/core'
import type {EntryFull} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {green, oneLine} from '../src/cli/output/format.js'

export default class Resolve extends KbCommand<typeof Resolve> {
  static override summary = 'Resolve a knowledge entry'
  static override description = 'Idempotent: resolving a resolved entry changes nothing. Reopen with `kb edit <id> --status open`.'
  static override examples = ['<%= config.bin %> resolve 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --note "Fixed by pinning better-sqlite3" --url https://github.com/acme/api/pull/42']
  static override args = {id: Args.string({description: 'entry id', required: true})}
  static override flags = {
    note: Flags.string({char: 'n', description: 'how it was resolved'}),
    url: Flags.string({description: 'where: a commit, pull request or doc (absolute http(s) URL)'}),
  }

  async run(): Promise<EntryFull> {
    const client = await this.client()
    const entry = await client.resolve(this.args.id, {
      ...(this.flags.note !== undefined ? {note: this.flags.note} : {}),
      ...(this.flags.url !== undefined ? {url: this.flags.url} : {}),
    })
    if (this.mode.tty) this.out(`${green(this.mode, 'Resolved')} ${entry.id}  ${oneLine(entry.title)}`)
    else this.out(`${entry.id}\t${entry.status}`)
    return entry
  }
}
