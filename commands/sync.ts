/**
 * @module `kb sync`: send the writes queued while the server could not be reached, in order, and say what became
 * of each; `--status` lists what waits (sending nothing); `--drop` takes one off the queue; `--refused` lists the
 * writes the server refused and `--retry <n>` queues one of them again and sends.
 */
import {Flags} from '@oclif/core'
import {ERROR_CODES, KbError} from '../src/shared/errors.js'
import {KbCommand} from '../src/cli/base.js'
import {dim, oneLine, renderTable, time} from '../src/cli/output/format.js'
import type {Outbox} from '../src/cli/outbox/queue.js'
import {syncLine} from '../src/cli/outbox/report.js'
import {hasQueued, refusedFile, type OutboxItem} from '../src/cli/outbox/state.js'
import type {RefusedWrite} from '../src/cli/outbox/refused.js'
import type {SyncReport} from '../src/cli/outbox/sync.js'
import {shortIds} from '../src/shared/short-id.js'

export interface RefusedList {
  items: RefusedWrite[]
  file: string
}

export interface SyncStatus {
  items: OutboxItem[]
  /** Outbox files that could not be read, moved aside with their contents. */
  set_aside: string[]
  refused_file: string
}

/** Waiting for another process's `kb sync` to finish before reporting what is left. */
const LOCK_WAIT_MS = 60_000

export default class Sync extends KbCommand<typeof Sync> {
  static override summary = 'Send the writes queued while the server could not be reached'
  static override description =
    'Sends the queued writes for the base URL in the order they were made, each with the Idempotency-Key it was queued with, so one that did arrive before is not done twice. An edit whose entry changed meanwhile is merged with that change field by field; only when it changed a field that was also changed does it become a fork with the edit applied, and a comment on the entry points at it. Writes the server refuses are moved to outbox-refused.jsonl: `--refused` lists them, numbered, and `--retry <n>` queues one again (after you fixed what was wrong) and sends. Exit 6 while some still wait (server unreachable), 1 when some were refused.'
  static override examples = [
    '<%= config.bin %> sync',
    '<%= config.bin %> sync --status',
    '<%= config.bin %> sync --drop 3f2a9c1e',
    '<%= config.bin %> sync --refused',
    '<%= config.bin %> sync --retry 2',
  ]
  static override flags = {
    status: Flags.boolean({description: 'list what waits, for every server; send nothing', default: false}),
    drop: Flags.string({
      description: 'take the queued write with this key (or a unique start of it) off the queue, into outbox-refused.jsonl',
    }),
    refused: Flags.boolean({description: 'list the writes the server refused (or you dropped), numbered; send nothing', default: false}),
    retry: Flags.integer({description: 'queue refused write number N (as --refused lists it) again, then send', min: 1}),
  }

  protected override sendQueueAfter = false

  async run(): Promise<SyncReport | SyncStatus | {dropped: OutboxItem} | RefusedList | {retried: OutboxItem}> {
    const {Outbox} = await import('../src/cli/outbox/queue.js')
    if (this.flags.status) return this.status(Outbox.every(this.outboxOptions), () => Outbox.setAside())
    if (this.flags.drop !== undefined) return this.drop(Outbox.every(this.outboxOptions), this.flags.drop)
    if (this.flags.refused) return this.refused()
    if (this.flags.retry !== undefined) {
      const {takeRefused} = await import('../src/cli/outbox/refused.js')
      const {item} = await takeRefused(this.flags.retry)
      await Outbox.forServer(item.base_url, this.outboxOptions).append(item)
      this.out(`Queued again: ${item.command} ${oneLine(item.label)}`)
      if (item.base_url.replace(/\/+$/, '') !== this.baseUrl.replace(/\/+$/, '')) {
        this.out(`It waits for ${item.base_url}: \`kb sync --base-url ${item.base_url}\``)
        return {retried: item}
      }
    }
    let report: SyncReport = {base_url: this.baseUrl, items: [], remaining: 0, busy: false, out_of_time: false}
    if (hasQueued(this.baseUrl)) {
      const [{sendQueued}, {principalTag}] = await Promise.all([
        import('../src/cli/outbox/sync.js'),
        import('../src/cli/outbox/principal.js'),
      ])
      const client = await this.client()
      report = await sendQueued(Outbox.forServer(this.baseUrl, this.outboxOptions), client, {
        principal: principalTag(await this.credentialInUse()),
        lockWaitMs: LOCK_WAIT_MS,
        onItem: (r) => this.out(syncLine(r)),
      })
      if (report.busy)
        throw new KbError(
          'unavailable',
          `another kb process is still sending the outbox after ${LOCK_WAIT_MS / 1000} s; run \`kb sync\` again later`,
        )
    }
    const count = (s: string): number => report.items.filter((i) => i.status === s).length
    const refused = count('refused')
    const held = count('held')
    if (report.items.length > 0) {
      const parts = [
        `${count('sent')} sent`,
        count('forked') ? `${count('forked')} forked` : '',
        refused ? `${refused} refused (kept in ${refusedFile()})` : '',
        held ? `${held} held (queued under another credential; kept)` : '',
      ]
      this.out(dim(this.mode, `${parts.filter(Boolean).join(', ')}; ${report.remaining} still waiting`))
    } else {
      this.out('Nothing waits to be sent.')
    }
    for (const other of Outbox.every(this.outboxOptions)) {
      const items = (await other.items()).filter((i) => i.base_url !== report.base_url)
      for (const url of new Set(items.map((i) => i.base_url)))
        this.out(`${items.filter((i) => i.base_url === url).length} write(s) wait for ${url}: \`kb sync --base-url ${url}\``)
    }
    process.exitCode = report.remaining > 0 ? ERROR_CODES.unreachable.exit : refused > 0 ? 1 : 0
    return report
  }

