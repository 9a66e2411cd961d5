/**
 * @module The token endpoint (OAuth 2.1 §4.1.3, §4.3): an authorization code exchanged once, with its PKCE
 * verifier, for an access token and a refresh token; a refresh token rotated on every use. A code or a
 * refresh token presented twice revokes everything issued from its grant (docs/oauth.md).
 */
import {createHash} from 'node:crypto'
import {randomBase62, sameHash, sha256Hex, uuidv7} from '../lib/ids.js'
import type {OAuthClientRow, OAuthCodeRow, OAuthGrantState, OAuthTokenRow} from '../store/oauth-store.js'
import type {Store} from '../store/store.js'
import {authenticateClient} from './client-auth.js'
import {ACCESS_TOKEN_TTL_S, PREFIX, REFRESH_TOKEN_TTL_MS} from './config.js'
import {repeatedParam, type Logger} from './endpoint.js'
import {liveGrant, withinGrant} from './grants.js'
import {allowedResources} from './metadata.js'
import {grantResource, resourceBase} from './resources.js'
import {isFailure, oauthError, type OAuthFailure} from './result.js'
import type {OAuthSweeper} from './sweep.js'

export interface TokenResponse {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  refresh_token?: string
  scope?: string
}

const VERIFIER_RE = /^[A-Za-z0-9._~-]{43,128}$/
const GRANT_ENDED =
  'the grant was revoked or has reached its end, or the API key that approved it was revoked or has expired; sign in again'

export class TokenEndpoint {
  constructor(
    private readonly store: Store,
    private readonly sweeper: OAuthSweeper,
    private readonly log?: Logger,
  ) {}

  /** A token request, of either grant. */
  async request(form: URLSearchParams, authorization: string | undefined): Promise<TokenResponse | OAuthFailure> {
    const repeated = repeatedParam(form)
    if (repeated) return oauthError(400, 'invalid_request', `parameter ${repeated} was given more than once`)
    const grantType = form.get('grant_type')
    if (!grantType) return oauthError(400, 'invalid_request', 'grant_type is required')
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token')
      return oauthError(400, 'unsupported_grant_type', `grant_type ${grantType} is not supported`)
    const client = await authenticateClient(this.store, form, authorization)
    if (isFailure(client)) return client
    if (!client.metadata.grant_types.includes(grantType))
      return oauthError(400, 'unauthorized_client', `the client did not register the ${grantType} grant type`)
    const result = grantType === 'authorization_code' ? await this.exchangeCode(form, client) : await this.refresh(form, client)
    if (!isFailure(result)) {
      await this.store.oauth.touchClient(client.id, new Date().toISOString())
      this.sweeper.afterWrite()
    }
    return result
  }

  private async exchangeCode(form: URLSearchParams, client: OAuthClientRow): Promise<TokenResponse | OAuthFailure> {
    const code = form.get('code')
    const verifier = form.get('code_verifier')
    if (!code) return oauthError(400, 'invalid_request', 'code is required')
    if (!verifier) return oauthError(400, 'invalid_request', 'code_verifier is required (PKCE)')
    if (!VERIFIER_RE.test(verifier))
      return oauthError(400, 'invalid_request', 'code_verifier must be 43–128 characters of A-Z a-z 0-9 - . _ ~')
    const hash = sha256Hex(code)
    const row = await this.store.oauth.findCode(hash)
    if (!row) return oauthError(400, 'invalid_grant', 'the authorization code is unknown or expired')
    if (row.used_at !== null) return this.replayedCode(row)
    if (row.client_id !== client.id) return oauthError(400, 'invalid_grant', 'the authorization code was issued to another client')
    if (Date.parse(row.expires_at) <= Date.now()) return oauthError(400, 'invalid_grant', 'the authorization code has expired')
    const redirectUri = form.get('redirect_uri')
    if (row.redirect_uri_given ? redirectUri !== row.redirect_uri : redirectUri !== null && redirectUri !== row.redirect_uri) {
      return oauthError(400, 'invalid_grant', 'redirect_uri differs from the one in the authorization request')
    }
    if (!sameHash(pkceChallenge(verifier), row.code_challenge))
      return oauthError(400, 'invalid_grant', 'code_verifier does not match the code_challenge')
    const issued = await this.issueFor(form, client, row)
    if (isFailure(issued)) return issued
    if (!(await this.store.oauth.exchangeCode(hash, new Date().toISOString(), issued.rows))) return this.replayedCode(row)
    return issued.response
  }

