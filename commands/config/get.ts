/**
 * @module `kb config get <key>`: the value in effect (environment wins over the config file).
 */
import {Args} from '@oclif/core'
import {KbCommand} from '../../src/cli/base.js'
import {assertConfigKey, CONFIG_KEYS} from '../../src/cli/config/config.js'
import {effectiveSetting, type Setting} from '../../src/cli/config/effective.js'

export default class ConfigGet extends KbCommand<typeof ConfigGet> {
  static override summary = 'Print a setting'
  static override description = `Keys: ${Object.keys(CONFIG_KEYS).join(', ')}. Prints the value in effect: an environment variable (KB_BASE_URL) wins over the config file, which wins over the default; --json also says which (source).`
  static override examples = ['<%= config.bin %> config get base_url', '<%= config.bin %> config get default_detail --json']
  static override args = {key: Args.string({description: 'setting name', required: true})}

  async run(): Promise<Setting> {
    assertConfigKey(this.args.key)
    const s = effectiveSetting(this.args.key)
    if (s.value !== null) this.out(String(s.value))
    return s
  }
}
