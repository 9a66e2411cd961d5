/**
 * @module The base of every kb command: global flags (--base-url, --project, --json), the client with
 * the daemon autostarted and the credential chosen, the project of the current directory, and one
 * mapping of `KbError` to an exit code plus one stderr line that names the fix.
 */
import {Command, Flags, ux, type Interfaces} from '@oclif/core'
import {KbError, type ErrorCode} from '../shared/errors.js'
import {isServerError, type ApiClient} from '../shared/client.js'
import {hintFor} from '../shared/hints.js'
import {httpClient} from './client/http-transport.js'
import {resolveBaseUrl} from './config/config.js'
import {oauthExpired, resolveCredential, type ResolvedCredential} from './credentials/credentials.js'
import {autostartEnabled, ensureDaemon, isLoopbackUrl} from './daemon/manager.js'
import {jsonText, outputMode, type OutputMode} from './output/format.js'
import {page, pagerCommand, screenRows} from './output/pager.js'
import {progressWanted} from './output/progress.js'
import {safeText} from './output/safe-text.js'
import {projectRef, resolveProjectId} from './project/project.js'

export type KbFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof KbCommand)['baseFlags'] & T['flags']>
export type KbArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

export abstract class KbCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true
  static override baseFlags = {
    'base-url': Flags.string({
      description: 'kb server to talk to, ending in /api/v1 (env KB_BASE_URL, config base_url; default the local daemon)',
      helpGroup: 'GLOBAL',
    }),
    project: Flags.string({
      description: 'project id or canonical remote (github.com/acme/api) (env KB_PROJECT; default git config kb.project)',
      helpGroup: 'GLOBAL',
    }),
  }

  /** Human output that may run past a screen (kb show, kb list): paged on a terminal, unless --no-pager. */
  static pager = false

  protected flags!: KbFlags<T>
  protected args!: KbArgs<T>
  /** Every positional argument, in order (for commands that take a variable number). */
  protected positional: string[] = []
  private clientPromise: Promise<ApiClient> | undefined
  private credential: ResolvedCredential | undefined
  private baseUrlCache: {url: string; source: string} | undefined
  private modeCache: OutputMode | undefined
  /** What `out()` collected for the pager (null: written straight away). */
  private paged: string[] | null = null

  public override async init(): Promise<void> {
    await super.init()
    const ctor = this.ctor as typeof KbCommand
    const {args, flags, argv} = await this.parse({
      flags: ctor.flags,
      baseFlags: (super.ctor as typeof KbCommand).baseFlags,
      enableJsonFlag: ctor.enableJsonFlag,
      args: ctor.args,
      strict: ctor.strict,
    })
    this.flags = flags as KbFlags<T>
    this.args = args as KbArgs<T>
    this.positional = argv as string[]
    if (ctor.pager && this.mode.tty && !this.jsonEnabled() && !(flags as {'no-pager'?: boolean})['no-pager'] && pagerCommand() !== null) this.paged = []
  }

  /** Pages what `out()` collected when it is longer than the screen; else prints it. */
  protected override async finally(err: Error | undefined): Promise<unknown> {
    if (this.paged) {
      const text = this.paged.join('')
      this.paged = null
      const fits = screenRows(text, this.mode.width) < (process.stdout.rows || 24)
      if (text !== '' && (fits || !(await page(text, pagerCommand()!)))) process.stdout.write(text)
    }
    return super.finally(err)
  }

  protected get mode(): OutputMode {
    return (this.modeCache ??= outputMode())
  }

  protected get baseUrlInfo(): {url: string; source: string} {
    return (this.baseUrlCache ??= resolveBaseUrl((this.flags as {'base-url'?: string})['base-url']))
  }

  protected get baseUrl(): string {
    return this.baseUrlInfo.url
  }

  protected get local(): boolean {
    return isLoopbackUrl(this.baseUrl)
  }

  /** The API client: the local daemon started if needed, the credential chosen. */
  protected client(): Promise<ApiClient> {
    return (this.clientPromise ??= this.makeClient())
  }

  private unreachableHint(): string {
    if (!this.local) return 'check --base-url / KB_BASE_URL / `kb config get base_url` and the network'
    if (!autostartEnabled()) return 'start it with `kb daemon start` (autostart is off: KB_NO_AUTOSTART is set) or check --base-url'
    return 'run `kb daemon start` or check --base-url'
  }

  /** Starts the local daemon when the base URL is local and nothing answers (what `client()` does first). */
  protected async ensureServer(): Promise<void> {
    if (!this.local || !autostartEnabled()) return
    const host = new URL(this.baseUrl).host
    // A start that takes longer than 300 ms shows a spinner (oclif's ux.action) on a terminal.
    let timer: NodeJS.Timeout | undefined
    let spinning = false
    const onStart = (): void => {
      if (progressWanted(this.jsonEnabled())) timer = setTimeout(() => ((spinning = true), ux.action.start(`kb: starting the kb daemon at ${host}`)), 300)
    }
    let r: Awaited<ReturnType<typeof ensureDaemon>>
    try {
      r = await ensureDaemon({baseUrl: this.baseUrl, root: this.config.root, cliVersion: this.config.version, onStart})
    } catch (e) {
      if (spinning) ux.action.stop('failed')
      throw e
    } finally {
      clearTimeout(timer)
    }
    if (spinning) ux.action.stop('started (logs: `kb daemon logs`)')
    if (r.warning) this.note(`warning: ${r.warning}`)
    else if (r.started && !spinning) this.note(`started the kb daemon at ${host} (logs: \`kb daemon logs\`)`)
  }

  /** A client for the base URL sending `key` (or nothing), whatever credential is stored. */
  protected bareClient(key: string | null): ApiClient {
    return httpClient({baseUrl: this.baseUrl, key, userAgent: `kb/${this.config.version}`, unreachableHint: this.unreachableHint(), serverLabel: this.local ? 'kb daemon' : 'kb server'})
  }

  private async makeClient(): Promise<ApiClient> {
    await this.ensureServer()
    this.credential = await resolveCredential(this.baseUrl, this.local)
    if (this.credential.problem) this.note(`warning: ${this.credential.problem}; using ${this.credential.source === 'none' ? 'no credential' : this.credential.location}`)
    const oauth = this.credential.kind === 'oauth' && this.credential.oauth ? this.credential.oauth : null
    // OAuth tokens from `kb auth login --web`: refreshed before use when expired, and once more if the
    // server still calls the token invalid (revoked early, or clocks that disagree).
    if (oauth && oauthExpired(oauth)) this.credential = await this.refreshOAuth()
    const client = this.bareClient(this.credential.key)
    if (oauth) client.refreshKey = async () => (this.credential = await this.refreshOAuth()).key
    return client
  }

  private async refreshOAuth(): Promise<ResolvedCredential> {
    const {refreshOAuthCredential} = await import('./oauth/tokens.js')
    return refreshOAuthCredential(this.baseUrl, this.credential!, `kb/${this.config.version}`)
  }

  /** The credential the client uses (after `client()`). */
  protected async credentialInUse(): Promise<ResolvedCredential> {
    await this.client()
    return this.credential!
  }

  /** The credential as read, even when making the client failed (e.g. its OAuth refresh was refused). */
  protected credentialRead(): ResolvedCredential | undefined {
    return this.credential
  }

  /** The project id for this command, or null when none is known (outside a joined repository). */
  protected async projectId(): Promise<string | null> {
    const ref = await projectRef((this.flags as {project?: string}).project)
    if (!ref) return null
    return resolveProjectId(ref, await this.client())
  }

  /** `--json` output, with every control escaped (format.ts jsonText). */
  protected override logJson(json: unknown): void {
    process.stdout.write(`${jsonText(json)}\n`)
  }

  /** Writes human output (never in --json mode); through the pager for a command that has one. */
  protected out(text: string): void {
    if (this.jsonEnabled()) return
    const line = text.endsWith('\n') || text === '' ? text : `${text}\n`
    if (this.paged) this.paged.push(line)
    else process.stdout.write(line)
  }

  /** A side remark for people on stderr (autostart, warnings); silent when stderr is not a terminal. */
  protected note(text: string): void {
    if (process.stderr.isTTY) process.stderr.write(`kb: ${safeText(text)}\n`)
  }

  /** A warning that scripts should see too. */
  protected warnLine(text: string): void {
    process.stderr.write(`kb: warning: ${safeText(text)}\n`)
  }

  protected override async catch(err: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<unknown> {
    let code: ErrorCode | null = null
    let message = err.message
    let exit: number
    if (err instanceof KbError) {
      code = err.code
      exit = err.exitCode
      const hint = isServerError(err) ? hintFor(err.code, 'cli') : undefined
      if (hint) message = `${message}; ${hint.replace('<command>', (this.id ?? '').split(':').join(' '))}`
      if (err.code === 'rate_limited' && err.headers?.['retry-after']) message = `${err.message}; retry in ${err.headers['retry-after']} s`
    } else if (err.oclif?.exit !== undefined) {
      // oclif's own errors: parse errors (unknown flag, missing argument, bad option value) exit 2.
      exit = err.oclif.exit
      if (err.message.startsWith('EEXIT:')) {
        process.exitCode = exit
        return undefined
      }
      code = exit === 2 ? 'usage' : null
      message = message.replace(/\nSee more help with --help$/, ' (see --help)')
    } else {
      exit = 1
    }
    process.exitCode = exit
    if (this.jsonEnabled()) {
      const e = err instanceof KbError ? err : undefined
      process.stdout.write(`${jsonText({error: {code: code ?? 'error', message, exit, ...(e?.status ? {status: e.status} : {}), ...(e?.errors ? {errors: e.errors} : {})}})}\n`)
    }
    // The message may echo the server's words (a problem's detail): never raw to the terminal. --json keeps them exact.
    process.stderr.write(`kb: ${safeText(message).split('\n').join('\n    ')}\n`)
    return undefined
  }
}