  /** A code presented twice: someone else may hold it, so everything issued from it is revoked. */
  private async replayedCode(row: OAuthCodeRow): Promise<OAuthFailure> {
    const revoked = await this.store.oauth.revokeGrant(row.grant_id, new Date().toISOString())
    this.log?.warn({client: row.client_id, revoked}, 'oauth: authorization code replayed; its tokens are revoked')
    return oauthError(400, 'invalid_grant', 'the authorization code was already used; the tokens issued from it are revoked')
  }

  private async refresh(form: URLSearchParams, client: OAuthClientRow): Promise<TokenResponse | OAuthFailure> {
    const token = form.get('refresh_token')
    if (!token) return oauthError(400, 'invalid_request', 'refresh_token is required')
    const hash = sha256Hex(token)
    const row = await this.store.oauth.findToken(hash)
    if (!row || row.kind !== 'refresh') return oauthError(400, 'invalid_grant', 'the refresh token is unknown or expired')
    if (row.client_id !== client.id) return oauthError(400, 'invalid_grant', 'the refresh token was issued to another client')
    if (row.revoked_at !== null) return oauthError(400, 'invalid_grant', 'the refresh token was revoked')
    if (row.used_at !== null) return this.reusedRefreshToken(row)
    if (Date.parse(row.expires_at) <= Date.now()) return oauthError(400, 'invalid_grant', 'the refresh token has expired')
    const issued = await this.issueFor(form, client, row)
    if (isFailure(issued)) return issued
    if (!(await this.store.oauth.rotateRefreshToken(hash, new Date().toISOString(), issued.rows))) return this.reusedRefreshToken(row)
    return issued.response
  }

  /** A rotated refresh token used again: the family is compromised, so all of it is revoked. */
  private async reusedRefreshToken(row: OAuthTokenRow): Promise<OAuthFailure> {
    const revoked = await this.store.oauth.revokeGrant(row.grant_id, new Date().toISOString())
    this.log?.warn({client: row.client_id, revoked}, 'oauth: refresh token reused; its whole grant is revoked')
    return oauthError(400, 'invalid_grant', 'the refresh token was already used; every token of this grant is revoked')
  }

  /** A new access token (and refresh token, if the client uses them) for a grant; neither outlives the grant. */
  /** The tokens a code or a refresh token leads to, once the resource asked for and the grant behind it check out. */
  private async issueFor(
    form: URLSearchParams,
    client: OAuthClientRow,
    row: {grant_id: string; resource: string},
  ): Promise<{rows: OAuthTokenRow[]; response: TokenResponse} | OAuthFailure> {
    const resource = grantResource(form.get('resource'), row.resource)
    if (resource === null)
      return oauthError(400, 'invalid_target', `resource must be ${allowedResources(resourceBase(row.resource)).join(' or ')}`)
    const grant = await liveGrant(this.store, row.grant_id, Date.now())
    if (!grant) return oauthError(400, 'invalid_grant', GRANT_ENDED)
    return this.issue(client, grant, resource, row.resource)
  }

  private issue(
    client: OAuthClientRow,
    grant: OAuthGrantState,
    resource: string,
    refreshResource: string,
  ): {rows: OAuthTokenRow[]; response: TokenResponse} {
    const now = Date.now()
    const at = new Date(now).toISOString()
    const base = {
      grant_id: grant.id,
      client_id: client.id,
      principal_id: grant.principal_id,
      project_id: grant.project_id,
      scope: grant.scope,
      created_at: at,
      used_at: null,
      revoked_at: null,
    }
    const access = PREFIX.accessToken + randomBase62(43)
    const accessExpires = withinGrant(now + ACCESS_TOKEN_TTL_S * 1000, grant)
    const rows: OAuthTokenRow[] = [{...base, hash: sha256Hex(access), id: uuidv7(now), kind: 'access', resource, expires_at: accessExpires}]
    const response: TokenResponse = {
      access_token: access,
      token_type: 'Bearer',
      expires_in: Math.max(0, Math.floor((Date.parse(accessExpires) - now) / 1000)),
    }
    if (client.metadata.grant_types.includes('refresh_token')) {
      const refresh = PREFIX.refreshToken + randomBase62(43)
      rows.push({
        ...base,
        hash: sha256Hex(refresh),
        id: uuidv7(now),
        kind: 'refresh',
        resource: refreshResource,
        expires_at: withinGrant(now + REFRESH_TOKEN_TTL_MS, grant),
      })
      response.refresh_token = refresh
    }
    if (grant.scope) response.scope = grant.scope
    return {rows, response}
  }
}

function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url')
}
