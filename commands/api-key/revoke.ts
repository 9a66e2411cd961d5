/**
 * @module `kb api-key revoke <id>`: revoke one of your keys.
 */
import {Args} from '@oclif/core'
import {KbCommand} from '../../src/cli/base.js'

export default class ApiKeyRevoke extends KbCommand<typeof ApiKeyRevoke> {
  static override summary = 'Revoke an API key'
  static override description = 'Takes the key id shown by `kb api-key list`. Revoking the key you are using logs you out.'
  static override examples = ['<%= config.bin %> api-key revoke 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980']
  static override args = {id: Args.string({description: 'key id (from `kb api-key list`)', required: true})}

  async run(): Promise<{id: string; revoked: true}> {
    await (await this.client()).revokeApiKey(this.args.id)
    if (this.mode.tty) this.out(`Revoked ${this.args.id}`)
    else this.out(this.args.id)
    return {id: this.args.id, revoked: true}
  }
}
