/**
 * @module `kb auth status`: which credential is used for the base URL (API key or OAuth sign-in), where
 * it is stored, when an OAuth access token expires, and whether the server accepts it.
 */
import {KEY_PREFIX_CHARS} from '../../src/shared/contract.js'
import {ERROR_CODES, KbError} from '../../src/shared/errors.js'
import {safeText} from '../../src/cli/output/safe-text.js'
import {KbCommand} from '../../src/cli/base.js'
import type {CredentialKind, CredentialSource, ResolvedCredential} from '../../src/cli/credentials/credentials.js'
import {storedLocation} from '../../src/cli/credentials/credentials.js'
import {cell, dim, green, oneLine, red} from '../../src/cli/output/format.js'

export interface AuthStatus {
  base_url: string
  source: CredentialSource
  /** `api-key`, or `oauth` for tokens from `kb auth login --web`; null without a credential. */
  kind: CredentialKind | null
  location: string | null
  /** Where `kb auth login` stored a credential for this base URL (even if another source wins). */
  stored_in: 'keychain' | 'file' | null
  key_prefix: string | null
  /** OAuth only: when the access token in use expires (kb refreshes it by itself). */
  expires_at: string | null
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

function inMinutes(iso: string): string {
  const min = Math.round((Date.parse(iso) - Date.now()) / 60_000)
  return min <= 0 ? 'expired' : min < 120 ? `expires in ${min} min` : `expires in ${Math.round(min / 60)} h`
}

const FIX = 'log in with `kb auth login --web` or `kb auth login --with-token < key.txt`, or set KB_API_KEY'
/** KB_API_KEY wins over every stored credential, so logging in would not change what is sent. */
const ENV_FIX = 'KB_API_KEY wins over any login: set it to a key the server accepts, or unset it'

export default class AuthStatusCmd extends KbCommand<typeof AuthStatusCmd> {
  static override summary = 'Show which credential kb uses and whether it works'
  static override description =
    'Order: KB_API_KEY, then the credential stored by `kb auth login` for this base URL (an API key, or the OAuth sign-in of `kb auth login --web`; keychain or file), then, for a local daemon, its owner.key. Exit 4 when there is no working credential.'
  static override examples = ['<%= config.bin %> auth status', '<%= config.bin %> auth status --json']

  async run(): Promise<AuthStatus> {
    let cred: ResolvedCredential
    let failure: string | null = null
    let client
    try {
      client = await this.client()
      cred = await this.credentialInUse()
    } catch (e) {
      // An OAuth sign-in whose refresh was refused: report it like any credential the server rejects.
      const read = this.credentialRead()
      if (!(e instanceof KbError) || e.code !== 'unauthenticated' || !read) throw e
      cred = read
      failure = e.message
    }
    const status: AuthStatus = {
      base_url: this.baseUrl,
      source: cred.source,
      kind: cred.kind,
      location: cred.location,
      stored_in: storedLocation(this.baseUrl),
      key_prefix: cred.key ? cred.key.slice(0, KEY_PREFIX_CHARS) : null,
      expires_at: cred.oauth?.expires_at ?? null,
      authenticated: false,
      principal: null,
      error: failure ?? cred.problem ?? null,
    }
    if (cred.key && client && !failure) {
      try {
        const keys = await client.listApiKeys()
        status.authenticated = true
        status.principal = keys.find((k) => cred.key!.startsWith(k.prefix))?.principal ?? keys[0]?.principal ?? null
      } catch (e) {
        if (!(e instanceof KbError) || e.code !== 'unauthenticated') throw e
        status.error = e.message
      }
      // A refresh during the call changed the token in use.
      const now = this.credentialRead()
      if (now?.oauth) {
        status.key_prefix = now.oauth.access_token.slice(0, KEY_PREFIX_CHARS)
        status.expires_at = now.oauth.expires_at
      }
    }
    if (this.mode.tty) {
      const what = cred.kind === 'oauth' ? 'OAuth sign-in (kb auth login --web)' : cred.kind === 'api-key' ? 'API key' : null
      this.out(`${this.baseUrl}`)
      this.out(
        `  ${status.authenticated ? green(this.mode, '✓ authenticated') : red(this.mode, '✗ not authenticated')}${status.principal ? ` as ${oneLine(status.principal.name)}` : ''}`,
      )
      this.out(
        `  credential: ${what ? `${what} from ` : ''}${SOURCE_LABEL[cred.source]}${cred.location && cred.source !== 'keychain' ? ` (${cred.location})` : ''}${status.key_prefix ? ` ${dim(this.mode, status.key_prefix + '…')}` : ''}`,
      )
      if (status.expires_at) this.out(`  access token ${inMinutes(status.expires_at)} (${status.expires_at}); refreshed automatically`)
      if (status.stored_in && status.stored_in !== cred.source)
        this.out(
          `  stored by kb auth login: ${status.stored_in === 'keychain' ? 'system keychain' : 'credential file'} (not used: ${SOURCE_LABEL[cred.source]} wins)`,
        )
      if (status.error) this.out(`  ${oneLine(status.error)}`)
      if (!status.authenticated) this.out(`  fix: ${cred.source === 'env' ? ENV_FIX : FIX}`)
    } else {
      this.out(
        [
          this.baseUrl,
          cred.source,
          status.authenticated ? 'authenticated' : 'unauthenticated',
          status.principal?.name ?? '',
          cred.location ?? '',
          cred.kind ?? '',
        ]
          .map(cell)
          .join('\t'),
      )
    }
    if (!status.authenticated) {
      process.exitCode = ERROR_CODES.unauthenticated.exit
      // Exit 4 says why on stderr, as every failure does (docs/cli.md, "Exit codes"); a terminal has read it above.
      const why = status.error ? `: ${oneLine(status.error)}` : ' (no credential)'
      if (!this.mode.tty || this.jsonEnabled())
        process.stderr.write(`kb: not authenticated at ${this.baseUrl}${safeText(why)}; ${cred.source === 'env' ? ENV_FIX : FIX}\n`)
    }
    return status
  }
}
