/**
 * @module The PostgreSQL side of `Store.members`: the statements of membership-store.ts with their placeholders
 * numbered. Conditional updates decide between daemons (a request is decided once, an invitation used once); a
 * removal locks the project's membership rows first, so two maintainers removing each other cannot both succeed.
 */
import type {ProjectRole} from '../../src/shared/types.js'
import {numbered} from './postgres-rows.js'
import type {PostgresDb, Queryable} from './postgres-db.js'
import {invitationArgs, MEMBERSHIP_SQL, demotion, removal} from './membership-store.js'
import type * as M from './membership-store.js'

const SQL = Object.fromEntries(Object.entries(MEMBERSHIP_SQL).map(([k, v]) => [k, numbered(v)])) as typeof MEMBERSHIP_SQL

export class PostgresMembershipStore implements M.MembershipStore {
  constructor(private readonly db: PostgresDb) {}

  async list(projectId: string): Promise<M.MemberRow[]> {
    return this.db.query<M.MemberRow>(SQL.list, [projectId])
  }

  async request(row: Omit<M.JoinRequestRow, 'principal_name'>): Promise<M.JoinRequestRow> {
    return this.db.tx(async (q) => {
      // The pending request that made the insert do nothing may be decided before the select reads it: ask again.
      for (let attempt = 0; ; attempt++) {
        await q.run(SQL.insertRequest, [row.id, row.project_id, row.principal_id, row.created_at])
        const [pending] = await q.query<M.JoinRequestRow>(SQL.pendingOf, [row.project_id, row.principal_id])
        if (pending || attempt === 2) return pending!
      }
    })
  }

  async pending(projectId: string): Promise<M.JoinRequestRow[]> {
    return this.db.query<M.JoinRequestRow>(SQL.pending, [projectId])
  }

  async getRequest(projectId: string, id: string): Promise<M.JoinRequestRow | null> {
    return (await this.db.query<M.JoinRequestRow>(SQL.getRequest, [projectId, id]))[0] ?? null
  }

  async decide(projectId: string, id: string, decision: 'approved' | 'denied', by: string, at: string): Promise<M.JoinRequestRow | null> {
    return this.db.tx(async (q) => {
      if ((await q.run(SQL.decide, [decision, at, by, projectId, id])) !== 1) return null
      const row = (await q.query<M.JoinRequestRow>(SQL.getRequest, [projectId, id]))[0]!
      if (decision === 'approved') await q.run(SQL.addMember, [projectId, row.principal_id, at])
      return row
    })
  }

  async insertInvitation(row: M.InvitationRow): Promise<void> {
    await this.db.run(SQL.insertInvitation, invitationArgs(row))
  }

  async accept(a: M.Acceptance): Promise<boolean> {
    return this.db.tx(async (q) => {
      const used =
        a.tokenHash === null
          ? await q.run(SQL.useNamed, [a.at, a.principalId, a.projectId, a.principalId, a.at])
          : await q.run(SQL.useLink, [a.at, a.principalId, a.projectId, a.tokenHash, a.at])
      if (used === 0) return false
      await q.run(SQL.addMember, [a.projectId, a.principalId, a.at])
      await q.run(SQL.approvePending, [a.at, a.principalId, a.projectId, a.principalId])
      return true
    })
  }

  async remove(projectId: string, principalId: string): Promise<M.RemoveOutcome> {
    return this.db.tx(async (q) => {
      await lockMembers(q, projectId)
      const role = (await q.query<{role: string}>(SQL.roleOf, [projectId, principalId]))[0]?.role
      const [counts] = await q.query<{members: number; maintainers: number}>(SQL.counts, [projectId])
      const outcome = removal(role, counts!)
      if (outcome === 'removed') await q.run(SQL.remove, [projectId, principalId])
      return outcome
    })
  }

  async setRole(projectId: string, principalId: string, role: ProjectRole): Promise<M.MemberRow | 'not_member' | 'last_maintainer'> {
    return this.db.tx(async (q) => {
      await lockMembers(q, projectId)
      const current = (await q.query<{role: string}>(SQL.roleOf, [projectId, principalId]))[0]?.role
      const [counts] = await q.query<{maintainers: number}>(SQL.counts, [projectId])
      const refused = demotion(current, role, counts!)
      if (refused) return refused
      await q.run(SQL.setRole, [role, projectId, principalId])
      return (await q.query<M.MemberRow>(SQL.member, [projectId, principalId]))[0]!
    })
  }
}

/** Locks every membership row of the project: the last-maintainer rule reads them all. */
async function lockMembers(q: Queryable, projectId: string): Promise<void> {
  await q.query('SELECT principal_id FROM memberships WHERE project_id = $1 FOR UPDATE', [projectId])
}
