/**
 * @module Sending the outbox (docs/cli.md, "kb sync"): a server's items in the order they were queued, each under
 * its own Idempotency-Key, so a request that did arrive before (its answer lost to a timeout) is answered, not
 * done again. One process sends at a time (the send lock). A queued edit whose entry changed meanwhile is merged
 * into it field by field; only a true conflict makes a fork with the edit applied and a comment on the original
 * pointing at it: never dropped, never overwriting.
 */
import {KbError} from '../../shared/errors.js'
import {writeRequests, type ApiClient, type ApiResponse} from '../../shared/client.js'
import type {EntryFull} from '../../shared/types.js'
import {resolveProjectId} from '../project/project.js'
import {mergeEdit, type EditBase, type MergeOutcome} from '../merge/three-way.js'
import {patchFor} from './edit-intent.js'
import type {Outbox} from './queue.js'
import {isUnreachable, type OutboxItem} from './state.js'

type SyncOutcome =
  /** Done; `replayed`: an earlier attempt had arrived, and this is its answer. */
  | {status: 'sent'; replayed: boolean; id: string | null}
  /** An edit that changed a field also changed meanwhile, applied to a new fork instead. */
  | {status: 'forked'; fork_id: string}
  /** Refused by the server (e.g. the entry is gone): reported, and moved from the queue to the refused file. */
  | {status: 'refused'; code: string; message: string}
  /** Not sent now (unreachable, still running on the server, credential refused): kept, and nothing after it goes first. */
  | {status: 'waiting'; code: string; message: string}
  /** Queued under another credential (another principal): not sent under this one; kept, and listed. */
  | {status: 'held'; code: 'other_principal'; message: string}

export type SyncItemReport = Pick<OutboxItem, 'key' | 'command' | 'label' | 'queued_at'> & SyncOutcome

export interface SyncReport {
  base_url: string
  items: SyncItemReport[]
  /** How many still wait for this server. */
  remaining: number
  /** Another process was sending and did not finish within the wait. */
  busy: boolean
  /** The time budget ran out before the queue did (background sending). */
  out_of_time: boolean
}

export interface SyncOptions {
  /** Wait this long for another process's send to end. */
  lockWaitMs: number
  /** Stop starting new items at this time (ms since the epoch). */
  deadline?: number
  /** Per request; by default the client's own. */
  timeoutMs?: number
  onItem?: (r: SyncItemReport) => void
  /** The tag of the credential sending (principal.ts): an item queued under another one is held, not sent. */
  principal: string
}

/** Errors after which the item stays and the pass stops: nothing is wrong with the item itself. */
const WAIT_CODES = new Set(['idempotency_key_in_use', 'unauthenticated', 'rate_limited', 'internal', 'usage'])

const sameServer = (a: string, b: string): boolean => a.replace(/\/+$/, '') === b.replace(/\/+$/, '')

export async function sendQueued(outbox: Outbox, client: ApiClient, o: SyncOptions): Promise<SyncReport> {
  const report: SyncReport = {base_url: client.baseUrl, items: [], remaining: 0, busy: false, out_of_time: false}
  const ran = await outbox.sending(o.lockWaitMs, async () => {
    const items = (await outbox.items()).filter((i) => sameServer(i.base_url, client.baseUrl))
    for (const [at, item] of items.entries()) {
      if (o.deadline !== undefined && Date.now() >= o.deadline) {
        report.out_of_time = true
        break
      }
      if (item.principal !== undefined && item.principal !== o.principal) {
        const message =
          'queued under another credential: sent only by `kb sync` with the credential that queued it (or taken off with `kb sync --drop`)'
        const held: SyncItemReport = {
          key: item.key,
          command: item.command,
          label: item.label,
          queued_at: item.queued_at,
          status: 'held',
          code: 'other_principal',
          message,
        }
        report.items.push(held)
        o.onItem?.(held)
        continue
      }
      const timeoutMs = o.deadline === undefined ? o.timeoutMs : Math.max(250, Math.min(o.timeoutMs ?? Infinity, o.deadline - Date.now()))
      const {outcome, version} = await sendOne(outbox, client, item, timeoutMs)
      if (outcome.status === 'sent' || outcome.status === 'forked')
        await rebaseLaterEdits(outbox, client, item, items.slice(at + 1), version)
      const line: SyncItemReport = {key: item.key, command: item.command, label: item.label, queued_at: item.queued_at, ...outcome}
      report.items.push(line)
      o.onItem?.(line)
      if (outcome.status === 'waiting') {
        await outbox.update(item.key, (i) => {
          i.attempts += 1
          i.last_error = outcome.message
        })
        break
      }
      if (outcome.status === 'refused') await outbox.refuse(item, {code: outcome.code, message: outcome.message})
      else await outbox.remove(item.key)
    }
  })
  report.busy = ran === null
  report.remaining = (await outbox.items()).filter((i) => sameServer(i.base_url, client.baseUrl)).length
  return report
}

