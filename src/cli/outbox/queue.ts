/**
 * @module The outbox file (docs/cli.md, "Offline writes"): lowdb over an adapter that writes atomically (a 0600
 * file written aside, fsynced, renamed over), every read-change-write under a lock, so kb processes running at
 * once never lose each other's items. The file exists only while it holds items. One that cannot be read is
 * moved aside, never overwritten, and reported. Imported only when something is queued or waits.
 */
import {chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {type Adapter, Low} from 'lowdb'
import {KbError} from '../../shared/errors.js'
import {withLock} from './lock.js'
import {appendRefused} from './refused.js'
import {OUTBOX_PREFIX, outboxFile, stateDir, type OutboxItem} from './state.js'

interface OutboxData {
  version: 1
  items: OutboxItem[]
}

/** How long a process waits for another's short read-change-write of the file. */
const QUEUE_LOCK_WAIT_MS = 10_000
const CORRUPT_SUFFIX = '.corrupt-'

/** lowdb's adapter for a private file: mode 0600, written aside and renamed, so a crash leaves the old or the new file whole. */
class PrivateJsonFile implements Adapter<OutboxData> {
  constructor(private readonly path: string) {}

  async read(): Promise<OutboxData | null> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw e
    }
    const data = JSON.parse(text) as OutboxData
    if (data?.version !== 1 || !Array.isArray(data.items) || !data.items.every(isItem))
      throw new SyntaxError('not an outbox (version 1 with items)')
    return data
  }

  async write(data: OutboxData): Promise<void> {
    mkdirSync(dirname(this.path), {recursive: true, mode: 0o700})
    const aside = `${this.path}.${process.pid}.tmp`
    const fd = openSync(aside, 'w', 0o600)
    try {
      writeSync(fd, `${JSON.stringify(data, null, 2)}\n`)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    chmodSync(aside, 0o600)
    renameSync(aside, this.path)
  }
}

function isItem(v: unknown): v is OutboxItem {
  const i = v as OutboxItem
  return (
    typeof i === 'object' &&
    i !== null &&
    typeof i.key === 'string' &&
    typeof i.base_url === 'string' &&
    typeof i.command === 'string' &&
    typeof i.queued_at === 'string' &&
    (i.request === undefined || (typeof i.request === 'object' && typeof i.request?.path === 'string'))
  )
}

export interface OutboxOptions {
  env?: NodeJS.ProcessEnv
  /** Told once for each unreadable file moved aside. */
  onSetAside?: (path: string, why: string) => void
}

/** One server's queue (state.ts `outboxFile`). */
export class Outbox {
  private readonly queueLock: string
  private readonly sendLock: string

  constructor(
    readonly file: string,
    private readonly options: OutboxOptions = {},
  ) {
    this.queueLock = `${file}.lock`
    this.sendLock = `${file}.send.lock`
  }

  static forServer(baseUrl: string, options: OutboxOptions = {}): Outbox {
    return new Outbox(outboxFile(baseUrl, options.env), options)
  }

  /** The queue of every server something waits for. */
  static every(options: OutboxOptions = {}): Outbox[] {
    const dir = stateDir(options.env)
    return listDir(dir)
      .filter((n) => n.startsWith(OUTBOX_PREFIX) && n.endsWith('.json'))
      .sort()
      .map((n) => new Outbox(join(dir, n), options))
  }

  /** Queue files that could not be read, set aside with their contents, oldest first. */
  static setAside(env?: NodeJS.ProcessEnv): string[] {
    const dir = stateDir(env)
    return listDir(dir)
      .filter((n) => n.startsWith(OUTBOX_PREFIX) && n.includes(`.json${CORRUPT_SUFFIX}`))
      .sort()
      .map((n) => join(dir, n))
  }

  /** Runs `change` on the items under the file lock and saves what it leaves (no file when nothing is left). */
  private async change<T>(change: (items: OutboxItem[]) => T): Promise<T> {
    const outcome = await withLock(this.queueLock, QUEUE_LOCK_WAIT_MS, async () => {
      const db = new Low<OutboxData>(new PrivateJsonFile(this.file), {version: 1, items: []})
      try {
        await db.read()
      } catch (e) {
        this.setAside(e)
      }
      const before = JSON.stringify(db.data.items)
      const value = change(db.data.items)
      if (db.data.items.length === 0) rmSync(this.file, {force: true})
      else if (JSON.stringify(db.data.items) !== before) await db.write()
      return value
    })
    if (!outcome.ran) throw new KbError('unavailable', `another kb process holds ${this.queueLock}; try again in a moment`)
    return outcome.value
  }

  /** An unreadable file is renamed, never overwritten or deleted: its requests stay for a person to look at. */
  private setAside(e: unknown): void {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-')
    const aside = `${this.file}${CORRUPT_SUFFIX}${stamp}`
    renameSync(this.file, aside)
    this.options.onSetAside?.(aside, e instanceof Error ? e.message : String(e))
  }

  /** Adds an item at the end; returns how many wait for its server now. */
  async append(item: OutboxItem): Promise<number> {
    return this.change((items) => {
      items.push(item)
      return items.filter((i) => i.base_url === item.base_url).length
    })
  }

  /** Everything waiting, oldest first. */
  async items(): Promise<OutboxItem[]> {
    return this.change((items) => structuredClone(items))
  }

  /** Changes one item in place (the first send settles it; each attempt is counted); false when it is gone. */
  async update(key: string, fn: (item: OutboxItem) => void): Promise<boolean> {
    return this.change((items) => {
      const item = items.find((i) => i.key === key)
      if (item) fn(item)
      return item !== undefined
    })
  }

  async remove(key: string): Promise<void> {
    await this.change((items) => {
      const at = items.findIndex((i) => i.key === key)
      if (at !== -1) items.splice(at, 1)
    })
  }

  /** Takes an item off the queue into the refused file, with why: the server said no, or a person dropped it. */
  async refuse(item: OutboxItem, why: {code: string; message: string}): Promise<void> {
    await appendRefused({refused_at: new Date().toISOString(), ...why, item}, this.options.env)
    await this.remove(item.key)
  }

  /** Runs a sending pass holding the send lock, so two processes never send the same item at once; null if busy past `waitMs`. */
  async sending<T>(waitMs: number, fn: () => Promise<T>): Promise<T | null> {
    const outcome = await withLock(this.sendLock, waitMs, fn)
    return outcome.ran ? outcome.value : null
  }
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}
