/**
 * @module `kb auth login`: either `--web` (the CLI signs in through the browser as an OAuth 2.1 public
 * client and stores the tokens) or `--with-token` (check an API key against the server and store it).
 * Either way the credential goes to the OS keychain, or a 0600 file when no keychain answers.
 */
import {Flags} from '@oclif/core'
import {KEY_PREFIX_CHARS} from '../../src/shared/contract.js'
import {KbError} from '../../src/shared/errors.js'
import {dataDir, dataFiles} from '../../src/shared/paths.js'
import {KbCommand} from '../../src/cli/base.js'
import {requireEveryAddress} from '../../src/cli/daemon/proof.js'
import {readStdin, stdinPiped} from '../../src/cli/input.js'
import {
  readOwnerKey,
  storeCredential,
  storeOAuthCredential,
  URL_ONLY,
  type CredentialBinding,
} from '../../src/cli/credentials/credentials.js'
import {cell, green, oneLine} from '../../src/cli/output/format.js'
import {safeText} from '../../src/cli/output/safe-text.js'

export interface LoginResult {
  base_url: string
  kind: 'api-key' | 'oauth'
  store: 'keychain' | 'file'
  location: string
  principal: {id: string; name: string} | null
  key_prefix: string
  /** OAuth only: when the access token expires (it is refreshed automatically), and the registered client. */
  expires_at?: string | null
  client_id?: string
}

export default class AuthLogin extends KbCommand<typeof AuthLogin> {
  static override summary = 'Sign in to the base URL: in the browser (--web) or with an API key (--with-token)'
  static override description =
    '--web: kb registers itself with the server as an OAuth client (once per base URL), opens your browser at the consent page (or prints the URL when no browser can open), waits on a 127.0.0.1 port for the answer, and stores the tokens; they are refreshed automatically. ' +
    '--with-token: reads an API key from stdin (never from an argument, which would land in shell history) and checks it with the server. ' +
    'The credential goes to the OS keychain (service "kb", account = base URL) or, when no keychain answers within 3 s, a 0600 file under $XDG_CONFIG_HOME/kb. KB_API_KEY still wins over a stored credential.'
  static override examples = [
    '<%= config.bin %> auth login --web',
    '<%= config.bin %> auth login --web --no-browser --base-url https://kb.acme.dev/api/v1',
    '<%= config.bin %> auth login --with-token < key.txt',
    'echo "$KB_TEAM_KEY" | <%= config.bin %> auth login --with-token --base-url https://kb.acme.dev/api/v1',
  ]
  static override flags = {
    web: Flags.boolean({description: 'sign in in the browser (OAuth 2.1 with PKCE)', exclusive: ['with-token']}),
    'with-token': Flags.boolean({description: 'read the API key from stdin', exclusive: ['web']}),
    'no-browser': Flags.boolean({description: 'with --web: do not open a browser, print the URL to open instead'}),
    timeout: Flags.integer({description: 'with --web: seconds to wait for the browser', default: 300, min: 1}),
  }

  async run(): Promise<LoginResult> {
    if (this.flags.web) return this.web()
    if (!this.flags['with-token'])
      throw new KbError('usage', 'say how to sign in: `kb auth login --web` (in the browser) or `kb auth login --with-token < key.txt`')
    if (!stdinPiped()) throw new KbError('usage', 'pipe the key on stdin: `kb auth login --with-token < key.txt`')
    const key = (await readStdin()).trim()
    if (key === '') throw new KbError('usage', 'no key on stdin: `echo "$KEY" | kb auth login --with-token`')
    if (/\s/.test(key)) throw new KbError('usage', 'stdin held more than one word; pipe just the API key')
    // Not client(): that would use (and maybe try to refresh) whatever credential is stored now.
    await this.ensureServer()
    const boundTo = await this.proveLocal(key)
    let principal: {id: string; name: string} | null
    try {
      principal = await this.principalOf(key)
    } catch (e) {
      if (e instanceof KbError && e.code === 'unauthenticated') {
        // `kb api-key create` needs a working key already: point at the one that always works, or at whoever can mint one.
        const fix =
          this.local && boundTo !== URL_ONLY
            ? `the local daemon's owner key is in ${dataDir()}/owner.key (KB_DATA_DIR, or the --data-dir the daemon was started with)`
            : 'ask someone who can log in to run `kb api-key create` for you'
        throw new KbError('unauthenticated', `${this.baseUrl} rejected that key (unknown, revoked or expired); ${fix}`)
      }
      throw e
    }
    const stored = await storeCredential(this.baseUrl, key, boundTo)
    if (stored.store === 'file' && stored.keychainProblem) this.note(`no keychain (${stored.keychainProblem}); using the 0600 file`)
    const result: LoginResult = {
      base_url: this.baseUrl,
      kind: 'api-key',
      store: stored.store,
      location: stored.location,
      principal,
      key_prefix: key.slice(0, KEY_PREFIX_CHARS),
    }
    if (this.mode.tty)
      this.out(
        `${green(this.mode, 'Logged in')} to ${this.baseUrl}${principal ? ` as ${oneLine(principal.name)}` : ''}; key stored in ${stored.store === 'keychain' ? 'the system keychain' : stored.location}`,
      )
    else this.out(`${this.baseUrl}\t${stored.store}\t${cell(principal?.name)}`)
    return result
  }

