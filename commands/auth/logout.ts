/**
 * @module `kb auth logout`: forget the stored credential of the base URL. OAuth tokens from
 * `kb auth login --web` are revoked at the server first (RFC 7009); an API key stays valid.
 */
import {dataDir} from '../../src/shared/paths.js'
import {KbCommand} from '../../src/cli/base.js'
import {readStoredCredential, removeCredential} from '../../src/cli/credentials/credentials.js'

export interface LogoutResult {
  base_url: string
  removed: boolean
  store: 'keychain' | 'file' | null
  kind: 'api-key' | 'oauth' | null
  /** OAuth only: whether the server revoked the tokens (null for an API key or nothing stored). */
  revoked: boolean | null
}

export default class AuthLogout extends KbCommand<typeof AuthLogout> {
  static override summary = 'Sign out: revoke the OAuth sign-in, or forget the stored API key'
  static override description =
    'Removes the credential from the keychain or the credential file. OAuth tokens (`kb auth login --web`) are revoked at the server first; if that fails it says so and removes them anyway. An API key stays valid on the server: revoke it with `kb api-key revoke <id>`.'
  static override examples = ['<%= config.bin %> auth logout', '<%= config.bin %> auth logout --base-url https://kb.acme.dev/api/v1']

  async run(): Promise<LogoutResult> {
    const stored = await readStoredCredential(this.baseUrl)
    const cred = stored && 'source' in stored ? stored : null
    const oauth = cred?.kind === 'oauth' ? (cred.oauth ?? null) : null
    let revoked: boolean | null = null
    if (oauth) {
      let problems: string[]
      try {
        await this.ensureServer()
        // A local sign-in is revoked only at the daemon that proves it owns the data directory (docs/security.md).
        const daemon = await this.localDaemon(cred?.daemonDataDir ?? dataDir())
        const {revokeOAuthCredential} = await import('../../src/cli/oauth/tokens.js')
        problems = await revokeOAuthCredential(oauth, `kb/${this.config.version}`, daemon)
      } catch (e) {
        problems = [`the tokens were not revoked: ${e instanceof Error ? e.message : String(e)}`]
      }
      revoked = problems.length === 0
      // Removed anyway: keeping a credential the person asked to drop is worse; the tokens expire (1 h / 30 days).
      for (const p of problems) this.warnLine(`${p}; the sign-in is removed from this machine anyway`)
    }
    const r = await removeCredential(this.baseUrl)
    const kind = r.removed ? (oauth ? 'oauth' : 'api-key') : null
    if (this.mode.tty) {
      const where = r.store === 'keychain' ? 'system keychain' : 'credential file'
      if (!r.removed) this.out(`Nothing was stored for ${this.baseUrl}`)
      else if (oauth)
        this.out(`Signed out of ${this.baseUrl}: ${revoked ? 'tokens revoked and' : 'tokens (not revoked)'} removed from the ${where}`)
      else this.out(`Removed the key for ${this.baseUrl} from the ${where}`)
    } else {
      this.out(!r.removed ? 'none' : oauth ? `removed\t${r.store}\t${revoked ? 'revoked' : 'not-revoked'}` : `removed\t${r.store}`)
    }
    if (process.env.KB_API_KEY && this.mode.tty) this.note('KB_API_KEY is still set in this environment and will be used')
    return {base_url: this.baseUrl, removed: r.removed, store: r.store, kind, revoked}
  }
}
