/**
 * @module The short form of an entry id (docs/api.md, "Short ids"), written once for the CLI, the TUI, the MCP
 * tools and the daemon: how one is printed, and how a typed reference (a whole id, a prefix or a suffix) is read.
 */
import {ID_REF_MAX, ID_REF_MIN, SHORT_ID_MIN, UUID_PATTERN} from './contract.js'
import {KbError} from './errors.js'

const UUID = new RegExp(UUID_PATTERN)
const HEX_AND_HYPHENS = /^[0-9a-f-]*$/

/**
 * The length the server said its short forms have (the `Kb-Short-Id-Length` header of its answers): the shortest,
 * at least SHORT_ID_MIN, at which no two of its entries end alike. One process talks to one server, so it is held here.
 */
let length = SHORT_ID_MIN

/** Takes the length a server's answer carried; anything but a sane number is ignored. */
export function noteShortIdLength(value: unknown): void {
  const n = Number(value)
  if (Number.isInteger(n) && n >= SHORT_ID_MIN && n <= 32) length = n
}

/**
 * An entry id's short form: the end of its hex digits. UUIDv7 ids begin with a millisecond timestamp, so entries
 * made in the same minute share their first eight characters; their end is random, and seven of its characters
 * tell entries apart as git's abbreviated hashes do.
 */
export function shortId(id: string, n: number = length): string {
  return id.replace(/-/g, '').slice(-n)
}

const IDS_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g

/**
 * Text of kb's own that names entries by whole id (a queued write's label: `on 0193a7e2-…`), each id as its short form,
 * for a person to read; the text itself, which scripts read, keeps whole ids. A fixed-length pattern: no backtracking.
 */
export function shortIds(text: string): string {
  return text.replace(IDS_IN_TEXT, (id) => shortId(id))
}

/** A typed reference to an entry: a whole id, or the hex digits of a prefix or a suffix of one (lower case, no hyphens). */
export type IdRef = {id: string} | {hex: string}

/**
 * Reads what someone typed for an entry id. A whole id is itself; anything else must be hex digits (hyphens allowed
 * and ignored) from ID_REF_MIN on, or it is refused with the reason (`bad_request`, exit 2).
 */
export function readIdRef(typed: string): IdRef {
  const text = typed.trim().toLowerCase()
  if (UUID.test(text)) return {id: text}
  const shown = JSON.stringify(typed.length > ID_REF_MAX ? `${typed.slice(0, ID_REF_MAX)}…` : typed)
  if (text.length > ID_REF_MAX || !HEX_AND_HYPHENS.test(text))
    throw new KbError('bad_request', `${shown} is not an entry id: an id, or its start or end, is hexadecimal digits (0-9, a-f)`)
  const hex = text.replace(/-/g, '')
  if (hex.length < ID_REF_MIN)
    throw new KbError(
      'bad_request',
      `${shown} is too short to name an entry: type at least ${ID_REF_MIN} characters of its id (the short form shown is ${SHORT_ID_MIN})`,
    )
  return {hex}
}