  /**
   * A sign-in at a loopback base URL is one with the local daemon: nothing is sent (no key, no browser)
   * until it proves it owns the data directory, and the credential goes only to it from then on
   * (docs/security.md). Returns that directory; null for a remote server, whose credential is its URL's alone.
   */
  private async proveLocal(key?: string): Promise<CredentialBinding> {
    if (!this.local) return null
    const dir = dataDir()
    try {
      await this.requireDaemonOf(dir)
    } catch (e) {
      if (!(e instanceof KbError) || e.code !== 'conflict') throw e
      const said = this.listenerHealth()?.data_dir
      const other = said && said !== dir ? safeText(said, {newlines: false}) : null
      // A kb daemon of another data directory — a team server on loopback, a tunnel — takes a member's key bound to its
      // URL alone, as a remote server does, when the URL was named for this login (--base-url): the URL kb uses by
      // default stays the local daemon's, where an impostor could claim anything. This data directory's owner key
      // still goes only to its own daemon.
      const named = this.baseUrlInfo.source === 'flag'
      if (key === undefined || other === null || key === readOwnerKey(dataFiles(dir).ownerKey)) throw e
      if (!named)
        throw new KbError(
          'conflict',
          `${e.message}; to sign in to it with a key of yours, name it: \`kb auth login --with-token --base-url ${this.baseUrl}\``,
        )
      this.note(
        `${this.baseUrl} is the kb daemon of ${other}, not of ${dir}: the key is stored for that URL alone and sent wherever it points, as to a remote server; to tie it to that daemon instead, run with KB_DATA_DIR=${other}`,
      )
      return URL_ONLY
    }
    return dir
  }

  private async principalOf(key: string): Promise<{id: string; name: string} | null> {
    const keys = await this.bareClient(key).listApiKeys()
    return keys.find((k) => key.startsWith(k.prefix))?.principal ?? keys[0]?.principal ?? null
  }

  private async web(): Promise<LoginResult> {
    await this.ensureServer()
    // Without a key to judge, a loopback listener that cannot prove itself is refused (proveLocal throws).
    const proven = await this.proveLocal()
    const boundTo = typeof proven === 'string' ? proven : null
    const daemon = boundTo === null ? null : await this.localDaemon(boundTo)
    // The browser resolves `localhost` by itself: every address it may pick must be the daemon's too.
    if (daemon) await requireEveryAddress(this.baseUrl, boundTo!, daemon.address)
    const {webLogin} = await import('../../src/cli/oauth/login.js')
    const r = await webLogin({
      daemon,
      baseUrl: this.baseUrl,
      userAgent: `kb/${this.config.version}`,
      browser: !this.flags['no-browser'],
      timeoutMs: this.flags.timeout * 1000,
      say: (line) => process.stderr.write(`${safeText(line)}\n`),
    })
    // The server has accepted the code; asking the API with the new token proves it works and says as whom.
    const principal = await this.principalOf(r.oauth.access_token)
    const stored = await storeOAuthCredential(this.baseUrl, r.oauth, boundTo)
    if (stored.store === 'file' && stored.keychainProblem) this.note(`no keychain (${stored.keychainProblem}); using the 0600 file`)
    const result: LoginResult = {
      base_url: this.baseUrl,
      kind: 'oauth',
      store: stored.store,
      location: stored.location,
      principal,
      key_prefix: r.oauth.access_token.slice(0, KEY_PREFIX_CHARS),
      expires_at: r.oauth.expires_at,
      client_id: r.client_id,
    }
    if (this.mode.tty)
      this.out(
        `${green(this.mode, 'Logged in')} to ${this.baseUrl}${principal ? ` as ${oneLine(principal.name)}` : ''} (OAuth); tokens stored in ${stored.store === 'keychain' ? 'the system keychain' : stored.location}`,
      )
    else this.out(`${this.baseUrl}\t${stored.store}\t${cell(principal?.name)}\toauth`)
    if (process.env.KB_API_KEY) this.warnLine('KB_API_KEY is set in this environment and wins over the stored sign-in')
    return result
  }
}
