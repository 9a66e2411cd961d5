/**
 * @module `kb auth revoke-grant <id>`: end one OAuth grant and every token issued under it.
 */
import {Args} from '@oclif/core'
import {KbCommand} from '../../src/cli/base.js'

export default class AuthRevokeGrant extends KbCommand<typeof AuthRevokeGrant> {
  static override summary = 'End an OAuth grant: the application loses its access and refresh tokens'
  static override description = 'Takes the grant id shown by `kb auth grants`. The application has to ask you again to get back in.'
  static override examples = ['<%= config.bin %> auth revoke-grant 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980']
  static override args = {id: Args.string({description: 'grant id (from `kb auth grants`)', required: true})}

  async run(): Promise<{id: string; revoked: true}> {
    await (await this.client()).revokeGrant(this.args.id)
    if (this.mode.tty) this.out(`Revoked grant ${this.args.id}`)
    else this.out(this.args.id)
    return {id: this.args.id, revoked: true}
  }
}