/** The entry an item changes (null for `add`): the edit's, or the one its path names. */
function entryOf(item: OutboxItem): string | null {
  if (item.edit) return item.edit.entry_id
  const m = /^\/knowledge\/([^/]+)\/[a-z]+$/.exec(item.request?.path ?? '')
  return m ? decodeURIComponent(m[1]!) : null
}

/**
 * Our own queued writes are no change "made meanwhile": once one has changed an entry, the edits of it queued
 * after it and not yet settled are based on the version it left (taken from its answer, else read).
 */
async function rebaseLaterEdits(
  outbox: Outbox,
  client: ApiClient,
  item: OutboxItem,
  later: OutboxItem[],
  version: number | undefined,
): Promise<void> {
  const id = entryOf(item)
  const edits = later.filter((i) => i.edit && !i.request && !i.edit.conflict && i.edit.entry_id === id)
  if (id === null || edits.length === 0) return
  let v = version
  if (v === undefined) {
    try {
      const m = /\d+/.exec((await client.getEntry(id, 'summary')).etag ?? '')
      if (!m) return
      v = Number(m[0])
    } catch {
      return // then they are settled by time when sent
    }
  }
  for (const e of edits) {
    e.edit!.version = v
    await outbox.update(e.key, (i) => void (i.edit!.version = v))
  }
}

async function sendOne(
  outbox: Outbox,
  client: ApiClient,
  item: OutboxItem,
  timeoutMs: number | undefined,
): Promise<{outcome: SyncOutcome; version?: number}> {
  const persist = (): Promise<boolean> =>
    outbox.update(item.key, (i) => {
      if (item.request) i.request = item.request
      else delete i.request // an edit to settle again
      if (item.request_key) i.request_key = item.request_key
      if (item.edit) i.edit = item.edit
      delete i.project_ref
    })
  try {
    if (item.edit) return await sendEdit(client, item, persist, timeoutMs)
    if (!item.request) throw new KbError('usage', 'the queued item has no request to send')
    if (item.project_ref) {
      // Settled once, before the first send: every attempt must carry the same body.
      const body = item.request.body as Record<string, unknown>
      const projectId = await resolveProjectId(item.project_ref, client, client.baseUrl)
      item.request = {...item.request, body: projectId ? {...body, project_id: projectId} : body}
      await persist()
      delete item.project_ref
    }
    const res = await client.write<{id?: unknown; version?: unknown}>(item.request, {
      idempotencyKey: item.key,
      ...(timeoutMs ? {timeoutMs} : {}),
    })
    return sent(res, entryOf(item))
  } catch (e) {
    if (isUnreachable(e) || !(e instanceof KbError) || WAIT_CODES.has(e.code)) {
      return {
        outcome: {status: 'waiting', code: e instanceof KbError ? e.code : 'error', message: e instanceof Error ? e.message : String(e)},
      }
    }
    return {outcome: {status: 'refused', code: e.code, message: e.message}}
  }
}

/** A 2xx answer: what it made, and the version it left `target` at when the answer is that entry. */
function sent(res: ApiResponse<{id?: unknown; version?: unknown}>, target: string | null): {outcome: SyncOutcome; version?: number} {
  const id = typeof res.body?.id === 'string' ? res.body.id : null
  const outcome: SyncOutcome = {status: 'sent', replayed: res.headers['idempotent-replayed'] === 'true', id}
  return typeof res.body?.version === 'number' && id === target ? {outcome, version: res.body.version} : {outcome}
}

/**
 * An edit: settled against the entry on its first send (docs/cli.md, "Edits that meet other changes"): if the entry
 * changed after the edit was made, the edit is merged into the newest version field by field (tags as sets), and a
 * stale version when the PATCH lands (412) is merged again the same way. Only a field changed on both sides to
 * different values sends the edit to a fork instead.
 */
