/**
 * @module `kb auth status`: which credential is used for the base URL, where it is stored, and whether
 * the server accepts it.
 */
import {KbError} from '../../src/api/errors.js'
import {KbCommand} from '../../src/cli/base.js'
import type {CredentialSource} from '../../src/credentials/credentials.js'
import {storedLocation} from '../../src/credentials/credentials.js'
import {dim, green, red} from '../../src/output/format.js'

export interface AuthStatus {
  base_url: string
  source: CredentialSource
  location: string | null
  /** Where `kb auth login` stored a key for this base URL (even if another source wins). */
  stored_in: 'keychain' | 'file' | null
  key_prefix: string | null
  authenticated: boolean
  principal: {id: string; name: string} | null
  error: string | null
}

const SOURCE_LABEL: Record<CredentialSource, string> = {
  env: 'the KB_API_KEY environment variable',
  keychain: 'the system keychain',
  file: 'the credential file',
  'owner-key': "the local daemon's owner key",
  none: 'no credential',
}

export default class AuthStatusCmd extends KbCommand<typeof AuthStatusCmd> {
  static override summary = 'Show which credential kb uses and whether it works'
  static override description = 'Order: KB_API_KEY, then the key stored by `kb auth login` for this base URL (keychain or file), then, for a local daemon, its owner.key. Exit 4 when there is no working credential.'
  static override examples = ['<%= config.bin %> auth status', '<%= config.bin %> auth status --json']

  async run(): Promise<AuthStatus> {
    const client = await this.client()
    const cred = await this.credentialInUse()
    const status: AuthStatus = {
      base_url: this.baseUrl, source: cred.source, location: cred.location, stored_in: storedLocation(this.baseUrl),
      key_prefix: cred.key ? cred.key.slice(0, 11) : null, authenticated: false, principal: null, error: cred.problem ?? null,
    }
    if (cred.key) {
      try {
        const keys = await client.listApiKeys()
        status.authenticated = true
        status.principal = keys.find((k) => cred.key!.startsWith(k.prefix))?.principal ?? keys[0]?.principal ?? null
      } catch (e) {
        if (!(e instanceof KbError) || e.code !== 'unauthenticated') throw e
        status.error = e.message
      }
    }
    if (this.mode.tty) {
      this.out(`${this.baseUrl}`)
      this.out(`  ${status.authenticated ? green(this.mode, '✓ authenticated') : red(this.mode, '✗ not authenticated')}${status.principal ? ` as ${status.principal.name}` : ''}`)
      this.out(`  credential: ${SOURCE_LABEL[cred.source]}${cred.location && cred.source !== 'keychain' ? ` (${cred.location})` : ''}${status.key_prefix ? ` ${dim(this.mode, status.key_prefix + '…')}` : ''}`)
      if (status.stored_in && status.stored_in !== cred.source) this.out(`  stored by kb auth login: ${status.stored_in === 'keychain' ? 'system keychain' : 'credential file'} (not used: ${SOURCE_LABEL[cred.source]} wins)`)
      if (status.error) this.out(`  ${status.error}`)
      if (!status.authenticated) this.out('  fix: `kb auth login --with-token < key.txt`, or set KB_API_KEY')
    } else {
      this.out([this.baseUrl, cred.source, status.authenticated ? 'authenticated' : 'unauthenticated', status.principal?.name ?? '', cred.location ?? ''].join('\t'))
    }
    if (!status.authenticated) process.exitCode = 4
    return status
  }
}
