/**
 * @module `kb auth logout`: forget the stored key of the base URL (the key itself stays valid).
 */
import {KbCommand} from '../../src/cli/base.js'
import {removeCredential} from '../../src/credentials/credentials.js'

export default class AuthLogout extends KbCommand<typeof AuthLogout> {
  static override summary = 'Forget the stored API key for the base URL'
  static override description = 'Removes it from the keychain or the credential file. The key stays valid on the server: revoke it with `kb api-key revoke <id>`.'
  static override examples = ['<%= config.bin %> auth logout', '<%= config.bin %> auth logout --base-url https://kb.acme.dev/api/v1']

  async run(): Promise<{base_url: string; removed: boolean; store: 'keychain' | 'file' | null}> {
    const r = await removeCredential(this.baseUrl)
    if (this.mode.tty) this.out(r.removed ? `Removed the key for ${this.baseUrl} from the ${r.store === 'keychain' ? 'system keychain' : 'credential file'}` : `No key was stored for ${this.baseUrl}`)
    else this.out(r.removed ? `removed\t${r.store}` : 'none')
    if (process.env.KB_API_KEY && this.mode.tty) this.note('KB_API_KEY is still set in this environment and will be used')
    return {base_url: this.baseUrl, ...r}
  }
}
