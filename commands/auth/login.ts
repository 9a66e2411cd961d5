/**
 * @module `kb auth login --with-token`: check an API key against the server and store it for the base
 * URL (OS keychain, or a 0600 file when no keychain answers).
 */
import {Flags} from '@oclif/core'
import {KbError} from '../../src/api/errors.js'
import {KbCommand} from '../../src/cli/base.js'
import {readStdin, stdinPiped} from '../../src/cli/input.js'
import {ApiClient} from '../../src/client/client.js'
import {storeCredential} from '../../src/credentials/credentials.js'
import {green} from '../../src/output/format.js'

export interface LoginResult {
  base_url: string
  store: 'keychain' | 'file'
  location: string
  principal: {id: string; name: string} | null
  key_prefix: string
}

export default class AuthLogin extends KbCommand<typeof AuthLogin> {
  static override summary = 'Store an API key for the base URL'
  static override description =
    'Reads the key from stdin (never from an argument, which would land in shell history), checks it with the server, then stores it in the OS keychain (service "kb", account = base URL) or, when no keychain answers within 3 s, in a 0600 file under $XDG_CONFIG_HOME/kb. KB_API_KEY still wins over a stored key.'
  static override examples = ['<%= config.bin %> auth login --with-token < key.txt', 'echo "$KB_TEAM_KEY" | <%= config.bin %> auth login --with-token --base-url https://kb.acme.dev/api/v1']
  static override flags = {
    'with-token': Flags.boolean({description: 'read the API key from stdin', required: true}),
  }

  async run(): Promise<LoginResult> {
    if (!stdinPiped()) throw new KbError('usage', 'pipe the key on stdin: `kb auth login --with-token < key.txt`')
    const key = (await readStdin()).trim()
    if (key === '') throw new KbError('usage', 'no key on stdin: `echo "$KEY" | kb auth login --with-token`')
    if (/\s/.test(key)) throw new KbError('usage', 'stdin held more than one word; pipe just the API key')
    const base = await this.client() // starts the local daemon if needed; its own credential is not used
    const probe = new ApiClient({baseUrl: base.baseUrl, key, userAgent: `kb/${this.config.version}`})
    let principal: {id: string; name: string} | null = null
    try {
      const keys = await probe.listApiKeys()
      principal = keys.find((k) => key.startsWith(k.prefix))?.principal ?? keys[0]?.principal ?? null
    } catch (e) {
      if (e instanceof KbError && e.code === 'unauthenticated') throw new KbError('unauthenticated', `${this.baseUrl} rejected that key (unknown, revoked or expired); create one with \`kb api-key create\``)
      throw e
    }
    const stored = await storeCredential(this.baseUrl, key)
    if (stored.store === 'file' && stored.keychainProblem) this.note(`no keychain (${stored.keychainProblem}); using the 0600 file`)
    const result: LoginResult = {base_url: this.baseUrl, store: stored.store, location: stored.location, principal, key_prefix: key.slice(0, 11)}
    if (this.mode.tty) this.out(`${green(this.mode, 'Logged in')} to ${this.baseUrl}${principal ? ` as ${principal.name}` : ''}; key stored in ${stored.store === 'keychain' ? 'the system keychain' : stored.location}`)
    else this.out(`${this.baseUrl}\t${stored.store}\t${principal?.name ?? ''}`)
    return result
  }
}
