/**
 * @module The contract of the Store's membership records (docs/api.md, "Membership"), through the interface alone so
 * every driver runs it unchanged: `runMembersContract('postgres', make)`. Join requests (one pending per principal
 * and project, decided once), invitations by name and by link (used once, not after they expire), removal and roles
 * with the last maintainer kept.
 */
import {randomUUID} from 'node:crypto'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import type {InvitationRow} from '../../../server/store/membership-store.js'
import type {PrincipalRecord, ProjectRow, Store} from '../../../server/store/store.js'

const T0 = Date.parse('2026-06-01T00:00:00.000Z')
const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString()

export function runMembersContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store membership contract: ${name}`, () => {
    let s: Store
    let ann: PrincipalRecord
    let ben: PrincipalRecord
    let cy: PrincipalRecord
    let project: ProjectRow
    beforeEach(async () => {
      s = await makeStore()
      const principal = (n: string): PrincipalRecord => ({id: randomUUID(), name: n, role: 'member', created_at: at(0)})
      ;[ann, ben, cy] = [principal('ann'), principal('ben'), principal('cy')]
      for (const p of [ann, ben, cy]) await s.insertPrincipal(p)
      project = {
        id: randomUUID(),
        name: 'api',
        remote: 'github.com/acme/api',
        created_by: ann.id,
        created_at: at(1),
        verify_after_days: 180,
      }
      expect((await s.createProject(project)).created).toBe(true)
    })
    afterEach(async () => {
      await s.close()
    })

    const request = (p: PrincipalRecord, seconds = 2): ReturnType<Store['members']['request']> =>
      s.members.request({
        id: randomUUID(),
        project_id: project.id,
        principal_id: p.id,
        status: 'pending',
        created_at: at(seconds),
        decided_at: null,
        decided_by: null,
      })
    const invitation = (o: Partial<InvitationRow>): InvitationRow => ({
      id: randomUUID(),
      project_id: project.id,
      principal_id: null,
      token_hash: null,
      created_by: ann.id,
      created_at: at(2),
      expires_at: at(1000),
      used_at: null,
      used_by: null,
      ...o,
    })

    it('keeps one pending request per principal and project, decided once; approval makes a member', async () => {
      const first = await request(ben)
      expect(first).toMatchObject({
        project_id: project.id,
        principal_id: ben.id,
        principal_name: 'ben',
        status: 'pending',
        decided_at: null,
      })
      expect((await request(ben, 3)).id).toBe(first.id)
      await request(cy, 4)
      expect((await s.members.pending(project.id)).map((r) => r.principal_name)).toEqual(['ben', 'cy'])
      const approved = await s.members.decide(project.id, first.id, 'approved', ann.id, at(5))
      expect(approved).toMatchObject({id: first.id, status: 'approved', decided_at: at(5), decided_by: ann.id})
      expect(await s.getMemberRole(project.id, ben.id)).toBe('member')
      expect(await s.members.decide(project.id, first.id, 'denied', ann.id, at(6))).toBeNull()
      expect((await s.members.getRequest(project.id, first.id))!.status).toBe('approved')
      const cys = (await s.members.pending(project.id))[0]!
      expect((await s.members.decide(project.id, cys.id, 'denied', ann.id, at(7)))!.status).toBe('denied')
      expect(await s.getMemberRole(project.id, cy.id)).toBeNull()
      expect(await s.members.pending(project.id)).toEqual([])
      // After a decision a principal may ask again: a new request.
      expect((await request(cy, 8)).id).not.toBe(cys.id)
      // Another project's id finds nothing.
      expect(await s.members.getRequest(randomUUID(), first.id)).toBeNull()
    })

    it('uses an invitation by name once, approving a pending request; not after it expires', async () => {
      await request(ben)
      await s.members.insertInvitation(invitation({principal_id: ben.id}))
      expect(await s.members.accept({projectId: project.id, principalId: cy.id, tokenHash: null, at: at(3)})).toBe(false)
      expect(await s.members.accept({projectId: project.id, principalId: ben.id, tokenHash: null, at: at(3)})).toBe(true)
      expect(await s.getMemberRole(project.id, ben.id)).toBe('member')
      expect(await s.members.pending(project.id)).toEqual([])
      expect(await s.members.accept({projectId: project.id, principalId: ben.id, tokenHash: null, at: at(4)})).toBe(false)
      await s.members.insertInvitation(invitation({principal_id: cy.id, expires_at: at(10)}))
      expect(await s.members.accept({projectId: project.id, principalId: cy.id, tokenHash: null, at: at(10)})).toBe(false)
      expect(await s.getMemberRole(project.id, cy.id)).toBeNull()
    })

    it('uses a link by its hash once, for this project only', async () => {
      await s.members.insertInvitation(invitation({token_hash: 'h'.repeat(64)}))
      expect(await s.members.accept({projectId: randomUUID(), principalId: ben.id, tokenHash: 'h'.repeat(64), at: at(3)})).toBe(false)
      expect(await s.members.accept({projectId: project.id, principalId: ben.id, tokenHash: 'x'.repeat(64), at: at(3)})).toBe(false)
      expect(await s.members.accept({projectId: project.id, principalId: ben.id, tokenHash: 'h'.repeat(64), at: at(3)})).toBe(true)
      expect(await s.members.accept({projectId: project.id, principalId: cy.id, tokenHash: 'h'.repeat(64), at: at(4)})).toBe(false)
      expect(await s.getMemberRole(project.id, cy.id)).toBeNull()
    })

    it('removes members and changes roles, keeping the only maintainer while others remain', async () => {
      await s.addMember(project.id, ben.id, 'member', at(2))
      expect((await s.members.list(project.id)).map((m) => [m.principal_name, m.role])).toEqual([
        ['ann', 'maintainer'],
        ['ben', 'member'],
      ])
      expect(await s.members.remove(project.id, ann.id)).toBe('last_maintainer')
      expect(await s.members.setRole(project.id, ann.id, 'member')).toBe('last_maintainer')
      expect(await s.members.setRole(project.id, cy.id, 'maintainer')).toBe('not_member')
      expect(await s.members.setRole(project.id, ben.id, 'maintainer')).toMatchObject({principal_id: ben.id, role: 'maintainer'})
      expect(await s.members.remove(project.id, ann.id)).toBe('removed')
      expect(await s.getMemberRole(project.id, ann.id)).toBeNull()
      expect(await s.members.remove(project.id, ann.id)).toBe('not_member')
      // Alone, the last maintainer may go: no one is left without one.
      expect(await s.members.remove(project.id, ben.id)).toBe('removed')
      expect(await s.members.list(project.id)).toEqual([])
    })
  })
}
