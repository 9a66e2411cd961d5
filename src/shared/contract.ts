/**
 * @module The values of the wire contract (docs/api.md): enums, limits, patterns and defaults, each written
 * once. Plain constants without imports, so the CLI can use them at start-up; `schemas.ts` builds the JSON
 * Schemas the daemon validates with from them, `types.ts` names their types, the MCP tools reuse the schemas.
 */

/** Narrowest first: publishing only ever moves an entry to the right (docs/api.md, "Visibility and permissions"). */
export const SCOPES = ['private', 'project', 'global'] as const
export const STATUSES = ['open', 'resolved'] as const
export const DETAILS = ['summary', 'standard', 'full'] as const
export const COMMENT_TYPES = ['note', 'supplement', 'correction', 'question'] as const
export const THOUGHT_KINDS = ['observation', 'hypothesis', 'action', 'conclusion'] as const
export const PROJECT_ROLES = ['maintainer', 'member'] as const

export const COMMENT_TYPE_DEFAULT = 'note'
export const THOUGHT_KIND_DEFAULT = 'observation'

export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
/**
 * A UUID of version 7 (RFC 9562: a millisecond timestamp, then random bits), the only id a client may choose for a new
 * entry (docs/api.md, "Knowledge entries"): its order is its time, as the server's own ids.
 */
