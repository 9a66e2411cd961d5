/**
 * @module `kb delete <id>`: asks on a terminal unless --yes; off a terminal it never asks and needs --yes.
 */
import {Flags} from '@oclif/core'
import {KbError} from '../src/shared/errors.js'
import {KbCommand} from '../src/cli/base.js'
import {confirm, interactive} from '../src/cli/input.js'
import {red} from '../src/cli/output/format.js'
import {shortId} from '../src/shared/short-id.js'
import {entryIdArg} from '../src/cli/flags.js'

export default class Delete extends KbCommand<typeof Delete> {
  static override summary = 'Delete a knowledge entry'
  static override description =
    'Its comments go with it; its forks stay. On a terminal it asks first unless --yes; in scripts --yes is required.'
  static override examples = ['<%= config.bin %> delete 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980', '<%= config.bin %> delete "$id" --yes']
  static override args = {id: entryIdArg}
  static override entryArgs = ['id']
  static override flags = {yes: Flags.boolean({char: 'y', description: 'do not ask', default: false})}

  async run(): Promise<{id: string; deleted: true}> {
    const {args, flags} = this
    if (!flags.yes && !interactive())
      throw new KbError('usage', `refusing to delete ${shortId(args.id)} without a terminal to ask on; pass --yes`)
    const client = await this.client()
    if (!flags.yes) {
      const {entry} = await client.getEntry(args.id, 'summary')
      if (!(await confirm(`Delete "${entry.title}" (${shortId(entry.id)})?`)))
        throw new KbError('usage', 'not deleted (answer y to delete, or pass --yes)')
    }
    await client.deleteEntry(args.id)
    if (this.mode.tty) this.out(`${red(this.mode, 'Deleted')} ${shortId(args.id)}`)
    else this.out(args.id)
    return {id: args.id, deleted: true}
  }
}
