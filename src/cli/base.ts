/**
 * @module The base of every kb command: global flags (--base-url, --project, --json), the client with
 * the daemon autostarted and the credential chosen, the project of the current directory, writes that
 * queue in the outbox when the server cannot be reached (and a queue sent behind the next command that
 * reaches it), and one mapping of `KbError` to an exit code plus one stderr line that names the fix.
 * The error report is output/command-error.ts, the outbox's side outbox/enqueue.ts and outbox/background.ts.
 */
import {Command, Flags, ux, type Interfaces} from '@oclif/core'
import type {KbError} from '../shared/errors.js'
import {dataDir} from '../shared/paths.js'
import {readIdRef} from '../shared/short-id.js'
import type {ApiClient} from '../shared/client.js'
import {httpClient} from './client/http-transport.js'
import {transportWords, type TransportWords} from './client/transport-words.js'
import {resolveBaseUrl} from './config/config.js'
import {oauthExpired, resolveCredential, type ResolvedCredential} from './credentials/credentials.js'
import {autostartEnabled, ensureDaemon, isLoopbackUrl} from './daemon/manager.js'
import {impostorError, probeDaemon, probeDaemonIfUp, type DaemonProbe} from './daemon/proof.js'
import type {ProvenDaemon} from './oauth/pinned-fetch.js'
import {jsonText, outputMode, type OutputMode} from './output/format.js'
import {page, pagerCommand, screenRows} from './output/pager.js'
import {progressWanted} from './output/progress.js'
import {safeText} from './output/safe-text.js'
import {reportCommandError} from './output/command-error.js'
import type {OutboxOptions} from './outbox/queue.js'
import {sendQueuedInBackground} from './outbox/background.js'
import {enqueueWrite, type WriteDraft} from './outbox/enqueue.js'
import {hasQueued, isUnreachable, queueEnabled, type QueuedWrite} from './outbox/state.js'
import {projectRef, resolveProjectId, type ProjectRef} from './project/project.js'

export type KbFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof KbCommand)['baseFlags'] & T['flags']>
export type KbArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

export type {WriteDraft} from './outbox/enqueue.js'

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
  /**
   * The arguments and flags that name an entry (docs/cli.md, "Short ids"): a whole id, or the start or end of one,
   * each read as the whole id before `run()`. A whole id needs no server, so a write naming one still queues offline.
   */
  static entryArgs: readonly string[] = []
  static entryFlags: readonly string[] = []

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
  /** What the client says it is (`Kb-Via`), for the history of what it changes (docs/api.md, "History"): the git hook. */
  protected via: 'hook' | undefined = undefined
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
    await this.readEntryRefs(ctor)
    if (ctor.pager && this.mode.tty && !this.jsonEnabled() && !(flags as {'no-pager'?: boolean})['no-pager'] && pagerCommand() !== null)
      this.paged = []
  }

  private async readEntryRefs(ctor: typeof KbCommand): Promise<void> {
    const bags: Array<[Record<string, unknown>, readonly string[]]> = [
      [this.args as Record<string, unknown>, ctor.entryArgs],
      [this.flags as Record<string, unknown>, ctor.entryFlags],
    ]
    for (const [bag, names] of bags)
      for (const name of names) {
        const typed = bag[name]
        if (typeof typed === 'string') bag[name] = await this.entryId(typed)
      }
  }

  /** The whole id of the entry `typed` names (a whole id, or the start or end of one: docs/cli.md, "Short ids"). */
  protected async entryId(typed: string): Promise<string> {
    // Refused before any request when it cannot be an id (too short, not hex digits).
    const ref = readIdRef(typed)
    if ('id' in ref) return ref.id
    try {
      return await (await this.client()).entryId(typed)
    } catch (e) {
      if (!isUnreachable(e)) throw e
      const {KbError} = await import('../shared/errors.js')
      throw new KbError('unreachable', `${safeText(typed)} is a short id, which only the server can read: ${(e as Error).message}`, {
        cause: e,
      })
    }
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

  /** `client()`, made afresh on the next call when making it failed: a long-lived `kb mcp` whose daemon starts later. */
  protected clientOrRetry(): Promise<ApiClient> {
    return this.client().catch((e: unknown) => {
      this.forgetClient()
      throw e
    })
  }

  /** The next `client()` starts over: the daemon checked (or started) again, the credential read again (owner.key may be new). */
  protected forgetClient(): void {
    this.clientPromise = undefined
    this.probe = undefined
  }

  /** How "not reachable" and "did not answer" messages name the server and what they advise. */
  private transportWords(): TransportWords {
    return transportWords(this.local)
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
      const probe = await probeDaemon(this.baseUrl, dir, 2000, this.transportWords())
      this.probe = {dir, probe}
    }
    return this.probe.probe.proven
  }

  /** What the listener at a local base URL said of itself in its `/health` (after `daemonOwns`); null when it is not kb. */
  protected listenerHealth(): DaemonProbe['health'] {
    return this.probe?.probe.health ?? null
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
      ...this.transportWords(),
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
    client.via = this.via
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
    this.queuedBecause = because
    // The credential as read, even when making the client failed (the daemon is down): the item is that principal's.
    const credential = this.credential ?? (await resolveCredential(this.baseUrl, this.local).catch(() => undefined))
    return enqueueWrite(draft, because, key, {
      baseUrl: this.baseUrl,
      credential,
      outbox: this.outboxOptions,
      announce: !this.quietQueue && !this.jsonEnabled(),
    })
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
    await sendQueuedInBackground(
      this.baseUrl,
      this.outboxOptions,
      () => this.client(),
      this.quietQueue ? () => {} : (line) => this.note(line),
      () => this.credentialInUse(),
    )
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
    await reportCommandError(err, {
      command: (this.id ?? '').split(':').join(' '),
      json: this.jsonEnabled(),
      remote: this.clientMade && !this.local,
      flags: Object.keys({...KbCommand.baseFlags, ...(this.constructor as typeof KbCommand).flags}).map((f) => `--${f}`),
      elsewhere: async () => {
        const dir = await this.daemonElsewhere()
        return dir ? {baseUrl: this.baseUrl, looked: dataDir(), dir} : null
      },
    })
    return undefined
  }
}
