/**
 * @module The SQL vocabulary of principals, API keys, server secrets, projects and memberships, written once for
 * both drivers in the neutral `@name` form (sql/bind.ts). Statements that insert a record name their placeholders
 * after its fields, so a driver binds the record itself.
 */

export const PRINCIPAL_SQL = {
  count: 'SELECT count(*) AS n FROM principals',
  /** Binds a `PrincipalRecord`. */
  insert: 'INSERT INTO principals (id, name, role, created_at) VALUES (@id, @name, @role, @created_at)',
  byId: 'SELECT id, name, role, created_at FROM principals WHERE id = @id',
  byName: 'SELECT id, name, role, created_at FROM principals WHERE name = @name',
  name: 'SELECT name FROM principals WHERE id = @id',
} as const

export const API_KEY_SQL = {
  /** Binds an `ApiKeyRow`. */
  insert: `INSERT INTO api_keys (id, principal_id, name, prefix, hash, project_id, created_at, expires_at, last_used_at, revoked_at)
  VALUES (@id, @principal_id, @name, @prefix, @hash, @project_id, @created_at, @expires_at, @last_used_at, @revoked_at)`,
  byHash: 'SELECT * FROM api_keys WHERE hash = @hash',
  /** The live keys of @principal_id, oldest first. */
  live: 'SELECT * FROM api_keys WHERE principal_id = @principal_id AND revoked_at IS NULL ORDER BY created_at, id',
  revoke: 'UPDATE api_keys SET revoked_at = @at WHERE id = @id AND principal_id = @principal_id AND revoked_at IS NULL',
  /** Only ever moves last_used_at forward: daemons touching one key at once leave the latest time, whatever order they commit in. */
  touch: 'UPDATE api_keys SET last_used_at = @at WHERE id = @id AND (last_used_at IS NULL OR last_used_at < @at)',
} as const

export const SECRET_SQL = {
  /** A server secret @name is made once, with the first @value offered. */
  insert: 'INSERT INTO server_secrets (name, value) VALUES (@name, @value) ON CONFLICT (name) DO NOTHING',
  get: 'SELECT value FROM server_secrets WHERE name = @name',
} as const

export const PROJECT_SQL = {
  byId: 'SELECT * FROM projects WHERE id = @id',
  byRemote: 'SELECT * FROM projects WHERE remote = @remote',
  /** Binds a `ProjectRow`. */
  insert: `INSERT INTO projects (id, name, remote, created_by, created_at, verify_after_days)
    VALUES (@id, @name, @remote, @created_by, @created_at, @verify_after_days)`,
  /** A new project's creator as its maintainer; binds the `ProjectRow`. */
  addCreator: `INSERT INTO memberships (project_id, principal_id, role, created_at) VALUES (@id, @created_by, 'maintainer', @created_at)`,
  setVerifyAfterDays: 'UPDATE projects SET verify_after_days = @verify_after_days WHERE id = @id',
  rename: 'UPDATE projects SET name = @name WHERE id = @id',
  /** The projects @principal_id is a member of, with its role, in pages by id after @after. */
  listMine: `SELECT p.*, m.role FROM memberships m JOIN projects p ON p.id = m.project_id
      WHERE m.principal_id = @principal_id AND p.id > @after ORDER BY p.id LIMIT @limit`,
} as const

export const MEMBER_SQL = {
  /** A member is added once: a second add (a maintainer added as a member) changes nothing. */
  add: `INSERT INTO memberships (project_id, principal_id, role, created_at) VALUES (@project_id, @principal_id, @role, @created_at)
    ON CONFLICT DO NOTHING`,
  role: 'SELECT role FROM memberships WHERE project_id = @project_id AND principal_id = @principal_id',
} as const
