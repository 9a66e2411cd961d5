/**
 * @module `kb config unset <key>`: remove a setting (its default applies again).
 */
import {Args} from '@oclif/core'
import {KbCommand} from '../../src/cli/base.js'
import {assertConfigKey, openConfigStore} from '../../src/cli/config/config.js'

export default class ConfigUnset extends KbCommand<typeof ConfigUnset> {
  static override summary = 'Remove a setting'
  static override examples = ['<%= config.bin %> config unset base_url']
  static override args = {key: Args.string({description: 'setting name', required: true})}

  async run(): Promise<{key: string; removed: boolean}> {
    assertConfigKey(this.args.key)
    const store = await openConfigStore()
    const removed = store.get(this.args.key) !== undefined
    store.delete(this.args.key)
    if (this.mode.tty) this.out(removed ? `Removed ${this.args.key}` : `${this.args.key} was not set`)
    return {key: this.args.key, removed}
  }
}
