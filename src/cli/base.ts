/**
 * @module The base of every kb command: global flags (--base-url, --project, --json), the client with
 * the daemon autostarted and the credential chosen, the project of the current directory, writes that
 * queue in the outbox when the server cannot be reached (and a queue sent behind the next command that
 * reaches it), and one mapping of `KbError` to an exit code plus one stderr line that names the fix.
 * Past 350 lines because oclif gives a command one base class; splitting it needs the outbox and output
 * parts moved into helpers the class delegates to (not done yet).
 */
import {join} from 'node:path'
import {Command, Flags, ux, type Interfaces} from '@oclif/core'
import {KbError, type ErrorCode} from '../shared/errors.js'
import {dataDir} from '../shared/paths.js'
import {isServerError, type ApiClient} from '../shared/client.js'
import {hintFor} from '../shared/hints.js'
import {httpClient} from './client/http-transport.js'
import {resolveBaseUrl} from './config/config.js'
import {oauthExpired, resolveCredential, type ResolvedCredential} from './credentials/credentials.js'
import {autostartEnabled, ensureDaemon, isLoopbackUrl} from './daemon/manager.js'
import {impostorError, probeDaemon, probeDaemonIfUp, type DaemonProbe} from './daemon/proof.js'
import type {ProvenDaemon} from './oauth/pinned-fetch.js'
import {jsonText, oneLine, outputMode, type OutputMode} from './output/format.js'
import {page, pagerCommand, screenRows} from './output/pager.js'
import {progressWanted} from './output/progress.js'
import {safeText} from './output/safe-text.js'
import {usageLine} from './output/usage-error.js'
import type {OutboxOptions} from './outbox/queue.js'
import {hasQueued, isUnreachable, queueEnabled, type OutboxItem, type QueuedWrite} from './outbox/state.js'
import {projectRef, resolveProjectId, type ProjectRef} from './project/project.js'

export type KbFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof KbCommand)['baseFlags'] & T['flags']>
export type KbArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/** What a write command hands `write`: the request (or, for an edit, what to settle later) and how to name it. */
export type WriteDraft = Pick<OutboxItem, 'command' | 'label' | 'request' | 'project_ref' | 'edit'>

/** How long the queue may be sent behind a command that reached the server (docs/cli.md, "Offline writes"). */
const BACKGROUND_SEND_MS = 3000

