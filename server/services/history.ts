/**
 * @module The history of an entry (docs/api.md, "History"): who changed it, through what, and what changed, as
 * records the write paths hand the store to write in the change's own transaction; and reading them back.
 */
import {HISTORY_LIMIT} from '../../src/shared/contract.js'
import type {HistoryItem, HistoryPage} from '../../src/shared/curation-schemas.js'
import {nowIso, uuidv7} from '../lib/ids.js'
import type {HistoryRow} from '../store/history-store.js'
import type {EntryChanges, EntryRow, Store} from '../store/store.js'
import type {Caller} from './context.js'
import {decodeCursor, encodeCursor} from './cursor.js'
import type {KnowledgeService} from './knowledge.js'
import type {Tally} from './safe-publish.js'

/** Who acts, as a history record names them. */
export type Actor = Pick<HistoryRow, 'actor_id' | 'actor_name' | 'via' | 'client'>

/** The caller as history names it: `via` the client's word (MCP, hook) else the credential's kind; `client` the key's or OAuth client's name. */
export async function actorOf(store: Store, caller: Caller): Promise<Actor> {
  const c = caller.credential
  let client: string | null = c.name ?? null
  if (c.kind === 'oauth' && c.clientId) {
    const registered = await store.oauth.getClient(c.clientId)
    client = registered?.metadata.client_name ?? c.clientId
  }
  return {actor_id: caller.principal.id, actor_name: caller.principal.name, via: caller.via ?? c.kind, client}
}

let lastMs = 0
let counter = 0

/**
 * A uuidv7 whose 12 `rand_a` bits count the records made in one millisecond by this process: records of one change
 * share their `at`, and the history lists them (at, id) in the order they were made.
 */
function historyId(now = Date.now()): string {
  counter = now === lastMs ? counter + 1 : 0
  lastMs = now
  const id = uuidv7(now)
  return id.slice(0, 15) + (counter & 0xfff).toString(16).padStart(3, '0') + id.slice(18)
}

/** One record of `action` on entry `entryId`. */
export function record(
  actor: Actor,
  entryId: string,
  action: HistoryRow['action'],
  changes: Record<string, string> = {},
  note: string | null = null,
  at = nowIso(),
): HistoryRow {
  return {id: historyId(), entry_id: entryId, at, action, ...actor, changes, note}
}

/** Lines added and removed between two texts, as `+N/−M lines` (a multiset difference of lines: bounded, linear). */
function lineDelta(before: string, after: string): string {
  const count = new Map<string, number>()
  for (const l of before.split('\n')) count.set(l, (count.get(l) ?? 0) + 1)
  let added = 0
  for (const l of after.split('\n')) {
    const n = count.get(l) ?? 0
    if (n > 0) count.set(l, n - 1)
    else added++
  }
  let removed = 0
  for (const n of count.values()) removed += n
  return `+${added}/−${removed} lines`
}

/** The fields an edit changes, each described briefly: never the old or new text itself. */
export function describeChanges(current: EntryRow, changes: EntryChanges): Record<string, string> {
  const out: Record<string, string> = {}
  const same = (k: keyof EntryChanges): boolean =>
    JSON.stringify(changes[k]) === JSON.stringify((current as unknown as Record<string, unknown>)[k])
  if (changes.title !== undefined && !same('title')) out.title = 'changed'
  if (changes.body !== undefined && !same('body')) out.body = lineDelta(current.body, changes.body)
  if (changes.tags !== undefined && !same('tags')) {
    const added = changes.tags.filter((t) => !current.tags.includes(t))
    const removed = current.tags.filter((t) => !changes.tags!.includes(t))
    out.tags = [...added.map((t) => `+${t}`), ...removed.map((t) => `−${t}`)].join(' ')
  }
  if (changes.url !== undefined && !same('url')) out.url = changes.url === null ? 'removed' : 'changed'
  if (changes.thought_chain !== undefined && !same('thought_chain')) out.thought_chain = `${changes.thought_chain.length} steps`
  if (changes.anchors !== undefined && !same('anchors')) out.anchors = `${changes.anchors.length} anchors`
  if (changes.scope !== undefined && changes.scope !== current.scope) out.scope = `${current.scope} → ${changes.scope}`
  if (changes.status !== undefined && changes.status !== current.status) out.status = `${current.status} → ${changes.status}`
  return out
}

/** The records of what a clearance did (docs/api.md, "Safe publish"): counts per field, never the removed text. */
export function clearanceRecords(actor: Actor, entryId: string, tally: Tally, at?: string): HistoryRow[] {
  const out: HistoryRow[] = []
  const fields = Object.entries(tally.redacted)
  if (fields.length > 0) {
    const changes = Object.fromEntries(fields.map(([f, n]) => [f, `${n} finding${n === 1 ? '' : 's'} redacted`]))
    out.push(record(actor, entryId, 'redacted', changes, null, at))
  }
  if (tally.acknowledged > 0) {
    out.push(record(actor, entryId, 'findings_acknowledged', {findings: String(tally.acknowledged)}, null, at))
  }
  return out
}

export class HistoryService {
  constructor(
    private readonly store: Store,
    private readonly knowledge: KnowledgeService,
  ) {}

  /** Whoever can see the entry can read its history, oldest first. */
  async list(caller: Caller, id: string, q: {cursor?: string; limit?: number}): Promise<HistoryPage> {
    const e = await this.knowledge.visible(caller, id)
    const limit = q.limit ?? HISTORY_LIMIT.default
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor)
    const rows = await this.store.history.list(e.id, {limit: limit + 1, ...(after ? {after} : {})})
    const items = rows.slice(0, limit)
    const last = items.at(-1)
    return {items: items.map(itemOf), next_cursor: rows.length > limit && last ? encodeCursor({at: last.at, id: last.id}) : null}
  }
}

function itemOf(r: HistoryRow): HistoryItem {
  return {
    at: r.at,
    action: r.action,
    actor: {id: r.actor_id, name: r.actor_name, via: r.via, client: r.client},
    changes: r.changes,
    note: r.note,
  }
}
