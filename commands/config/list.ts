/**
 * @module `kb config list`: every setting, its value in effect and where that comes from.
 */
import {KbCommand} from '../../src/cli/base.js'
import {CONFIG_KEYS} from '../../src/cli/config/config.js'
import {effectiveSetting, type Setting} from '../../src/cli/config/effective.js'
import {renderTable} from '../../src/cli/output/format.js'

export default class ConfigList extends KbCommand<typeof ConfigList> {
  static override summary = 'List the settings'
  static override examples = ['<%= config.bin %> config list', '<%= config.bin %> config list --json']

  async run(): Promise<Record<string, Setting>> {
    const all = Object.fromEntries(Object.keys(CONFIG_KEYS).map((k) => [k, effectiveSetting(k)]))
    this.out(
      renderTable(
        [{header: 'KEY'}, {header: 'VALUE', flex: true}, {header: 'SOURCE', cut: true}],
        Object.values(all).map((s) => [s.key, s.value ?? '', s.source === 'env' ? `env ${s.env}` : s.source]),
        this.mode,
      ),
    )
    return all
  }
}
