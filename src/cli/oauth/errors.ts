/**
 * @module Turning what oauth4webapi and fetch throw into `KbError`s whose message names the fix.
 */
import * as oauth from 'oauth4webapi'
import {KbError} from '../../shared/errors.js'

export const RELOGIN = 'run `kb auth login --web` again'

/** fetch's "fetch failed" TypeError (connection refused, unknown host…) as exit 6. */
export function unreachable(e: unknown, url: string): KbError | null {
  if (!(e instanceof TypeError) || !/fetch failed/i.test(e.message)) return null
  const cause = (e as {cause?: {code?: string; message?: string}}).cause
  const why =
    cause?.code === 'ECONNREFUSED'
      ? 'connection refused'
      : cause?.code === 'ENOTFOUND'
        ? 'unknown host'
        : (cause?.code ?? cause?.message ?? e.message)
  return new KbError(
    'unreachable',
    `the kb server at ${new URL(url).origin} is not reachable (${why}); check --base-url and that the server is running`,
    {cause: e},
  )
}

/** An OAuth error answer (`{error, error_description}`) or a non-conforming response, as one readable phrase. */
export function describeOAuthError(e: unknown): string {
  if (e instanceof oauth.ResponseBodyError || e instanceof oauth.AuthorizationResponseError) {
    return e.error_description ? `${e.error}: ${e.error_description}` : e.error
  }
  if (e instanceof oauth.OperationProcessingError) return e.message
  return e instanceof Error ? e.message : String(e)
}