  private async status(outboxes: Outbox[], setAside: () => string[]): Promise<SyncStatus> {
    const items = (await Promise.all(outboxes.map((o) => o.items()))).flat().sort((a, b) => a.queued_at.localeCompare(b.queued_at))
    // Listed after reading, which sets aside what it cannot read.
    const result: SyncStatus = {items, set_aside: setAside(), refused_file: refusedFile()}
    if (items.length === 0) {
      if (this.mode.tty) this.out('Nothing waits to be sent.')
    } else {
      const several = new Set(items.map((i) => i.base_url)).size > 1
      const columns = [
        {header: 'KEY', color: dim},
        {header: 'QUEUED'},
        {header: 'COMMAND'},
        {header: 'WHAT', flex: true},
        ...(several ? [{header: 'SERVER', cut: true}] : []),
        {header: 'TRIES', drop: 1},
        {header: 'LAST ERROR', cut: true},
      ]
      const rows = items.map((i) => [
        this.mode.tty ? i.key.slice(0, 8) : i.key,
        time(i.queued_at, this.mode),
        i.command,
        oneLine(this.mode.tty ? shortIds(i.label) : i.label),
        ...(several ? [i.base_url] : []),
        i.attempts,
        oneLine((i.last_error ?? '').split(';')[0]!),
      ])
      this.out(renderTable(columns, rows, this.mode))
    }
    for (const path of result.set_aside) this.warnLine(`an outbox that could not be read was set aside, unsent: ${path}`)
    return result
  }

  private async refused(): Promise<RefusedList> {
    const {readRefused} = await import('../src/cli/outbox/refused.js')
    const items = readRefused()
    if (items.length === 0) this.out(this.mode.tty ? 'No write was refused.' : '')
    else {
      const several = new Set(items.map((r) => r.item.base_url)).size > 1
      const columns = [
        {header: 'N'},
        {header: 'REFUSED'},
        {header: 'COMMAND'},
        {header: 'WHAT', flex: true},
        ...(several ? [{header: 'SERVER', cut: true}] : []),
        {header: 'WHY', cut: true},
      ]
      const rows = items.map((r) => [
        r.n,
        time(r.refused_at, this.mode),
        r.item.command,
        oneLine(r.item.label),
        ...(several ? [r.item.base_url] : []),
        oneLine(`${r.code}: ${r.message}`),
      ])
      this.out(renderTable(columns, rows, this.mode))
      if (this.mode.tty) this.out(dim(this.mode, 'After fixing what was wrong: kb sync --retry N'))
    }
    return {items, file: refusedFile()}
  }

  private async drop(outboxes: Outbox[], prefix: string): Promise<{dropped: OutboxItem}> {
    const matches: Array<{outbox: Outbox; item: OutboxItem}> = []
    for (const outbox of outboxes)
      for (const item of await outbox.items()) if (prefix !== '' && item.key.startsWith(prefix)) matches.push({outbox, item})
    if (matches.length !== 1)
      throw new KbError(
        'usage',
        matches.length === 0
          ? `nothing queued has key ${prefix} (\`kb sync --status\` lists the keys)`
          : `${prefix} starts ${matches.length} keys; give more of it`,
      )
    const {outbox, item} = matches[0]!
    await outbox.refuse(item, {code: 'dropped', message: 'taken off the queue with kb sync --drop'})
    this.out(`Dropped ${item.command} ${oneLine(shortIds(item.label))}; it is kept in ${refusedFile()}`)
    return {dropped: item}
  }
}