export const UUID_V7_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-7[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$'
/** The short form of an entry id (docs/api.md, "Short ids"): at least this many characters of the id's end. */
export const SHORT_ID_MIN = 7
/** A short form typed by someone (a prefix or a suffix of an id) has at least this many hex digits. */
export const ID_REF_MIN = 4
/** An id reference as typed, hyphens included: at most a whole id. */
export const ID_REF_MAX = 36
/** Entries of each kind (prefix, suffix) a short form is looked up among before it is called ambiguous. */
export const ID_REF_SCAN = 100
/** The candidates an ambiguous short form's problem lists. */
export const ID_CANDIDATES_MAX = 10
export const TAG_MAX = 40
export const TAG_PATTERN = `^[A-Za-z0-9._-]{1,${TAG_MAX}}$`
export const PRINCIPAL_NAME_MAX = 64
export const PRINCIPAL_NAME_PATTERN = `^[A-Za-z0-9._-]{1,${PRINCIPAL_NAME_MAX}}$`

/** A title, counted in code points after trimming. */
export const TITLE_MAX = 200
/** A title as sent, before trimming: generous, so padding is trimmed rather than refused. */
export const TITLE_INPUT_MAX = 1000
export const BODY_MAX = 100_000
export const TAGS_MAX = 20
export const URL_MAX = 2048
export const THOUGHTS_MAX = 100
/** One step of a thought chain, and a resolution's note. */
export const NOTE_MAX = 10_000
export const COMMENT_MAX = 20_000
export const QUERY_MAX = 500
export const REMOTE_MAX = 2048
/** A project's or an API key's name. */
export const NAME_MAX = 100
export const CURSOR_MAX = 512
export const API_KEY_DAYS_MAX = 3650
/** An API key starts with this (docs/api.md, "API keys"); no other secret of kb does. */
export const API_KEY_PREFIX = 'kb_'
/** The characters of a key or an access token shown to tell it apart, as an API key's `prefix` (docs/api.md, "API keys"). */
export const KEY_PREFIX_CHARS = 11
/** An Idempotency-Key's characters, without the quotes of its sf-string form (docs/api.md, "Idempotency"). */
export const IDEMPOTENCY_KEY_MAX = 255
export const MAX_TOKENS_MAX = 1_000_000
/** The most findings a problem or preview lists, and the most a request may acknowledge (docs/api.md, "Safe publish"). */
export const FINDINGS_MAX = 1000
/** A finding's id: 16 hex digits of a hash of its field, kind, position and text. */
const FINDING_ID = '[0-9a-f]{16}'
export const FINDING_ID_PATTERN = `^${FINDING_ID}$`
/** `acknowledge` as one query parameter (`POST /import`): at most FINDINGS_MAX finding ids, comma-separated. */
export const FINDING_ID_LIST_PATTERN = `^${FINDING_ID}(,${FINDING_ID})*$`
export const FINDING_ID_LIST_MAX = FINDINGS_MAX * 17 - 1
/** What an import does with a project or entry whose id exists (docs/api.md, "Export, import and backup"). */
export const ON_CONFLICTS = ['skip', 'overwrite'] as const
export type OnConflict = (typeof ON_CONFLICTS)[number]
/** The two kinds of thing the scanner finds (docs/security.md, "Safe publish"). */
export const FINDING_CATEGORIES = ['secret', 'personal'] as const

/** The detail level when a request names none: an entry and a listing at standard, search hits at summary. */
export const DETAIL_DEFAULT = {entry: 'standard', search: 'summary'} as const

/** Page sizes: at most LIMIT_MAX; each listing has its own default. */
export const LIMIT_MAX = 100
export const LIMIT_DEFAULT = {entries: 20, search: 10, projects: 50, comments: 50} as const
/** The full view carries an entry's newest comments, at most this many; `GET /knowledge/:id/comments` pages them all. */
export const COMMENTS_IN_FULL = 50
/** The whole `summary` item as served, in o200k_base tokens (docs/api.md, "Summary form"). */
export const SUMMARY_TOKEN_BUDGET = 100

// ---- Trust: anchors, freshness, verify, flags, confidence (docs/api.md, "Anchors, freshness, verify and flags") ----

/** What the last check found of an anchor: same text, changed, moved with its text intact, gone, or never checked. */
export const ANCHOR_STATES = ['current', 'changed', 'moved', 'deleted', 'unknown'] as const
/** The states a client may report in `POST /knowledge/:id/anchors/check` (`unknown` is the server's own). */
export const ANCHOR_CHECK_STATES = ['current', 'changed', 'moved', 'deleted'] as const
export const FRESHNESS_STATES = ['fresh', 'stale'] as const
export const FRESHNESS_REASON_KINDS = ['anchor_changed', 'anchor_deleted', 'flagged', 'unverified'] as const
export const FLAG_REASONS = ['stale', 'incorrect', 'duplicate', 'obsolete'] as const
/** The flags that make an entry stale while open; a `duplicate` flag is a curator's matter, not a truth one. */
export const STALE_FLAG_REASONS = ['stale', 'incorrect', 'obsolete'] as const
export const ANCHORS_MAX = 20
export const ANCHOR_PATH_MAX = 512
/** A repository-relative path: no leading `/`, no `..` or `.` segment, no backslash or control character. */
export const ANCHOR_PATH_PATTERN = '^(?!/)(?!.*(?:^|/)\\.\\.?(?:/|$))[^\\\\\\u0000-\\u001f\\u007f]+$'
/** `a-b`, 1-based and inclusive, a ≤ b (the server checks the order). */
export const ANCHOR_LINES_PATTERN = '^[1-9][0-9]{0,8}-[1-9][0-9]{0,8}$'
export const ANCHOR_SYMBOL_MAX = 200
export const ANCHOR_SYMBOL_PATTERN = '^[^\\s\\u0000-\\u001f\\u007f]+$'
/** A git object name, abbreviated (≥ 7) or whole (SHA-1 or SHA-256). */
export const COMMIT_PATTERN = '^[0-9a-f]{7,64}$'
/** SHA-256 of the anchored text, lower-case hex. */
export const ANCHOR_HASH_PATTERN = '^[0-9a-f]{64}$'
/** A project's `verify_after_days`: an entry not verified (nor edited) for longer is stale as `unverified`; 0 = never. */
export const VERIFY_AFTER_DAYS_DEFAULT = 180
export const VERIFY_AFTER_DAYS_MAX = 3650
/** Age alone never multiplies a score by less than this (docs/search.md, "Confidence"). */
export const CONFIDENCE_AGE_FLOOR = 0.7

// ---- Recall: knowledge given to an agent, and the record of it (docs/api.md, "Recall") ----

/** Who asked for a recall: a prompt hook, or the MCP tools' search and get. */
export const RECALL_SOURCES = ['hook', 'mcp_search', 'mcp_get'] as const
/** The context a hook may inject, in o200k_base tokens: the default, and the range a caller may ask for. */
export const RECALL_TOKENS_DEFAULT = 300
export const RECALL_TOKENS_MIN = 50
export const RECALL_TOKENS_MAX = 4000
/** A prompt as a hook sends it; only its first QUERY_MAX characters of distinct words are searched. */
export const RECALL_PROMPT_MAX = 100_000
/** The tool (`claude-code`) and its session id, as the hook or MCP client names them. */
export const RECALL_CLIENT_MAX = 100
export const RECALL_SESSION_MAX = 200
/** How long the record of a recall is kept by default (`kb daemon run --recall-retention-days`). */
export const RECALL_RETENTION_DAYS_DEFAULT = 30

/** Project membership (docs/api.md, "Membership"): how long an invitation lasts, and a link's token (`kbinv_` + 43 base62). */
export const INVITATION_DAYS = 7
export const INVITATION_TOKEN_PATTERN = '^kbinv_[0-9A-Za-z]{43}$'
export const JOIN_REQUEST_STATUSES = ['pending', 'approved', 'denied'] as const

// ---- Curation: similar entries on write, supersede and merge (docs/api.md, "Curation") ----

/** What `POST /knowledge` does when similar entries exist: create anyway and list them (default), or refuse (409 possible_duplicate). */
export const ON_SIMILAR = ['report', 'refuse'] as const
/** What `GET /knowledge` and `GET /search` bring back that they leave out by default. */
export const INCLUDE_VALUES = ['superseded'] as const
/** Similar entries reported per create, best first. */
export const SIMILAR_MAX = 5
/** A candidate at or above this similarity is reported (tuned on bench/collections/similar: docs/search.md, "Similar entries"). */
export const SIMILAR_THRESHOLD = 0.35
/** Comments a merge copies from the merged entry, oldest first. */
export const MERGE_COMMENTS_MAX = 500

// ---- Curation: history, usage, the review queue (docs/api.md, "History, usage and the review queue") ----

/** What a history record says happened to an entry. */
export const HISTORY_ACTIONS = [
  'created',
  'edited',
  'published',
  'resolved',
  'reopened',
  'commented',
  'forked',
  'verified',
  'flagged',
  'unflagged',
  'anchors_checked',
  'superseded',
  'findings_acknowledged',
  'redacted',
  'imported',
] as const
/** Through what a change came: the credential's kind, or what the client said it is (MCP tools, the git hook), or an import. */
export const HISTORY_VIAS = ['api_key', 'oauth', 'mcp', 'import', 'hook'] as const
/** What a client may say it is, in the `Kb-Via` header. */
export const CLIENT_VIAS = ['mcp', 'hook'] as const
export const HISTORY_LIMIT = {default: 50} as const
/** The review queue's kinds of item, and how long unretrieved makes an entry `never_retrieved`. */
export const REVIEW_KINDS = ['stale', 'flagged', 'similar', 'unverified', 'superseded', 'never_retrieved'] as const
export const REVIEW_UNRETRIEVED_DAYS = 90
/** How often a daemon writes the retrieval counts it holds (docs/api.md, "Usage"). */
export const USAGE_FLUSH_MS = 5000
