/**
 * @module `kb api-key list`: your keys (never their secrets).
 */
import type {ApiKeyRecord} from '../../src/shared/types.js'
import {KbCommand} from '../../src/cli/base.js'
import {apiKeyRows} from '../../src/cli/output/format.js'

export default class ApiKeyList extends KbCommand<typeof ApiKeyList> {
  static override summary = 'List your API keys'
  static override examples = ['<%= config.bin %> api-key list', '<%= config.bin %> api-key list --json']

  async run(): Promise<{items: ApiKeyRecord[]}> {
    const items = await (await this.client()).listApiKeys()
    if (items.length === 0) {
      if (this.mode.tty) this.out('No API keys.')
    } else this.out(apiKeyRows(items, this.mode))
    return {items}
  }
}
