/**
 * @module Project membership records (docs/api.md, "Membership"): members with their roles, join requests waiting
 * for a maintainer, and invitations (for a principal, or a one-time link stored as a hash). An interface of its own
 * (`Store.members`) that each driver implements apart; every change that checks a rule (a pending request, a live
 * invitation, the last maintainer) checks it inside the transaction that makes the change.
 */
import type {ProjectRole} from '../../src/shared/types.js'

export interface MemberRow {
  principal_id: string
  principal_name: string
  role: ProjectRole
  created_at: string
}

type JoinRequestStatus = 'pending' | 'approved' | 'denied'

export interface JoinRequestRow {
  id: string
  project_id: string
  principal_id: string
  principal_name: string
  status: JoinRequestStatus
  created_at: string
  decided_at: string | null
  decided_by: string | null
}

export interface InvitationRow {
  id: string
  project_id: string
  /** The principal invited by name; null for a link, which anyone holding its token may use once. */
  principal_id: string | null
  /** SHA-256 of a link's token; null for an invitation by name. */
  token_hash: string | null
  created_by: string
  created_at: string
  expires_at: string
  used_at: string | null
  used_by: string | null
}

/** What accepting an invitation needs: whose, and a link's token hash (null: an invitation by name). */
export interface Acceptance {
  projectId: string
  principalId: string
  tokenHash: string | null
  at: string
}

export type RemoveOutcome = 'removed' | 'not_member' | 'last_maintainer'

export interface MembershipStore {
  /** The project's members, maintainers first, then by name. */
  list(projectId: string): Promise<MemberRow[]>
  /** Records a pending join request, or returns the one already pending for this principal and project. */
  request(row: Omit<JoinRequestRow, 'principal_name'>): Promise<JoinRequestRow>
  /** The project's pending requests, oldest first. */
  pending(projectId: string): Promise<JoinRequestRow[]>
  getRequest(projectId: string, id: string): Promise<JoinRequestRow | null>
  /**
   * Decides a pending request; approving makes its principal a member in the same transaction. Null when the
   * request is not pending (any more): the row as it is then tells why.
   */
  decide(projectId: string, id: string, decision: 'approved' | 'denied', by: string, at: string): Promise<JoinRequestRow | null>
  insertInvitation(row: InvitationRow): Promise<void>
  /**
   * Uses a live invitation (unused, unexpired) of the principal — the link whose hash is given, or else one by name —
   * and makes the principal a member, approving any pending request of theirs, in one transaction. False when none.
   */
  accept(a: Acceptance): Promise<boolean>
  /**
   * Ends a membership. Refused ('last_maintainer') when the principal is the project's only maintainer and other
   * members remain: a project always keeps someone who can admit and remove members.
   */
  remove(projectId: string, principalId: string): Promise<RemoveOutcome>
  /** Changes a member's role; the only maintainer is never made a member. */
  setRole(projectId: string, principalId: string, role: ProjectRole): Promise<MemberRow | 'not_member' | 'last_maintainer'>
}

const REQUEST_COLUMNS = `r.id, r.project_id, r.principal_id, p.name AS principal_name, r.status, r.created_at, r.decided_at, r.decided_by`

/** The statements both drivers run as they are (`?` placeholders, numbered by the PostgreSQL driver). */
export const MEMBERSHIP_SQL = {
  list: `SELECT m.principal_id, p.name AS principal_name, m.role, m.created_at FROM memberships m JOIN principals p ON p.id = m.principal_id
    WHERE m.project_id = ? ORDER BY CASE m.role WHEN 'maintainer' THEN 0 ELSE 1 END, p.name`,
  insertRequest: `INSERT INTO project_requests (id, project_id, principal_id, status, created_at, decided_at, decided_by)
    VALUES (?, ?, ?, 'pending', ?, NULL, NULL) ON CONFLICT DO NOTHING`,
  pendingOf: `SELECT ${REQUEST_COLUMNS} FROM project_requests r JOIN principals p ON p.id = r.principal_id
    WHERE r.project_id = ? AND r.principal_id = ? AND r.status = 'pending'`,
  pending: `SELECT ${REQUEST_COLUMNS} FROM project_requests r JOIN principals p ON p.id = r.principal_id
    WHERE r.project_id = ? AND r.status = 'pending' ORDER BY r.created_at, r.id`,
  getRequest: `SELECT ${REQUEST_COLUMNS} FROM project_requests r JOIN principals p ON p.id = r.principal_id WHERE r.project_id = ? AND r.id = ?`,
  decide: `UPDATE project_requests SET status = ?, decided_at = ?, decided_by = ? WHERE project_id = ? AND id = ? AND status = 'pending'`,
  addMember: `INSERT INTO memberships (project_id, principal_id, role, created_at) VALUES (?, ?, 'member', ?) ON CONFLICT DO NOTHING`,
  insertInvitation: `INSERT INTO invitations (id, project_id, principal_id, token_hash, created_by, created_at, expires_at, used_at, used_by)
    VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL)`,
  useLink: `UPDATE invitations SET used_at = ?, used_by = ? WHERE project_id = ? AND token_hash = ? AND used_at IS NULL AND expires_at > ?`,
  useNamed: `UPDATE invitations SET used_at = ?, used_by = ? WHERE project_id = ? AND principal_id = ? AND used_at IS NULL AND expires_at > ?`,
  approvePending: `UPDATE project_requests SET status = 'approved', decided_at = ?, decided_by = ? WHERE project_id = ? AND principal_id = ? AND status = 'pending'`,
  roleOf: `SELECT role FROM memberships WHERE project_id = ? AND principal_id = ?`,
  counts: `SELECT count(*) AS members, coalesce(sum(CASE WHEN role = 'maintainer' THEN 1 ELSE 0 END), 0) AS maintainers
    FROM memberships WHERE project_id = ?`,
  remove: `DELETE FROM memberships WHERE project_id = ? AND principal_id = ?`,
  setRole: `UPDATE memberships SET role = ? WHERE project_id = ? AND principal_id = ?`,
  member: `SELECT m.principal_id, p.name AS principal_name, m.role, m.created_at FROM memberships m JOIN principals p ON p.id = m.principal_id
    WHERE m.project_id = ? AND m.principal_id = ?`,
}

export function invitationArgs(i: InvitationRow): unknown[] {
  return [i.id, i.project_id, i.principal_id, i.token_hash, i.created_by, i.created_at, i.expires_at]
}

/** The rule of `setRole`: null when the change may be made. */
export function demotion(
  current: string | undefined,
  role: ProjectRole,
  counts: {maintainers: number},
): 'not_member' | 'last_maintainer' | null {
  if (current === undefined) return 'not_member'
  if (current === 'maintainer' && role === 'member' && Number(counts.maintainers) === 1) return 'last_maintainer'
  return null
}

/** The rule of `remove`, given the principal's role and the project's counts before the change. */
export function removal(role: string | undefined, counts: {members: number; maintainers: number}): RemoveOutcome {
  if (role === undefined) return 'not_member'
  if (role === 'maintainer' && Number(counts.maintainers) === 1 && Number(counts.members) > 1) return 'last_maintainer'
  return 'removed'
}
