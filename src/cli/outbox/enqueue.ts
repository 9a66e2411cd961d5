/**
 * @module A write kept in the outbox when the server cannot be reached (docs/cli.md, "Offline writes"): the
 * item with its Idempotency-Key, appended, and one line saying so. lowdb loads only here and in sync.
 */
import type {KbError} from '../../shared/errors.js'
import {oneLine} from '../output/format.js'
import type {CredentialLike} from './principal.js'
import type {OutboxOptions} from './queue.js'
import type {OutboxItem, QueuedWrite} from './state.js'
import {shortIds} from '../../shared/short-id.js'

/** What a write command hands `write`: the request (or, for an edit, what to settle later) and how to name it. */
export type WriteDraft = Pick<OutboxItem, 'command' | 'label' | 'request' | 'project_ref' | 'edit'>

export async function enqueueWrite(
  draft: WriteDraft,
  because: KbError,
  key: string,
  o: {
    baseUrl: string
    outbox: OutboxOptions
    /** one line on stderr (not for the git hook or --json) */ announce: boolean
    /** The credential the write would have been sent with. */
    credential: CredentialLike | undefined
  },
): Promise<QueuedWrite> {
  const [{Outbox}, {principalTag}] = await Promise.all([import('./queue.js'), import('./principal.js')])
  const item: OutboxItem = {
    key,
    base_url: o.baseUrl,
    queued_at: new Date().toISOString(),
    ...stripUndefined(draft),
    attempts: 1,
    last_error: because.message,
    principal: principalTag(o.credential),
  }
  const waiting = await Outbox.forServer(o.baseUrl, o.outbox).append(item)
  if (o.announce) {
    const why = oneLine(because.message.split(';')[0]!)
    process.stderr.write(`kb: queued ${item.command} "${oneLine(shortIds(item.label))}" for \`kb sync\` (${waiting} waiting): ${why}\n`)
  }
  return {
    queued: true,
    key,
    command: item.command,
    label: item.label,
    base_url: item.base_url,
    queued_at: item.queued_at,
    reason: because.message,
    waiting,
  }
}

/** The draft without its unset fields, so the outbox file holds only what an item has. */
function stripUndefined(draft: WriteDraft): WriteDraft {
  return Object.fromEntries(Object.entries(draft).filter(([, v]) => v !== undefined)) as WriteDraft
}
