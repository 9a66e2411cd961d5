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

export function oauthError(status: OAuthFailure['status'], error: string, description: string, headers?: Record<string, string>): OAuthFailure {
  return {failure: true, status, error, description, ...(headers ? {headers} : {})}
}

export function isFailure(value: unknown): value is OAuthFailure {
  return typeof value === 'object' && value !== null && (value as OAuthFailure).failure === true
}

/** The JSON body of an OAuth error response. */
export function errorBody(f: OAuthFailure): {error: string; error_description: string} {
  return {error: f.error, error_description: f.description}
}
