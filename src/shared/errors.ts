/**
 * @module The one error type of kb, with stable string codes mapped once to HTTP statuses and CLI exit codes.
 */

export const ERROR_CODES = {
  bad_request: {status: 400, title: 'Bad Request', exit: 2},
  unauthenticated: {status: 401, title: 'Unauthorized', exit: 4},
  forbidden: {status: 403, title: 'Forbidden', exit: 4},
  not_found: {status: 404, title: 'Not Found', exit: 3},
  method_not_allowed: {status: 405, title: 'Method Not Allowed', exit: 1},
  // POST /mcp whose Accept lacks application/json and text/event-stream (docs/mcp.md).
  not_acceptable: {status: 406, title: 'Not Acceptable', exit: 1},
  conflict: {status: 409, title: 'Conflict', exit: 5},
  id_taken: {status: 409, title: 'Conflict', exit: 5},
  // 409 when publishing an entry; 422 when a create, edit or fork brings the content (docs/api.md, "Safe publish").
  sensitive_content: {status: 409, title: 'Conflict', exit: 5},
  // POST /knowledge?on_similar=refuse when entries the caller can see look like the same knowledge (docs/api.md, "Curation").
  possible_duplicate: {status: 409, title: 'Conflict', exit: 5},
  // A short id (docs/api.md, "Short ids") that names more than one entry the caller may see; `candidates` lists them.
  ambiguous_id: {status: 409, title: 'Conflict', exit: 2},
  request_timeout: {status: 408, title: 'Request Timeout', exit: 1},
  precondition_failed: {status: 412, title: 'Precondition Failed', exit: 5},
  payload_too_large: {status: 413, title: 'Payload Too Large', exit: 1},
  unsupported_media_type: {status: 415, title: 'Unsupported Media Type', exit: 1},
  validation_failed: {status: 422, title: 'Unprocessable Content', exit: 1},
  rate_limited: {status: 429, title: 'Too Many Requests', exit: 1},
  headers_too_large: {status: 431, title: 'Request Header Fields Too Large', exit: 1},
  // The Idempotency-Key header (docs/api.md, "Idempotency"): the first request with the key is still running,
  // or the key was used for a different request.
  idempotency_key_in_use: {status: 409, title: 'Conflict', exit: 5},
  idempotency_key_reused: {status: 422, title: 'Unprocessable Content', exit: 1},
  internal: {status: 500, title: 'Internal Server Error', exit: 1},
  unavailable: {status: 503, title: 'Service Unavailable', exit: 6},
  // Never sent by kb itself: a proxy in front of a team server that could not reach it.
  bad_gateway: {status: 502, title: 'Bad Gateway', exit: 6},
  gateway_timeout: {status: 504, title: 'Gateway Timeout', exit: 6},
  // Client-side only: the server could not be reached at all, or the command line was wrong.
  unreachable: {status: 0, title: 'Unreachable', exit: 6},
  usage: {status: 0, title: 'Usage', exit: 2},
} as const

export type ErrorCode = keyof typeof ERROR_CODES

/** One field rule violation, as listed in a 422 problem's `errors`. */
export interface FieldError {
  path: string
  message: string
}

/** An RFC 9457 problem details body as kb sends it. */
export interface Problem {
  type: string
  title: string
  status: number
  code: ErrorCode | string
  detail?: string
  errors?: FieldError[]
  [extra: string]: unknown
}

export interface KbErrorOptions {
  errors?: FieldError[]
  headers?: Record<string, string>
  cause?: unknown
  /** The HTTP status, where a code answers with more than one (sensitive_content: 409 or 422). */
  status?: number
  /** Extension members of the problem (RFC 9457, section 3.2), e.g. `findings`. */
  extra?: Record<string, unknown>
}

export class KbError extends Error {
  readonly code: ErrorCode
  readonly errors?: FieldError[]
  readonly headers?: Record<string, string>
  readonly extra?: Record<string, unknown>
  private readonly statusOverride?: number

  constructor(code: ErrorCode, message: string, options: KbErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : {cause: options.cause})
    this.name = 'KbError'
    this.code = code
    if (options.errors) this.errors = options.errors
    if (options.headers) this.headers = options.headers
    if (options.extra) this.extra = options.extra
    if (options.status !== undefined) this.statusOverride = options.status
  }

  get status(): number {
    return this.statusOverride ?? ERROR_CODES[this.code].status
  }

  get exitCode(): number {
    return ERROR_CODES[this.code].exit
  }

  toProblem(): Problem {
    const title = this.statusOverride === undefined ? ERROR_CODES[this.code].title : ERROR_CODES[codeForStatus(this.statusOverride)].title
    const problem: Problem = {...this.extra, type: 'about:blank', title, status: this.status, code: this.code, detail: this.message}
    if (this.errors && this.errors.length > 0) problem.errors = this.errors
    return problem
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value)
}

/** The error code a bare HTTP status stands for, when a problem body did not name one. */
export function codeForStatus(status: number): ErrorCode {
  for (const [code, info] of Object.entries(ERROR_CODES)) if (info.status === status) return code as ErrorCode
  return status >= 500 ? 'internal' : 'bad_request'
}
