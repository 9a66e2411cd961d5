/**
 * @module OAuth protocol failures as values. The wire format is OAuth's own (`{error, error_description}`,
 * RFC 6749 §5.2), not a problem document, so they travel as results rather than as `KbError`s.
 */

export interface OAuthFailure {
  failure: true
  status: 400 | 401 | 403 | 405 | 429
  /** The OAuth error code (`invalid_grant`, `invalid_client`, …). */
  error: string
  description: string
  headers?: Record<string, string>
}

export function oauthError(
  status: OAuthFailure['status'],
  error: string,
  description: string,
  headers?: Record<string, string>,
): OAuthFailure {
  return {failure: true, status, error, description: errorDescription(description), ...(headers ? {headers} : {})}
}

/**
 * RFC 6749 §5.2 allows only printable ASCII without `"` and `\` in error_description; strict clients
 * check. Quotes become apostrophes, dashes plain hyphens, anything else outside the set a `?`.
 */
export function errorDescription(text: string): string {
  return text
    .replace(/"/g, "'")
    .replace(/\\/g, '/')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?')
}

export function isFailure(value: unknown): value is OAuthFailure {
  return typeof value === 'object' && value !== null && (value as OAuthFailure).failure === true
}

/** The JSON body of an OAuth error response. */
export function errorBody(f: OAuthFailure): {error: string; error_description: string} {
  return {error: f.error, error_description: f.description}
}
