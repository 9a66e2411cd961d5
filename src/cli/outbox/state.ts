/**
 * @module The outbox seen from every command (docs/cli.md, "Offline writes"): where it lives, what an item is,
 * which failures queue a write, and whether anything waits — all without loading lowdb, which only
 * `queue.ts` does, and only when something is queued or waits (test/cli/startup.test.ts).
 */
import {existsSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'
import {KbError} from '../../shared/errors.js'
import type {WriteRequest} from '../../shared/client.js'
import type {AnchorIn, PatchEntryBody} from '../../shared/schemas.js'
import type {EditBase} from '../merge/three-way.js'
import {readConfig} from '../config/config.js'
import type {ProjectRef} from '../project/project.js'

/** `$XDG_STATE_HOME/kb`, else `~/.local/state/kb`: state that outlives a command but is no setting. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'kb')
  return join(env.HOME || homedir(), '.local', 'state', 'kb')
}

/**
 * One queue file per server, named after its base URL (`outbox-https_kb.acme.dev_api_v1.json`), so a command
 * knows with one stat whether anything waits for its server. Names that collide (very long URLs) share a file
 * harmlessly: every item names its server.
 */
export function outboxFile(baseUrl: string, env: NodeJS.ProcessEnv = process.env): string {
  const slug = baseUrl.replace(/[^A-Za-z0-9.-]+/g, '_').slice(0, 150)
  return join(stateDir(env), `${OUTBOX_PREFIX}${slug}.json`)
}

export const OUTBOX_PREFIX = 'outbox-'

/** Items the server refused (or `kb sync --drop` took off), one JSON line each: off the queue, never lost. */
export function refusedFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'outbox-refused.jsonl')
}

/** Whether anything waits for this server: its file exists only while it holds items (one stat, nothing imported). */
export function hasQueued(baseUrl: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return existsSync(outboxFile(baseUrl, env))
}

/** `kb edit` made without reading the entry: what to change, settled against the entry when it is sent. */
export interface EditIntent {
  entry_id: string
  /** Fields set outright. */
  set: PatchEntryBody
  add_tags?: string[]
  remove_tags?: string[]
  /** Anchors to add (made in the checkout when the edit was made) and places to remove (docs/cli.md, "Anchors"). */
  add_anchors?: AnchorIn[]
  remove_anchors?: {path: string; lines: string | null; symbol: string | null}[]
  /** The version it is based on (`--if-version`); else the entry as it was when the edit was made. */
  version?: number
  /** The fields it changes as they were at `version`, when the entry was read: what `kb sync` merges against. */
  base?: EditBase
}

export interface OutboxItem {
  /** The Idempotency-Key of every attempt: the server acts on it once, however often it arrives. */
  key: string
  base_url: string
  queued_at: string
  /** What ran: `add`, `comment`, …, or `hook resolve`. */
  command: string
  /** One line for people: a title, or the entry id. */
  label: string
  /**
   * What to send. Unset for an edit still to be settled against its entry; once settled it never changes, so every
   * attempt sends the same request (another body under the key would be refused as a different request).
   */
  request?: WriteRequest
  /** The Idempotency-Key of `request` when it is not `key`: an edit settled again after a 412 (merged onto a newer version). */
  request_key?: string
  /** `kb add` with a project given as a remote, looked up (needs the server) before the first send. */
  project_ref?: ProjectRef
  /** `kb edit`: the change as asked, for settling it and for applying it to a fork if the entry changed meanwhile. */
  edit?: EditIntent & {conflict?: boolean}
  attempts: number
  last_error?: string
  /** Who queued it (principal.ts): sent only under that credential. Absent in items queued before kb recorded it. */
  principal?: string
}

/** What a write command returns (and prints with --json) when it queued instead of sending. */
export interface QueuedWrite {
  queued: true
  key: string
  command: string
  label: string
  base_url: string
  queued_at: string
  /** Why it was not sent. */
  reason: string
  /** How many writes wait for this server now, this one included. */
  waiting: number
  /** `kb add`: the id the entry will have once sent (chosen by the CLI). */
  id?: string
}

export function isQueued(value: unknown): value is QueuedWrite {
  return typeof value === 'object' && value !== null && (value as QueuedWrite).queued === true
}

const UNREACHABLE_CODES = new Set(['unreachable', 'unavailable', 'bad_gateway', 'gateway_timeout'])

/** The server could not be reached or could not answer for now (refused, DNS, timeout, 502/503/504): worth queueing. */
export function isUnreachable(e: unknown): e is KbError {
  return e instanceof KbError && UNREACHABLE_CODES.has(e.code)
}

/** Queueing is on unless --no-queue, KB_NO_QUEUE=1 or config `queue_writes` false (for CI, where failing is right). */
export function queueEnabled(flag: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  if (flag) return false
  const v = env.KB_NO_QUEUE
  if (v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false') return false
  return readConfig(env).queue_writes !== false
}
