/**
 * @module The SQLite side of `Store.members` (tables `memberships`, `project_requests`, `invitations`): the statements
 * of membership-store.ts, each change in one IMMEDIATE transaction.
 */
import type Database from 'better-sqlite3'
import {
  type Acceptance,
  invitationArgs,
  type InvitationRow,
  type JoinRequestRow,
  MEMBERSHIP_SQL as SQL,
  type MemberRow,
  type MembershipStore,
  demotion,
  removal,
  type RemoveOutcome,
} from './membership-store.js'
import type {ProjectRole} from '../../src/shared/types.js'
import {StatementCache} from './sqlite-rows.js'
import type {WriteGate} from './write-gate.js'

export class SqliteMembershipStore implements MembershipStore {
  private readonly statements: StatementCache

  constructor(
    private readonly db: Database.Database,
    private readonly gate: WriteGate,
  ) {
    this.statements = new StatementCache(db)
  }

  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql)
  }

  async list(projectId: string): Promise<MemberRow[]> {
    return this.stmt(SQL.list).all(projectId) as MemberRow[]
  }

  async request(row: Omit<JoinRequestRow, 'principal_name'>): Promise<JoinRequestRow> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        this.stmt(SQL.insertRequest).run(row.id, row.project_id, row.principal_id, row.created_at)
        return this.stmt(SQL.pendingOf).get(row.project_id, row.principal_id) as JoinRequestRow
      })
      .immediate()
  }

  async pending(projectId: string): Promise<JoinRequestRow[]> {
    return this.stmt(SQL.pending).all(projectId) as JoinRequestRow[]
  }

  async getRequest(projectId: string, id: string): Promise<JoinRequestRow | null> {
    return (this.stmt(SQL.getRequest).get(projectId, id) as JoinRequestRow | undefined) ?? null
  }

  async decide(projectId: string, id: string, decision: 'approved' | 'denied', by: string, at: string): Promise<JoinRequestRow | null> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        if (this.stmt(SQL.decide).run(decision, at, by, projectId, id).changes !== 1) return null
        const row = this.stmt(SQL.getRequest).get(projectId, id) as JoinRequestRow
        if (decision === 'approved') this.stmt(SQL.addMember).run(projectId, row.principal_id, at)
        return row
      })
      .immediate()
  }

  async insertInvitation(row: InvitationRow): Promise<void> {
    await this.gate.wait()
    this.stmt(SQL.insertInvitation).run(...invitationArgs(row))
  }

  async accept(a: Acceptance): Promise<boolean> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        const used =
          a.tokenHash === null
            ? this.stmt(SQL.useNamed).run(a.at, a.principalId, a.projectId, a.principalId, a.at).changes
            : this.stmt(SQL.useLink).run(a.at, a.principalId, a.projectId, a.tokenHash, a.at).changes
        if (used === 0) return false
        this.stmt(SQL.addMember).run(a.projectId, a.principalId, a.at)
        this.stmt(SQL.approvePending).run(a.at, a.principalId, a.projectId, a.principalId)
        return true
      })
      .immediate()
  }

  async remove(projectId: string, principalId: string): Promise<RemoveOutcome> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        const role = this.stmt(SQL.roleOf).pluck().get(projectId, principalId) as string | undefined
        const outcome = removal(role, this.stmt(SQL.counts).get(projectId) as {members: number; maintainers: number})
        if (outcome === 'removed') this.stmt(SQL.remove).run(projectId, principalId)
        return outcome
      })
      .immediate()
  }

  async setRole(projectId: string, principalId: string, role: ProjectRole): Promise<MemberRow | 'not_member' | 'last_maintainer'> {
    await this.gate.wait()
    return this.db
      .transaction(() => {
        const current = this.stmt(SQL.roleOf).pluck().get(projectId, principalId) as string | undefined
        const refused = demotion(current, role, this.stmt(SQL.counts).get(projectId) as {maintainers: number})
        if (refused) return refused
        this.stmt(SQL.setRole).run(role, projectId, principalId)
        return this.stmt(SQL.member).get(projectId, principalId) as MemberRow
      })
      .immediate()
  }
}
