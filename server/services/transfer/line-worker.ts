/**
 * @module The thread an import's lines are validated on (off-thread-lines.ts; docs/api.md, "Import"): each message
 * opens an import's context, brings a batch of its lines, or closes it; each batch is answered, in order, with
 * one verdict per line — the normalised record, or the reason it was refused — as validateLine gives them.
 */
import {parentPort} from 'node:worker_threads'
import {type ImportContext, LineError, validateLine} from './import-lines.js'
import type {LineJob, LineVerdict} from './off-thread-lines.js'

const contexts = new Map<number, ImportContext>()

parentPort?.on('message', (job: LineJob) => {
  if (job.kind === 'open') {
    contexts.set(job.id, {caller: job.caller, headerSeen: true, seen: new Set(job.seen), alias: job.alias})
    return
  }
  if (job.kind === 'close') {
    contexts.delete(job.id)
    return
  }
  const ctx = contexts.get(job.id)
  const verdicts = job.texts.map((text, i): LineVerdict => {
    if (text === null) return null
    if (!ctx) return {fault: `import ${job.id} is not open`}
    try {
      return {record: validateLine(ctx, job.first + i, text) as Extract<LineVerdict, {record: unknown}>['record']}
    } catch (e) {
      return e instanceof LineError ? {reason: e.message} : {fault: e instanceof Error ? (e.stack ?? e.message) : String(e)}
    }
  })
  parentPort!.postMessage({id: job.id, verdicts})
})
