/**
 * @module `kb config set <key> <value>`: store a setting in $XDG_CONFIG_HOME/kb/config.json.
 */
import {Args} from '@oclif/core'
import {KbCommand} from '../../src/cli/base.js'
import {assertConfigKey, CONFIG_KEYS, openConfigStore} from '../../src/cli/config/config.js'
import {API_PATH} from '../../src/shared/paths.js'

export default class ConfigSet extends KbCommand<typeof ConfigSet> {
  static override summary = 'Store a setting'
  static override description = `Keys:\n${Object.entries(CONFIG_KEYS)
    .map(([k, v]) => `  ${k}: ${v.description}`)
    .join('\n')}`
  static override examples = [
    '<%= config.bin %> config set base_url https://kb.acme.dev/api/v1',
    '<%= config.bin %> config set default_detail full',
  ]
  static override args = {
    key: Args.string({description: 'setting name', required: true}),
    value: Args.string({description: 'new value', required: true}),
  }

  async run(): Promise<{key: string; value: string | number | boolean; path: string}> {
    const value = assertConfigKey(this.args.key).parse(this.args.value)
    const store = await openConfigStore()
    store.set(this.args.key, value)
    if (this.args.key === 'base_url' && !this.args.value.replace(/\/+$/, '').endsWith(API_PATH))
      this.note(`base_url is ${String(value)}: ${API_PATH}, where kb's API is served, was added`)
    const env = CONFIG_KEYS[this.args.key]!.env
    if (env && process.env[env]) this.note(`${env} is set in this environment and wins over the config file`)
    if (this.mode.tty) this.out(`${this.args.key} = ${value}`)
    return {key: this.args.key, value, path: store.path}
  }
}
