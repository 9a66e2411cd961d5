/**
 * @module An import's lines validated on a worker thread (line-worker.ts), so that parsing, checking and summarising
 * them — a third of a large import's CPU, most of it counting tokens for the summary — runs on another core while the
 * event loop serves requests and spools what the worker has checked (docs/api.md, "Import"). One thread for the
 * daemon, started by the first import that needs it, shared by concurrent imports (each batch answered in turn) and
 * ended with the last; the verdicts are validateLine's own, so a line is refused with the same reason either way. A
 * thread that stops fails the imports it was serving with a problem (nothing of theirs is written yet) and is replaced
 * on the next import.
 */
import {Worker} from 'node:worker_threads'
import {KbError} from '../../../src/shared/errors.js'
import {workerFile} from '../../lib/worker-file.js'
import type {ImportedEntry} from '../../store/rows.js'
import type {ImportRecord} from '../../store/transfer-store.js'
import type {Caller} from '../context.js'
import type {SensitiveChoice} from '../sensitive.js'
import type {ImportContext} from './import-lines.js'

/** A message to the thread. */
export type LineJob =
  | {kind: 'open'; id: number; caller: Caller; seen: string[]; alias: string | null; sensitive: SensitiveChoice; ackKey: string}
  | {kind: 'lines'; id: number; first: number; texts: Array<string | null>}
  | {kind: 'close'; id: number}

/**
 * What the thread says of one line: its record, its refusal, a failure of the code (a 500), or nothing (no text sent).
 * An entry's record comes with what clearImported made of it (the entry cleared for its audience, or the refusal),
 * used unless the entry is stored here as the file has it (then it is skipped unscanned).
 */
export type LineVerdict = {record: ImportRecord; cleared?: ImportedEntry | string} | {reason: string} | {fault: string} | null

type Waiter = {resolve: (v: LineVerdict[]) => void; reject: (e: unknown) => void}

const FILE = workerFile(import.meta.url, 'server/services/transfer', 'line-worker.js')

let worker: Worker | null = null
let nextId = 0
/** Per open import, the batches sent and not yet answered, in order. */
const waiting = new Map<number, Waiter[]>()

function theWorker(): Worker {
  if (worker) return worker
  const w = new Worker(FILE!)
  w.unref()
  w.on('message', (m: {id: number; verdicts: LineVerdict[]}) => waiting.get(m.id)?.shift()?.resolve(m.verdicts))
  const fail = (cause: unknown): void => {
    if (worker !== w) return
    worker = null
    const e = new KbError(
      'unavailable',
      'the import stopped: the thread validating its lines failed; nothing was written, import it again',
      {
        cause,
      },
    )
    for (const queue of waiting.values()) for (const waiter of queue.splice(0)) waiter.reject(e)
  }
  w.on('error', fail)
  w.on('exit', (code) => fail(new Error(`the line worker exited (${code})`)))
  worker = w
  return w
}

/**
 * Stops the thread as a crash would (a test's way to fail it): the imports it serves answer a problem and write nothing,
 * the next import starts another. False when no thread was running.
 */
export async function stopLineWorker(): Promise<boolean> {
  const w = worker
  if (!w) return false
  await w.terminate()
  return true
}

/** One import's side of the thread: batches of lines sent in order, their verdicts received in the same order. */
export class OffThreadLines {
  private readonly id = nextId++
  private readonly worker: Worker
  private closed = false

  private constructor(ctx: ImportContext, sensitive: SensitiveChoice, ackKey: string) {
    this.worker = theWorker()
    waiting.set(this.id, [])
    this.worker.ref()
    const caller: Caller = {principal: ctx.caller.principal, credential: ctx.caller.credential}
    this.post({kind: 'open', id: this.id, caller, seen: [...ctx.seen], alias: ctx.alias, sensitive, ackKey})
  }

  /**
   * The lines after the header go to the thread from `ctx` on (what the earlier lines said), cleared for their audience
   * as `sensitive` asks with the server's acknowledgement key (ack-signature.ts); null when the thread cannot run.
   */
  static open(ctx: ImportContext, sensitive: SensitiveChoice, ackKey: string): OffThreadLines | null {
    return FILE ? new OffThreadLines(ctx, sensitive, ackKey) : null
  }

  /** The verdicts of lines `first`, `first + 1`, …; a null text is not sent (the line was refused or blank already). */
  validate(first: number, texts: Array<string | null>): Promise<LineVerdict[]> {
    return new Promise((resolve, reject) => {
      const queue = waiting.get(this.id)
      if (!queue || this.worker !== worker) {
        reject(
          new KbError('unavailable', 'the import stopped: the thread validating its lines failed; nothing was written, import it again'),
        )
        return
      }
      queue.push({resolve, reject})
      this.post({kind: 'lines', id: this.id, first, texts})
    })
  }

  /**
   * Forgets the import on the thread; the last import using it ends it, so that the tokenizer and scanner it loaded do
   * not stay in the daemon's memory between imports (the next one starts another, in about a tenth of a second).
   */
  close(): void {
    if (this.closed) return
    this.closed = true
    waiting.delete(this.id)
    if (this.worker !== worker) return
    if (waiting.size > 0) this.post({kind: 'close', id: this.id})
    else {
      worker = null
      void this.worker.terminate()
    }
  }

  private post(job: LineJob): void {
    this.worker.postMessage(job)
  }
}
