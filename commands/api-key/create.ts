/**
 * @module `kb api-key create`: mint an API key for yourself; the secret is shown once.
 */
import {Flags} from '@oclif/core'
import {API_KEY_DAYS_MAX} from '../../src/shared/contract.js'
import type {ApiKeyRecord} from '../../src/shared/types.js'
import {KbCommand} from '../../src/cli/base.js'
import {bold, oneLine, yellow} from '../../src/cli/output/format.js'

export default class ApiKeyCreate extends KbCommand<typeof ApiKeyCreate> {
  static override summary = 'Create an API key'
  static override description =
    'The key is printed once (piped: the key alone, so `key=$(kb api-key create)` works). --project binds it to a project, so entries it creates default to that project. The owner may pass --principal to mint a key for another person.'
  static override examples = [
    '<%= config.bin %> api-key create --name ci --expires-in-days 90',
    'key=$(<%= config.bin %> api-key create --name laptop)',
    '<%= config.bin %> api-key create --principal alice --name "alice laptop"',
  ]
  static override flags = {
    name: Flags.string({description: 'a label to recognise it by'}),
    'expires-in-days': Flags.integer({
      description: `expire after this many days (1–${API_KEY_DAYS_MAX}; default never)`,
      min: 1,
      max: API_KEY_DAYS_MAX,
    }),
    principal: Flags.string({description: 'owner only: mint the key for this principal (created if new)'}),
  }

  async run(): Promise<ApiKeyRecord> {
    const client = await this.client()
    const projectId = this.flags.project ? await this.projectId() : null
    const body = {
      ...(this.flags.name ? {name: this.flags.name} : {}),
      ...(this.flags['expires-in-days'] ? {expires_in_days: this.flags['expires-in-days']} : {}),
      ...(projectId ? {project_id: projectId} : {}),
      ...(this.flags.principal ? {principal: this.flags.principal} : {}),
    }
    const rec = await client.createApiKey(body)
    if (this.mode.tty) {
      this.out(`${bold(this.mode, rec.key ?? '')}`)
      this.out(
        yellow(this.mode, `Key ${rec.id} (${oneLine(rec.name)}) for ${oneLine(rec.principal.name)}: copy it now, it is not shown again.`),
      )
    } else this.out(rec.key ?? '')
    return rec
  }
}