async function sendEdit(
  client: ApiClient,
  item: OutboxItem,
  persist: () => Promise<boolean>,
  timeoutMs: number | undefined,
): Promise<{outcome: SyncOutcome; version?: number}> {
  const intent = item.edit!
  const t = timeoutMs ? {timeoutMs} : {}
  for (let round = 0; !intent.conflict; round++) {
    if (!item.request) {
      const current = (await client.getEntry(intent.entry_id, 'full')).entry as EntryFull
      const merged = await settle(client, item, current)
      if (merged.conflicts.length > 0) intent.conflict = true
      else {
        item.request = writeRequests.patchEntry(intent.entry_id, merged.patch, `"${current.version}"`)
        // Each settling under a key of its own: the server keeps the answer (a 412 too) under the one before.
        if (round > 0 || item.request_key) item.request_key = `${item.key}.v${current.version}`
      }
      await persist()
      if (intent.conflict) break
    }
    try {
      return sent(await client.write<EntryFull>(item.request!, {idempotencyKey: item.request_key ?? item.key, ...t}), intent.entry_id)
    } catch (e) {
      if (!(e instanceof KbError && e.code === 'precondition_failed') || round >= MERGE_ROUNDS) throw e
      delete item.request // changed again while being sent: merged again onto the newest version
    }
  }
  return forkEdit(client, item, t)
}

/** Others writing the entry again and again as it is sent: after this many merges the edit waits for the next pass. */
const MERGE_ROUNDS = 3

/** The edit against `current`: as asked when nothing changed meanwhile, else merged (three-way, per field). */
async function settle(client: ApiClient, item: OutboxItem, current: EntryFull): Promise<MergeOutcome> {
  const intent = item.edit!
  const mine = patchFor(current, intent)
  // Without a version to go by (made without reading the entry), a change the server has from after the edit was made is one the edit did not see.
  const changed = intent.version === undefined ? current.updated_at > item.queued_at : current.version !== intent.version
  if (!changed) return {patch: mine, conflicts: []}
  // Tags and anchors added or removed were applied to the newest ones already: as sets, they never conflict.
  const base: EditBase = {...intent.base}
  if (!intent.set.tags && (intent.add_tags || intent.remove_tags)) base.tags = current.tags
  if (!intent.set.anchors && (intent.add_anchors || intent.remove_anchors)) base.anchors = current.anchors
  const unknown = Object.keys(mine).filter((f) => !(f in base))
  // A field whose value when the edit was made is unknown: changed meanwhile if the history says so since then.
  const changedMeanwhile =
    unknown.length === 0
      ? new Set<string>()
      : intent.version === undefined
        ? await changedSince(client, intent.entry_id, item.queued_at)
        : new Set(unknown)
  return mergeEdit({base, mine, theirs: current, changedMeanwhile})
}

/** The fields the entry's history says were changed after `since`. */
async function changedSince(client: ApiClient, id: string, since: string): Promise<Set<string>> {
  const fields = new Set<string>()
  let cursor: string | null = null
  do {
    const page = await client.history(id, cursor)
    for (const r of page.items) {
      if (r.at <= since) continue
      for (const f of Object.keys(r.changes ?? {})) fields.add(f)
      if (r.action === 'resolved' || r.action === 'reopened') fields.add('status')
    }
    cursor = page.next_cursor
  } while (cursor)
  return fields
}

/** A true conflict: the edit goes to a new fork, and a comment on the original points at it. */
async function forkEdit(client: ApiClient, item: OutboxItem, t: {timeoutMs?: number}): Promise<{outcome: SyncOutcome}> {
  const intent = item.edit!
  // Each step under a key of its own, derived from the item's: a pass cut short and run again repeats none of them.
  const fork = (await client.write<EntryFull>(writeRequests.fork(intent.entry_id, {}), {idempotencyKey: `${item.key}.fork`, ...t})).body
  await client.write(writeRequests.patchEntry(fork.id, patchFor(fork, intent), `"${fork.version}"`), {
    idempotencyKey: `${item.key}.fork-edit`,
    ...t,
  })
  const note = `An edit made while this server was out of reach (queued ${item.queued_at}) changed a field that was also changed here meanwhile, so it was applied to a fork instead of overwriting: ${fork.id}`
  await client.write(writeRequests.comment(intent.entry_id, {body: note, type: 'note'}), {idempotencyKey: `${item.key}.fork-note`, ...t})
  return {outcome: {status: 'forked', fork_id: fork.id}}
}
