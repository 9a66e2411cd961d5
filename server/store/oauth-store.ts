/**
 * @module The Store's OAuth 2.1 group (`Store.oauth`), and its records: what a driver implements for the
 * authorization server (server/oauth), apart from the rest of the Store. Every secret is stored as a hash.
 */

/** The registration fields kb keeps for a client (RFC 7591), echoed back exactly at registration. */
export interface OAuthClientMetadata {
  redirect_uris: string[]
  token_endpoint_auth_method: 'none' | 'client_secret_basic' | 'client_secret_post'
  grant_types: string[]
  response_types: string[]
  client_name?: string
  client_uri?: string
  logo_uri?: string
  scope?: string
  contacts?: string[]
  tos_uri?: string
  policy_uri?: string
  software_id?: string
  software_version?: string
}

export interface OAuthClientRow {
  id: string
  /** SHA-256 of the client secret; null for a public client. */
  secret_hash: string | null
  metadata: OAuthClientMetadata
  created_at: string
  /** Set whenever the client obtains tokens; idle clients are purged eventually. */
  last_used_at: string | null
}

/** An authorization request waiting on the consent page; its CSRF token is stored hashed. */
export interface OAuthRequestRow {
  id: string
  csrf_hash: string
  client_id: string
  redirect_uri: string
  /** Whether the request named its redirect_uri (then the token request must repeat it). */
  redirect_uri_given: boolean
  code_challenge: string
  resource: string
  scope: string | null
  state: string | null
  /** Failed sign-in attempts on the consent page. */
  attempts: number
  created_at: string
  expires_at: string
}

/** An authorization code, stored by hash; `grant_id` ties it to every token issued from it. */
export interface OAuthCodeRow {
  hash: string
  grant_id: string
  client_id: string
  principal_id: string
  /** The project binding of the API key that approved, carried over to the tokens. */
  project_id: string | null
  redirect_uri: string
  redirect_uri_given: boolean
  code_challenge: string
  resource: string
  scope: string | null
  created_at: string
  expires_at: string
  used_at: string | null
}

export interface OAuthTokenRow {
  hash: string
  id: string
  kind: 'access' | 'refresh'
  /** The grant (one approval) this token descends from; reuse of a code or refresh token revokes all of it. */
  grant_id: string
  client_id: string
  principal_id: string
  project_id: string | null
  /** The audience (RFC 8707) the token was issued for. */
  resource: string
  scope: string | null
  created_at: string
  expires_at: string
  /** For refresh tokens: when it was rotated (used). */
  used_at: string | null
  revoked_at: string | null
}

/**
 * One approval of a client by a principal, made with an API key (docs/oauth.md, "Grants"). Its codes and
 * tokens carry its id; they live only while it does.
 */
export interface OAuthGrantRow {
  id: string
  client_id: string
  principal_id: string
  /** The API key that approved: revoking that key (or its expiry) ends the grant. */
  api_key_id: string
  project_id: string | null
  scope: string | null
  created_at: string
  /** The absolute end of the grant, refreshes included. */
  expires_at: string
  last_used_at: string | null
  revoked_at: string | null
}

/** A grant with the state of its approving key and its client's name: what decides whether it is live, and how it is shown. */
export interface OAuthGrantState extends OAuthGrantRow {
  client_name: string | null
  key_revoked_at: string | null
  key_expires_at: string | null
}

/** Cut-off times (RFC 3339) for `purgeExpired`. */
export interface OAuthPurgeCutoffs {
  /** Tokens and pending requests that expired before this go. */
  now: string
  /** Codes that expired before this go (kept a while after expiry so a late replay still revokes its grant). */
  codes: string
  /** Clients registered before this that never obtained a token go. */
  unusedClients: string
  /** Clients last used before this and holding no token go. */
  idleClients: string
}

export interface OAuthStore {
  insertClient(client: OAuthClientRow): Promise<void>
  getClient(id: string): Promise<OAuthClientRow | null>
  touchClient(id: string, at: string): Promise<void>

  insertRequest(request: OAuthRequestRow): Promise<void>
  getRequest(id: string): Promise<OAuthRequestRow | null>
  /** Counts one failed sign-in on a pending request; returns the attempts so far. */
  addRequestAttempt(id: string): Promise<number>
  /** Deletes the pending request; true if this call removed it (so a request completes once). */
  deleteRequest(id: string): Promise<boolean>

  insertCode(code: OAuthCodeRow): Promise<void>
  findCode(hash: string): Promise<OAuthCodeRow | null>
  /** Atomically marks the code used and stores the tokens issued for it; false (nothing stored) if it was already used. */
  exchangeCode(hash: string, at: string, tokens: OAuthTokenRow[]): Promise<boolean>

  findToken(hash: string): Promise<OAuthTokenRow | null>
  /** Atomically marks a live refresh token used and stores its replacements; false if it was used or revoked already. */
  rotateRefreshToken(hash: string, at: string, tokens: OAuthTokenRow[]): Promise<boolean>
  insertGrant(grant: OAuthGrantRow): Promise<void>
  getGrant(id: string): Promise<OAuthGrantState | null>
  /** A principal's grants that are neither revoked nor past `expires_at` at `now`, newest first (the key's state is the caller's to judge). */
  listGrants(principalId: string, now: string): Promise<OAuthGrantState[]>
  touchGrant(id: string, at: string): Promise<void>
  /** Revokes a grant and every live token of it; returns how many tokens. */
  revokeGrant(grantId: string, at: string): Promise<number>
  /** Revokes one token; false if it was unknown or already revoked. */
  revokeToken(hash: string, at: string): Promise<boolean>

  /** Deletes expired codes, tokens, requests and grants and long-idle clients; returns how many rows went. */
  purgeExpired(cutoffs: OAuthPurgeCutoffs): Promise<number>
}
