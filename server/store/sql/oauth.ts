/**
 * @module The SQL vocabulary of the OAuth records (`Store.oauth`, docs/oauth.md), written once for both drivers in
 * the neutral `@name` form (sql/bind.ts): inserts bind the row itself, single-use steps are conditional updates,
 * `last_used_at` only ever moves forward (daemons of a team server touching one record at once leave the latest
 * time), and the sweep of expired records binds the purge cutoffs.
 */
import type {Dialect} from './dialect.js'

export const OAUTH_SQL = {
  insertClient: `INSERT INTO oauth_clients (id, secret_hash, metadata, created_at, last_used_at)
    VALUES (@id, @secret_hash, @metadata, @created_at, @last_used_at)`,
  client: 'SELECT * FROM oauth_clients WHERE id = @id',
  touchClient: 'UPDATE oauth_clients SET last_used_at = @at WHERE id = @id AND (last_used_at IS NULL OR last_used_at < @at)',

  insertRequest: `INSERT INTO oauth_requests (id, csrf_hash, client_id, redirect_uri, redirect_uri_given, code_challenge, resource, scope, state, attempts, created_at, expires_at)
    VALUES (@id, @csrf_hash, @client_id, @redirect_uri, @redirect_uri_given, @code_challenge, @resource, @scope, @state, @attempts, @created_at, @expires_at)`,
  request: 'SELECT * FROM oauth_requests WHERE id = @id',
  addRequestAttempt: 'UPDATE oauth_requests SET attempts = attempts + 1 WHERE id = @id RETURNING attempts',
  deleteRequest: 'DELETE FROM oauth_requests WHERE id = @id',

  insertCode: `INSERT INTO oauth_codes (hash, grant_id, client_id, principal_id, project_id, redirect_uri, redirect_uri_given, code_challenge, resource, scope, created_at, expires_at, used_at)
    VALUES (@hash, @grant_id, @client_id, @principal_id, @project_id, @redirect_uri, @redirect_uri_given, @code_challenge, @resource, @scope, @created_at, @expires_at, @used_at)`,
  code: 'SELECT * FROM oauth_codes WHERE hash = @hash',
  /** A code is exchanged once: the second exchange finds it used and changes nothing. */
  useCode: 'UPDATE oauth_codes SET used_at = @at WHERE hash = @hash AND used_at IS NULL',

  insertToken: `INSERT INTO oauth_tokens (hash, id, kind, grant_id, client_id, principal_id, project_id, resource, scope, created_at, expires_at, used_at, revoked_at)
    VALUES (@hash, @id, @kind, @grant_id, @client_id, @principal_id, @project_id, @resource, @scope, @created_at, @expires_at, @used_at, @revoked_at)`,
  token: 'SELECT * FROM oauth_tokens WHERE hash = @hash',
  /** A refresh token is rotated once. */
  useRefreshToken: `UPDATE oauth_tokens SET used_at = @at WHERE hash = @hash AND kind = 'refresh' AND used_at IS NULL AND revoked_at IS NULL`,
  revokeToken: 'UPDATE oauth_tokens SET revoked_at = @at WHERE hash = @hash AND revoked_at IS NULL',

  insertGrant: `INSERT INTO oauth_grants (id, client_id, principal_id, api_key_id, project_id, scope, created_at, expires_at, last_used_at, revoked_at)
    VALUES (@id, @client_id, @principal_id, @api_key_id, @project_id, @scope, @created_at, @expires_at, @last_used_at, @revoked_at)`,
  touchGrant: 'UPDATE oauth_grants SET last_used_at = @at WHERE id = @id AND (last_used_at IS NULL OR last_used_at < @at)',
  revokeGrant: 'UPDATE oauth_grants SET revoked_at = @at WHERE id = @id AND revoked_at IS NULL',
  revokeGrantTokens: 'UPDATE oauth_tokens SET revoked_at = @at WHERE grant_id = @id AND revoked_at IS NULL',
} as const

/** A grant with its key's state and its client's name; `WHERE …` follows. */
export function grantStateSql(d: Dialect): string {
  return `SELECT g.*, ${d.jsonText('c.metadata', 'client_name')} AS client_name, k.revoked_at AS key_revoked_at, k.expires_at AS key_expires_at
  FROM oauth_grants g JOIN api_keys k ON k.id = g.api_key_id LEFT JOIN oauth_clients c ON c.id = g.client_id`
}

/** Grant @id. */
export const GRANT_BY_ID = 'WHERE g.id = @id'
/** The live grants of @principal_id at @now, newest first. */
export const GRANTS_LIVE = `WHERE g.principal_id = @principal_id AND g.revoked_at IS NULL AND g.expires_at > @now
      ORDER BY g.created_at DESC, g.id DESC`

/**
 * The sweep of expired OAuth records, in order, each binding `OAuthPurgeCutoffs`: a grant's tokens never outlive
 * it, so one past its end holds none; a client goes once unused (or idle) long enough and holding no token or code.
 */
export const OAUTH_SWEEP = [
  'DELETE FROM oauth_tokens WHERE expires_at < @now',
  'DELETE FROM oauth_requests WHERE expires_at < @now',
  'DELETE FROM oauth_codes WHERE expires_at < @codes',
  'DELETE FROM oauth_grants WHERE expires_at < @now',
  `DELETE FROM oauth_clients WHERE
    ((last_used_at IS NULL AND created_at < @unusedClients) OR (last_used_at IS NOT NULL AND last_used_at < @idleClients))
    AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.client_id = oauth_clients.id)
    AND NOT EXISTS (SELECT 1 FROM oauth_codes k WHERE k.client_id = oauth_clients.id)`,
] as const
