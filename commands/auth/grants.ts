/**
 * @module `kb auth grants`: the applications you let act as you through OAuth (docs/oauth.md, "Grants").
 */
import type {Grant} from '../../src/shared/types.js'
import {KbCommand} from '../../src/cli/base.js'
import {grantRows} from '../../src/cli/output/format.js'

export default class AuthGrants extends KbCommand<typeof AuthGrants> {
  static override summary = 'List the applications you signed in to kb (OAuth grants)'
  static override description =
    'Each grant is one approval on the consent page: the application, when you approved it, when it last used kb, and when the grant ends (at most 90 days after approval). ' +
    'End one with `kb auth revoke-grant <id>`; revoking the API key you approved with ends it too.'
  static override examples = ['<%= config.bin %> auth grants', '<%= config.bin %> auth grants --json']

  async run(): Promise<{items: Grant[]}> {
    const items = await (await this.client()).listGrants()
    if (items.length === 0) {
      if (this.mode.tty) this.out('No application holds a grant.')
    } else this.out(grantRows(items, this.mode))
    return {items}
  }
}
