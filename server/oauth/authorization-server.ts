/**
 * @module The OAuth 2.1 authorization server (docs/oauth.md), put together from its endpoints, one module
 * each: registration (RFC 7591), authorization and consent, token (code exchange and refresh rotation),
 * revocation (RFC 7009), access-token verification for the API, and the sweep of expired records.
 * HTTP-free: server/routes/oauth.ts translates requests and outcomes.
 */
import type {Caller} from '../services/context.js'
import type {Store} from '../store/store.js'
import {verifyAccessToken} from './access-tokens.js'
import {AuthorizationEndpoint} from './authorize.js'
import type {KeyCheck, Logger} from './endpoint.js'
import {RegistrationEndpoint} from './registration.js'
import type {OAuthFailure} from './result.js'
import {revoke} from './revocation.js'
import {OAuthSweeper} from './sweep.js'
import {TokenEndpoint} from './token.js'

export interface AuthorizationServer {
  registration: RegistrationEndpoint
  authorization: AuthorizationEndpoint
  token: TokenEndpoint
  revoke(form: URLSearchParams, authorization: string | undefined): Promise<null | OAuthFailure>
  /** The caller an access token stands for, if it is live and meant for the API at `baseUrl` (or its MCP endpoint). */
  verifyAccessToken(token: string, baseUrl: string | undefined): Promise<Caller | null>
  sweeper: OAuthSweeper
}

/** The endpoints over one store; `checkKey` is how the consent form checks the API key a person pastes. */
export function createAuthorizationServer(store: Store, checkKey: KeyCheck, log?: Logger): AuthorizationServer {
  const sweeper = new OAuthSweeper(store, log)
  return {
    registration: new RegistrationEndpoint(store, sweeper),
    authorization: new AuthorizationEndpoint(store, checkKey, log),
    token: new TokenEndpoint(store, sweeper, log),
    revoke: (form, authorization) => revoke(store, form, authorization),
    verifyAccessToken: (token, baseUrl) => verifyAccessToken(store, token, baseUrl),
    sweeper,
  }
}