export abstract class KbCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true
  static override baseFlags = {
    'base-url': Flags.string({
      description: 'kb server to talk to, ending in /api/v1 (env KB_BASE_URL, config base_url; default the local daemon)',
      helpGroup: 'GLOBAL',
    }),
    project: Flags.string({
      description: "project id or canonical remote (github.com/acme/api) (env KB_PROJECT; default the checkout's, see docs/cli.md)",
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
  /** The last challenged `/health` of the local daemon, and the data directory it was checked against. */
  private probe: {dir: string; probe: DaemonProbe} | undefined
  private clientMade = false
  /** This run queued a write, or found the server out of reach: the rest of its writes queue without trying. */
  private queuedBecause: KbError | undefined
  /** Queue without a word (the git hook). */
  protected quietQueue = false
  /** Send what waits in the outbox after the command succeeded (not for `kb sync`, which does just that). */
  protected sendQueueAfter = true

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
    if (ctor.pager && this.mode.tty && !this.jsonEnabled() && !(flags as {'no-pager'?: boolean})['no-pager'] && pagerCommand() !== null)
      this.paged = []
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
      if (progressWanted(this.jsonEnabled()))
        timer = setTimeout(() => ((spinning = true), ux.action.start(`kb: starting the kb daemon at ${host}`)), 300)
    }
    let r: Awaited<ReturnType<typeof ensureDaemon>>
    try {
      r = await ensureDaemon({baseUrl: this.baseUrl, root: this.config.root, cliVersion: this.config.version, onStart})
      this.probe = {dir: dataDir(), probe: r.probe}
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

  /**
   * Whether the local daemon proves it owns data directory `dir` (docs/security.md); asks it when the
   * autostart check has not already. Nothing answering is the usual "not reachable" error.
   */
  protected async daemonOwns(dir: string): Promise<boolean> {
    if (this.probe?.dir !== dir || !this.probe.probe.proven) {
      const probe = await probeDaemon(this.baseUrl, dir, 2000, {unreachableHint: this.unreachableHint(), serverLabel: 'kb daemon'})
      this.probe = {dir, probe}
    }
    return this.probe.probe.proven
  }

  /** Refuses (exit 5) unless the local daemon proves it owns `dir`: a credential of that directory goes nowhere else. */
  protected async requireDaemonOf(dir: string): Promise<void> {
    if (!(await this.daemonOwns(dir))) throw await impostorError(this.baseUrl, dir, this.probe?.probe ?? null)
  }

  /**
   * For a local base URL, the daemon of `dir` once it has proved itself (else exit 5), for OAuth requests
   * pinned to it; null for a remote one, whose OAuth requests go where its URLs say.
   */
  protected async localDaemon(dir: string): Promise<ProvenDaemon | null> {
    if (!this.local) return null
    await this.requireDaemonOf(dir)
    return {origin: new URL(this.baseUrl).origin, address: this.provenAddress()!}
  }

  /** The address the local daemon proved itself on this run, for requests made outside the client (streams). */
  protected provenAddress(): string | undefined {
    return this.probe?.probe.proven ? this.probe.probe.peer?.address : undefined
  }

  /** A client for the base URL sending `key` (or nothing), whatever credential is stored. */
  protected bareClient(key: string | null): ApiClient {
    // Pinned to the address the daemon proved itself on: `localhost` has more than one.
    const address = this.provenAddress()
    return httpClient({
      baseUrl: this.baseUrl,
      key,
      userAgent: `kb/${this.config.version}`,
      unreachableHint: this.unreachableHint(),
      serverLabel: this.local ? 'kb daemon' : 'kb server',
      ...(address ? {address} : {}),
    })
  }

  private async makeClient(): Promise<ApiClient> {
    await this.ensureServer()
    this.credential = await resolveCredential(this.baseUrl, this.local)
    if (this.local && this.credential.daemonDataDir) await this.requireDaemonOf(this.credential.daemonDataDir)
    if (this.credential.problem)
      this.note(
        `warning: ${this.credential.problem}; using ${this.credential.source === 'none' ? 'no credential' : this.credential.location}`,
      )
    const oauth = this.credential.kind === 'oauth' && this.credential.oauth ? this.credential.oauth : null
    // OAuth tokens from `kb auth login --web`: refreshed before use when expired, and once more if the
    // server still calls the token invalid (revoked early, or clocks that disagree).
    if (oauth && oauthExpired(oauth)) this.credential = await this.refreshOAuth()
    const client = this.bareClient(this.credential.key)
    if (oauth) client.refreshKey = async () => (this.credential = await this.refreshOAuth()).key
    this.clientMade = true
    return client
  }

  private async refreshOAuth(): Promise<ResolvedCredential> {
    const daemon = await this.localDaemon(this.credential!.daemonDataDir ?? dataDir())
    const {refreshOAuthCredential} = await import('./oauth/tokens.js')
    return refreshOAuthCredential(this.baseUrl, this.credential!, `kb/${this.config.version}`, daemon)
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
    const ref = await this.projectRef()
    if (!ref) return null
    return resolveProjectId(ref, await this.client(), this.baseUrl)
  }

  /** Where this command's project comes from (docs/cli.md, "The project of a checkout"), before asking the server. */
  protected projectRef(): Promise<ProjectRef | null> {
    return projectRef((this.flags as {project?: string}).project, this.baseUrl)
  }

  /** The data directory the local daemon says it uses, when kb sent no credential and looked for owner.key in another. */
  private async daemonElsewhere(): Promise<string | null> {
    if (!this.local || this.credential?.source !== 'none') return null
    const dir = dataDir()
    if (this.probe?.dir !== dir)
      this.probe = {dir, probe: (await probeDaemonIfUp(this.baseUrl, dir).catch(() => null)) ?? {health: null, proven: false, peer: null}}
    const said = this.probe.probe.health?.data_dir
    return said && said !== dir ? said : null
  }

  /** `--json` output, with every control escaped (format.ts jsonText). */
  protected override logJson(json: unknown): void {
    process.stdout.write(`${jsonText(json)}\n`)
  }

  /** Writes human output (never in --json mode); through the pager for a command that has one. */
  /**
   * Sends a write under a fresh Idempotency-Key, or — when the server cannot be reached and queueing is on —
   * keeps it in the outbox with that key for `kb sync` (docs/cli.md, "Offline writes"), so a request whose
   * answer was lost is not done twice when it is sent again.
   */
  protected async write<T>(draft: WriteDraft, noQueue?: boolean): Promise<T | QueuedWrite> {
    const key = crypto.randomUUID()
    if (this.queuedBecause && queueEnabled(noQueue)) return this.enqueue(draft, this.queuedBecause, key)
    let settled = draft
    try {
      const client = await this.client()
      if (draft.project_ref) {
        const projectId = await resolveProjectId(draft.project_ref, client, this.baseUrl)
        const body = {...(draft.request!.body as Record<string, unknown>), ...(projectId ? {project_id: projectId} : {})}
        settled = {...draft, request: {...draft.request!, body}, project_ref: undefined}
      }
      return (await client.write<T>(settled.request!, {idempotencyKey: key})).body
    } catch (e) {
      if (!isUnreachable(e) || !queueEnabled(noQueue)) throw e
      return this.enqueue(settled, e, key)
    }
  }

  /** Keeps a write in the outbox and says so in one line (none for the git hook); what `write` does offline. */
  protected async enqueue(draft: WriteDraft, because: KbError, key: string = crypto.randomUUID()): Promise<QueuedWrite> {
    const {Outbox} = await import('./outbox/queue.js')
    this.queuedBecause = because
    const item: OutboxItem = {
      key,
      base_url: this.baseUrl,
      queued_at: new Date().toISOString(),
      ...stripUndefined(draft),
      attempts: 1,
      last_error: because.message,
    }
    const waiting = await Outbox.forServer(this.baseUrl, this.outboxOptions).append(item)
    const queued: QueuedWrite = {
      queued: true,
      key,
      command: item.command,
      label: item.label,
      base_url: item.base_url,
      queued_at: item.queued_at,
      reason: because.message,
      waiting,
    }
    if (!this.quietQueue && !this.jsonEnabled()) {
      const why = oneLine(because.message.split(';')[0]!)
      process.stderr.write(`kb: queued ${item.command} "${oneLine(item.label)}" for \`kb sync\` (${waiting} waiting): ${why}\n`)
    }
    return queued
  }

  /** How the outbox tells of a file it had to set aside. */
  protected get outboxOptions(): OutboxOptions {
    return {
      onSetAside: (path, why) => this.warnLine(`the outbox could not be read (${why}); it was moved to ${path}, nothing in it was sent`),
    }
  }

  /** Whether `e` is a failure to reach the server that `write` would queue (for commands that read before they write). */
  protected queues(e: unknown, noQueue?: boolean): e is KbError {
    return isUnreachable(e) && queueEnabled(noQueue)
  }

  /** Pages what `out()` collected when it is longer than the screen (else prints it), then sends what waits in the outbox. */
  protected override async finally(err: Error | undefined): Promise<unknown> {
    if (this.paged) {
      const text = this.paged.join('')
      this.paged = null
      const fits = screenRows(text, this.mode.width) < (process.stdout.rows || 24)
      if (text !== '' && (fits || !(await page(text, pagerCommand()!)))) process.stdout.write(text)
    }
    const result = await super.finally(err)
    // Not awaited: the command's output is not held back; the process ends once this has (bounded), too.
    if (!err && this.clientMade && !this.queuedBecause && this.sendQueueAfter && hasQueued(this.baseUrl)) void this.sendQueuedInBackground()
    return result
  }

  private async sendQueuedInBackground(): Promise<void> {
    try {
      const [{Outbox}, {sendQueued}, {syncLine}] = await Promise.all([
        import('./outbox/queue.js'),
        import('./outbox/sync.js'),
        import('./outbox/report.js'),
      ])
      const report = await sendQueued(Outbox.forServer(this.baseUrl, this.outboxOptions), await this.client(), {
        lockWaitMs: 0,
        deadline: Date.now() + BACKGROUND_SEND_MS,
      })
      const done = report.items.filter((i) => i.status !== 'waiting')
      if (done.length === 0 || this.quietQueue) return
      this.note(
        `sent ${done.length} queued write(s)${report.remaining ? `; ${report.remaining} still waiting (\`kb sync --status\`)` : ''}`,
      )
      for (const i of done) if (i.status === 'forked' || i.status === 'refused') this.note(`  ${syncLine(i)}`)
    } catch {
      // The queue stays as it was, for `kb sync`.
    }
  }

  /** Writes human output (never in --json mode). */
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
      const command = (this.id ?? '').split(':').join(' ')
      const hint = isServerError(err)
        ? hintFor(err.code, 'cli', command, err.errors?.length === 1 ? err.errors[0]!.path : undefined)
        : undefined
      if (hint) message = `${message}; ${hint.replace('<command>', command)}`
      const elsewhere = err.code === 'unauthenticated' ? await this.daemonElsewhere() : null
      if (elsewhere)
        message = `no credential: the kb daemon at ${this.baseUrl} keeps its data in ${elsewhere}, not in ${dataDir()} where kb looked for owner.key; set KB_DATA_DIR=${elsewhere} (its key is ${join(elsewhere, 'owner.key')}), or log in with \`kb auth login --with-token\``
      if (err.code === 'rate_limited' && err.headers?.['retry-after']) message = `${err.message}; retry in ${err.headers['retry-after']} s`
    } else if (err.oclif?.exit !== undefined) {
      // oclif's own errors: parse errors (unknown flag, missing argument, bad option value) exit 2.
      exit = err.oclif.exit
      if (err.message.startsWith('EEXIT:')) {
        process.exitCode = exit
        return undefined
      }
      code = exit === 2 ? 'usage' : null
      message = usageLine(message, (this.id ?? '').split(':').join(' '))
    } else {
      exit = 1
    }
    process.exitCode = exit
    if (this.jsonEnabled()) {
      const e = err instanceof KbError ? err : undefined
      // A problem's extension members (a sensitive_content refusal's findings) go along for scripts to read.
      const error = {
        code: code ?? 'error',
        message,
        exit,
        ...(e?.status ? {status: e.status} : {}),
        ...(e?.errors ? {errors: e.errors} : {}),
        ...(e?.extra ?? {}),
      }
      process.stdout.write(`${jsonText({error})}\n`)
    }
    // The message may echo the server's words (a problem's detail): never raw to the terminal. --json keeps them exact.
    process.stderr.write(`kb: ${safeText(message).split('\n').join('\n    ')}\n`)
    return undefined
  }
}

/** The draft without its unset fields, so the outbox file holds only what an item has. */
function stripUndefined(draft: WriteDraft): WriteDraft {
  return Object.fromEntries(Object.entries(draft).filter(([, v]) => v !== undefined)) as WriteDraft
}
