/**
 * @module What to do about an error, by its code: the one table of fixes that the CLI, `kb browse` and the
 * MCP tools show. Each audience has its own words where the fix differs (a person types `kb …` commands,
 * an agent calls tools, the TUI refreshes by itself); `hintFor` falls back from the TUI to the CLI.
 */
import {BODY_MAX} from './contract.js'
import type {ErrorCode} from './errors.js'

export type Audience = 'cli' | 'tui' | 'agent'

/**
 * Per audience; `commands` overrides the CLI's words for the commands (by id, `api-key revoke`) whose fix
 * differs, and `fields` for an error about one field (`project_id`), whatever the command.
 */
type Hint = Partial<Record<Audience, string>> & {
  commands?: Record<string, string>
  fields?: Record<string, string>
  /** The words when the server is remote (no daemon of this machine to start), by audience. */
  remote?: Partial<Record<Audience, string>>
}

// Digits grouped by hand: toLocaleString loads ICU's data, ~9 ms of every command's start (docs/performance.md).
const BODY_LIMIT = `a body holds at most ${String(BODY_MAX).replace(/\B(?=(\d{3})+$)/g, ',')} characters`

const HINTS: Partial<Record<ErrorCode, Hint>> = {
  bad_request: {cli: 'check the arguments (`kb help <command>`)', agent: 'fix the arguments named above'},
  validation_failed: {
    cli: 'fix that value (`kb help <command>` describes each flag)',
    fields: {
      project_id:
        'run `kb project join` in the checkout to make its project yours (`kb project list` shows yours), or pass --project; else choose --scope private or global',
    },
    agent: 'fix the arguments named above',
  },
  unauthenticated: {
    cli: 'log in with `kb auth login --web` or `kb auth login --with-token`, or set KB_API_KEY (`kb auth status` shows the credential in use)',
    tui: 'log in with `kb auth login --web` (or set KB_API_KEY), then run kb browse again',
    agent: 'the kb credential was refused: sign in again (`kb auth login --web`, or reconnect the MCP server) or set KB_API_KEY',
  },
  forbidden: {
    // The server's message already says who may ("only the author … or the owner may edit it"); this says what to do.
    cli: '`kb auth status` shows who you are',
    agent: 'only the author (or the owner) may do that; use comment_on_knowledge or fork_knowledge instead',
  },
  not_found: {
    cli: 'check the id (`kb list`, `kb search`)',
    fields: {project_id: 'join it with `kb project join` in its checkout (`kb project list` shows yours), or check --project / KB_PROJECT'},
    commands: {'api-key revoke': 'check the key id (`kb api-key list`)', 'auth revoke-grant': 'check the grant id (`kb auth grants`)'},
    tui: 'it may have been deleted meanwhile; the list is refreshed',
    agent: 'check the id: search_knowledge finds entries (entries you may not see look missing too)',
  },
  conflict: {
    cli: '`kb show <id>` shows its current state',
    // The one conflict of `kb backup`: a team server on PostgreSQL, which the server's words already name.
    commands: {backup: '`kb export -o <file>` copies every project and entry in a form any kb server imports'},
    tui: 'it is already so; the view is refreshed',
    agent: "get_knowledge shows the entry's current state",
  },
  possible_duplicate: {
    cli: '`kb show <id>` one of them and `kb comment <id>` on it instead, or add anyway without --refuse-similar',
    agent: 'comment on the similar entry (comment_on_knowledge) instead of adding a copy; add anyway only if it is different knowledge',
  },
  // The CLI's line already says to type more characters, and lists the candidates under it.
  ambiguous_id: {agent: 'call again with one of the candidate ids listed below'},
  precondition_failed: {
    cli: 'it changed since it was read; run the command again',
    tui: 'it changed meanwhile; try again',
    agent: 'it changed meanwhile; read it again with get_knowledge and retry',
  },
  payload_too_large: {
    cli: `send less (${BODY_LIMIT})`,
    agent: `send less: ${BODY_LIMIT}`,
  },
  unsupported_media_type: {cli: 'this CLI and the server disagree; update kb'},
  method_not_allowed: {cli: 'this CLI and the server disagree; update kb'},
  rate_limited: {tui: 'wait a moment and try again', agent: 'wait a little and retry'},
  unreachable: {
    agent: 'the local kb daemon is not running: start it with `kb daemon start` (in a terminal), then retry',
    remote: {
      agent: 'the kb server is not reachable from this machine: check the network (VPN) and the base URL kb mcp was given, then retry',
    },
  },
  unavailable: {cli: 'retry in a moment', agent: 'the kb daemon is shutting down or busy; retry in a moment'},
  bad_gateway: {
    cli: 'the proxy in front of the kb server could not reach it; retry in a moment',
    agent: 'the kb server is not reachable behind its proxy; retry in a moment',
  },
  gateway_timeout: {
    cli: 'the proxy in front of the kb server got no answer from it; retry in a moment',
    agent: 'the kb server did not answer its proxy; retry in a moment',
  },
  idempotency_key_in_use: {
    cli: 'the same write is still being processed; `kb sync` in a moment gets its answer',
    agent: 'the same request is still being processed; retry in a moment',
  },
  internal: {
    cli: 'retry; if it persists, look at the server log (`kb daemon logs` for the local daemon)',
    remote: {
      cli: "retry; if it persists, the server's operator can find the request in its log",
      agent: "retry; if it persists, the kb server's operator can find the request in its log",
    },
    tui: 'retry; if it persists, see `kb daemon logs`',
    agent: 'retry; if it persists, look at the daemon log (`kb daemon logs`)',
  },
}

export interface HintContext {
  /** The command (`api-key revoke`), for the CLI's own words. */
  command?: string
  /** The one field an error is about (`project_id`), for the CLI's own words. */
  field?: string
  /** The server is remote: advice about the local daemon does not apply. */
  remote?: boolean
}

/** The fix to show `audience` for an error of this code, if there is one. */
export function hintFor(code: ErrorCode, audience: Audience, o: HintContext = {}): string | undefined {
  const h = HINTS[code]
  if (o.remote && h?.remote) return audience === 'tui' ? (h.remote.tui ?? h.remote.cli) : h.remote[audience]
  if (audience === 'cli' && o.field && h?.fields?.[o.field]) return h.fields[o.field]
  if (audience === 'cli' && o.command && h?.commands?.[o.command]) return h.commands[o.command]
  return audience === 'tui' ? (h?.tui ?? h?.cli) : h?.[audience]
}

/**
 * `message; hint`, without saying anything twice: the hint's clauses (split at `; `) the message already holds are
 * left out, and so is a hint whose every command (in backquotes) the message already names — a server that says
 * "retry in a moment" gets no second "retry in a moment".
 */
export function withHint(message: string, hint: string | undefined, separator = '; '): string {
  if (!hint) return message
  const commands = hint.match(/`[^`]+`/g)
  if (commands && commands.every((c) => message.includes(c))) return message
  const fresh = hint.split('; ').filter((part) => !message.includes(part))
  return fresh.length > 0 ? `${message}${separator}${fresh.join('; ')}` : message
}
