/**
 * @module The refused writes (docs/cli.md, "Offline writes"): `outbox-refused.jsonl` read back as a numbered list for
 * `kb sync --refused`, and one taken out of it to be queued again by `kb sync --retry <n>`. Changes of the file are
 * made under a lock of its own, written aside and renamed over, so a write refused meanwhile is never lost.
 */
import {randomUUID} from 'node:crypto'
import {appendFileSync, chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {dirname} from 'node:path'
import {KbError} from '../../shared/errors.js'
import {withLock} from './lock.js'
import {refusedFile, type OutboxItem} from './state.js'

export interface RefusedWrite {
  /** Its place in the list (1 = the oldest), as `--retry` takes it. */
  n: number
  refused_at: string
  /** The server's error code, or `dropped` (`kb sync --drop`). */
  code: string
  message: string
  item: OutboxItem
}

const LOCK_WAIT_MS = 10_000

function lines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw e
  }
}

function parse(line: string, n: number): RefusedWrite | null {
  try {
    const r = JSON.parse(line) as Omit<RefusedWrite, 'n'>
    return r && typeof r.item?.key === 'string' ? {n, refused_at: r.refused_at, code: r.code, message: r.message, item: r.item} : null
  } catch {
    return null // a line damaged by hand is left in the file, and skipped here
  }
}

/** Every refused write, oldest first, numbered from 1. */
export function readRefused(env: NodeJS.ProcessEnv = process.env): RefusedWrite[] {
  return lines(refusedFile(env))
    .map((l, i) => parse(l, i + 1))
    .filter((r): r is RefusedWrite => r !== null)
}

/** Appends a refused write (what the queue does when the server says no). */
export async function appendRefused(record: Omit<RefusedWrite, 'n'>, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const file = refusedFile(env)
  mkdirSync(dirname(file), {recursive: true, mode: 0o700})
  await locked(file, async () => appendFileSync(file, `${JSON.stringify(record)}\n`, {mode: 0o600}))
}

/**
 * Takes write `n` out of the refused file and returns it made ready to be queued again: a write the server refused
 * gets a new Idempotency-Key (the old one would be answered with the refusal kept under it), a dropped one keeps its
 * own (it may have arrived before it was dropped); an edit is settled again against the entry as it is then.
 */
export async function takeRefused(n: number, env: NodeJS.ProcessEnv = process.env): Promise<RefusedWrite> {
  const file = refusedFile(env)
  return locked(file, async () => {
    const all = lines(file)
    const found = Number.isInteger(n) && n >= 1 && n <= all.length ? parse(all[n - 1]!, n) : null
    if (!found) {
      throw new KbError(
        'usage',
        `no refused write number ${n} (\`kb sync --refused\` lists ${all.length === 0 ? 'none' : `1–${all.length}`})`,
      )
    }
    const aside = `${file}.${process.pid}.tmp`
    const rest = all.filter((_, i) => i !== n - 1)
    writeFileSync(aside, rest.map((l) => `${l}\n`).join(''), {mode: 0o600})
    chmodSync(aside, 0o600)
    renameSync(aside, file)
    const item: OutboxItem = {...found.item, attempts: 0, queued_at: new Date().toISOString()}
    if (found.code !== 'dropped') item.key = randomUUID()
    delete item.last_error
    if (item.edit) {
      delete item.request
      delete item.request_key
      delete item.edit.conflict
    }
    return {...found, item}
  })
}

async function locked<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const outcome = await withLock(`${file}.lock`, LOCK_WAIT_MS, fn)
  if (!outcome.ran) throw new KbError('unavailable', `another kb process holds ${file}.lock; try again in a moment`)
  return outcome.value
}
