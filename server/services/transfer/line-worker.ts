/**
 * @module The thread an import's lines are validated on (off-thread-lines.ts; docs/api.md, "Import"): each message
 * opens an import's context, brings a batch of its lines, or closes it; each batch is answered, in order, with
 * one verdict per line — the normalised record, or the reason it was refused — as validateLine gives them, and each
 * entry cleared for its audience as clearImported would clear it on the event loop (the scan for secrets).
 */
import {parentPort} from 'node:worker_threads'
import {clearImported} from '../safe-publish.js'
import type {SensitiveChoice} from '../sensitive.js'
import {type ImportContext, LineError, validateLine} from './import-lines.js'
import type {LineJob, LineVerdict} from './off-thread-lines.js'

interface Open {
  ctx: ImportContext
  sensitive: SensitiveChoice
  /** What clearImported reads of the store: the acknowledgement key, given by the event loop. */
  secrets: {serverSecret: (name: string) => Promise<string>}
}

const imports = new Map<number, Open>()

/** One line's verdict; an entry cleared too. */
async function verdict(open: Open, lineNo: number, text: string): Promise<LineVerdict> {
  try {
    const record = validateLine(open.ctx, lineNo, text) as Extract<LineVerdict, {record: unknown}>['record']
    if (record.kind !== 'entry') return {record}
    return {record, cleared: await clearImported(record.entry, open.sensitive, open.ctx.caller, open.secrets)}
  } catch (e) {
    return e instanceof LineError ? {reason: e.message} : {fault: e instanceof Error ? (e.stack ?? e.message) : String(e)}
  }
}

async function handle(job: LineJob): Promise<void> {
  if (job.kind === 'open') {
    const key = Promise.resolve(job.ackKey)
    imports.set(job.id, {
      ctx: {caller: job.caller, headerSeen: true, seen: new Set(job.seen), alias: job.alias},
      sensitive: job.sensitive,
      secrets: {serverSecret: () => key},
    })
    return
  }
  if (job.kind === 'close') {
    imports.delete(job.id)
    return
  }
  const open = imports.get(job.id)
  const verdicts: LineVerdict[] = []
  for (const [i, text] of job.texts.entries()) {
    if (text === null) verdicts.push(null)
    else verdicts.push(open ? await verdict(open, job.first + i, text) : {fault: `import ${job.id} is not open`})
  }
  parentPort!.postMessage({id: job.id, verdicts})
}

// One message at a time, in order: clearing an entry awaits (a long text is scanned on a thread of its own).
let queue = Promise.resolve()
parentPort?.on('message', (job: LineJob) => {
  queue = queue.then(() => handle(job))
})
