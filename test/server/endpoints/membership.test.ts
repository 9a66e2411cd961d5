/**
 * @module Project membership (docs/api.md, "Membership"; docs/security.md, "Other team members"), against a real daemon
 * on both drivers: a join of an existing project waits for a maintainer (and sees nothing meanwhile), approved, denied,
 * invited by name and by a one-time link, removed (visibility and a project-bound key lost), left, the last maintainer
 * kept, the owner entering directly, and a daemon run with --open-projects.
 */
import {createHash} from 'node:crypto'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, queryStore, startInProcessDaemon, type HttpResult, type TestDaemon} from '../../helpers/daemon.js'
import {createEntry, expectProblem, ISO_RE, keysOf, MISSING_ID, UUID_RE} from './support.js'

const REMOTE = 'git@github.com:acme/members.git'
let d: TestDaemon
let alice: string // the project's creator: its maintainer, not the owner
let projectId: string
let secretId: string // a project entry of alice's

const join = (key: string, body: Record<string, unknown> = {remote: REMOTE}): Promise<HttpResult> =>
  d.request('POST', '/projects/join', {key, body})
const myProjects = async (key: string): Promise<string[]> =>
  ((await d.request('GET', '/projects', {key})).body.items as Array<{id: string}>).map((p) => p.id)
const sees = async (key: string, id: string): Promise<boolean> => (await d.request('GET', `/knowledge/${id}`, {key})).status === 200
const searchIds = async (key: string, q: string): Promise<string[]> =>
  ((await d.request('GET', '/search', {key, query: {q}})).body.items as Array<{id: string}>).map((i) => i.id)

beforeAll(async () => {
  d = await startInProcessDaemon()
  alice = await newPrincipal(d, 'alice')
  const created = await join(alice)
  expect(created.status).toBe(201)
  expect(created.body.project.role).toBe('maintainer')
  projectId = created.body.project.id
  secretId = (
    await createEntry(d, {title: 'Membership secret', body: 'Only members read this.', scope: 'project', project_id: projectId}, alice)
  ).id
})
afterAll(async () => {
  await d.stop()
})

describe('joining an existing project', () => {
  it('without approval is a pending request (202), not membership: the project stays closed', async () => {
    const bob = await newPrincipal(d, 'bob-pending')
    const asked = await join(bob)
    expect(asked.status).toBe(202)
    expect(keysOf(asked.body)).toEqual(['project', 'request'])
    expect(asked.body.project).toEqual({id: projectId, name: 'members'})
    expect(keysOf(asked.body.request)).toEqual(['created_at', 'id', 'project_id', 'status'])
    expect(asked.body.request).toMatchObject({project_id: projectId, status: 'pending'})
    expect(asked.body.request.id).toMatch(UUID_RE)
    expect(asked.body.request.created_at).toMatch(ISO_RE)
    // One pending request per principal and project: asking again gives the same one.
    expect((await join(bob)).body.request.id).toBe(asked.body.request.id)
    // Not a member: no project, no project entry, by any path.
    expect(await myProjects(bob)).toEqual([])
    expect(await sees(bob, secretId)).toBe(false)
    expect(await searchIds(bob, 'membership secret')).toEqual([])
    expectProblem(await d.request('GET', `/projects/${projectId}`, {key: bob}), 404)
    expectProblem(await d.request('GET', '/knowledge', {key: bob, query: {project_id: projectId}}), 404)
    expectProblem(await d.request('POST', '/knowledge', {key: bob, body: {title: 't', body: 'b', project_id: projectId}}), 404)
    // Nor can the requester see or decide requests.
    expectProblem(await d.request('GET', `/projects/${projectId}/requests`, {key: bob}), 404)
    expectProblem(await d.request('POST', `/projects/${projectId}/requests/${asked.body.request.id}/approve`, {key: bob}), 404)
  })

  it('approved by a maintainer: the principal becomes a member and sees the project', async () => {
    const carol = await newPrincipal(d, 'carol')
    const {request} = (await join(carol)).body
    const pending = await d.request('GET', `/projects/${projectId}/requests`, {key: alice})
    expect(pending.status).toBe(200)
    const mine = pending.body.items.find((r: {id: string}) => r.id === request.id)
    expect(mine).toMatchObject({project_id: projectId, principal: {name: 'carol'}, status: 'pending', decided_at: null})
    const approved = await d.request('POST', `/projects/${projectId}/requests/${request.id}/approve`, {key: alice})
    expect(approved.status).toBe(200)
    expect(approved.body).toMatchObject({id: request.id, status: 'approved'})
    expect(approved.body.decided_at).toMatch(ISO_RE)
    expect(await myProjects(carol)).toEqual([projectId])
    expect(await sees(carol, secretId)).toBe(true)
    const again = await join(carol)
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({created: false, project: {id: projectId, role: 'member'}})
    // Decided once: approving or denying again is a conflict; no longer listed.
    expectProblem(await d.request('POST', `/projects/${projectId}/requests/${request.id}/deny`, {key: alice}), 409)
    expect(
      (await d.request('GET', `/projects/${projectId}/requests`, {key: alice})).body.items.map((r: {id: string}) => r.id),
    ).not.toContain(request.id)
    // A member who is not a maintainer cannot manage members (403); a request of another project is 404.
    expectProblem(await d.request('GET', `/projects/${projectId}/requests`, {key: carol}), 403)
    expectProblem(await d.request('GET', `/projects/${projectId}/members`, {key: carol}), 403)
    expectProblem(await d.request('POST', `/projects/${projectId}/requests/${MISSING_ID}/approve`, {key: alice}), 404)
  })

  it('denied: still not a member; a later join asks anew', async () => {
    const dan = await newPrincipal(d, 'dan')
    const {request} = (await join(dan)).body
    const denied = await d.request('POST', `/projects/${projectId}/requests/${request.id}/deny`, {key: alice})
    expect(denied.status).toBe(200)
    expect(denied.body.status).toBe('denied')
    expect(await myProjects(dan)).toEqual([])
    expect(await sees(dan, secretId)).toBe(false)
    const anew = await join(dan)
    expect(anew.status).toBe(202)
    expect(anew.body.request.id).not.toBe(request.id)
  })

  it('invited by name: the join enters at once, and the invitation is used', async () => {
    const erin = await newPrincipal(d, 'erin')
    const invited = await d.request('POST', `/projects/${projectId}/invitations`, {key: alice, body: {principal: 'erin'}})
    expect(invited.status).toBe(201)
    expect(keysOf(invited.body)).toEqual(['created_at', 'expires_at', 'id', 'principal', 'project_id'])
    expect(invited.body.principal.name).toBe('erin')
    expect(Date.parse(invited.body.expires_at) - Date.parse(invited.body.created_at)).toBe(7 * 86_400_000)
    const joined = await join(erin)
    expect(joined.status).toBe(200)
    expect(joined.body.project.role).toBe('member')
    expect(await sees(erin, secretId)).toBe(true)
    const members = (await d.request('GET', `/projects/${projectId}/members`, {key: alice})).body.items as Array<{
      principal: {id: string; name: string}
    }>
    const erinId = members.find((m) => m.principal.name === 'erin')!.principal.id
    expect(await queryStore(d, 'SELECT used_by FROM invitations WHERE id = ?', [invited.body.id])).toEqual([{used_by: erinId}])
    // Inviting a member again, an unknown principal, or both or neither of name and link: refused.
    expectProblem(await d.request('POST', `/projects/${projectId}/invitations`, {key: alice, body: {principal: 'erin'}}), 409)
    expectProblem(await d.request('POST', `/projects/${projectId}/invitations`, {key: alice, body: {principal: 'nobody-here'}}), 404, [
      'principal',
    ])
    expectProblem(await d.request('POST', `/projects/${projectId}/invitations`, {key: alice, body: {}}), 422)
    expectProblem(await d.request('POST', `/projects/${projectId}/invitations`, {key: alice, body: {principal: 'x', link: true}}), 422)
    expectProblem(await d.request('POST', `/projects/${projectId}/invitations`, {key: erin, body: {link: true}}), 403)
  })

  it('invited by a link: its token (stored as a hash) lets one principal in, once, until it expires', async () => {
    const link = await d.request('POST', `/projects/${projectId}/invitations`, {key: alice, body: {link: true}})
    expect(link.status).toBe(201)
    expect(link.body.principal).toBeNull()
    const token = link.body.token as string
    expect(token).toMatch(/^kbinv_[0-9A-Za-z]{43}$/)
    const stored = await queryStore<{token_hash: string}>(d, 'SELECT token_hash FROM invitations WHERE id = ?', [link.body.id])
    expect(stored).toEqual([{token_hash: createHash('sha256').update(token).digest('hex')}])

    const frank = await newPrincipal(d, 'frank')
    const grace = await newPrincipal(d, 'grace')
    const entered = await join(frank, {remote: REMOTE, invitation: token})
    expect(entered.status).toBe(200)
    expect(await sees(frank, secretId)).toBe(true)
    // Used: the next holder is refused, and is not let in.
    expectProblem(await join(grace, {remote: REMOTE, invitation: token}), 403)
    expect(await myProjects(grace)).toEqual([])
    // A token that is not of this form is a 422; an expired one a 403.
    expectProblem(await join(grace, {remote: REMOTE, invitation: 'kbinv_short'}), 422, ['invitation'])
    const old = (await d.request('POST', `/projects/${projectId}/invitations`, {key: alice, body: {link: true}})).body
    await queryStore(d, 'UPDATE invitations SET expires_at = ? WHERE id = ?', ['2020-01-01T00:00:00.000Z', old.id])
    expectProblem(await join(grace, {remote: REMOTE, invitation: old.token}), 403)
    expect(await myProjects(grace)).toEqual([])
  })
})

describe('members, removal and leaving', () => {
  it('lists members with their roles (maintainers and the owner)', async () => {
    const res = await d.request('GET', `/projects/${projectId}/members`, {key: alice})
    expect(res.status).toBe(200)
    expect(res.body.next_cursor).toBeNull()
    expect(keysOf(res.body.items[0])).toEqual(['joined_at', 'principal', 'role'])
    expect(res.body.items[0]).toMatchObject({principal: {name: 'alice'}, role: 'maintainer'})
    expect(res.body.items.map((m: {principal: {name: string}}) => m.principal.name)).toEqual(
      expect.arrayContaining(['carol', 'erin', 'frank']),
    )
    expect((await d.request('GET', `/projects/${projectId}/members`)).status).toBe(200)
    expectProblem(await d.request('GET', `/projects/${MISSING_ID}/members`, {key: alice}), 404)
  })

  it('the owner enters any project directly, as a member', async () => {
    const res = await join(d.ownerKey)
    expect(res.status).toBe(200)
    expect(res.body.project.role).toBe('member')
  })

  it('a removed member loses the project at once, with their project-bound key; what they wrote stays', async () => {
    // The owner (a member now) mints hal a key bound to the project, which makes hal a member.
    const hal = await newPrincipal(d, 'hal', projectId)
    const hals = await createEntry(d, {title: 'Written by hal', body: 'Stays after hal goes.', scope: 'project'}, hal)
    expect(hals.project_id).toBe(projectId)
    expect(await sees(hal, secretId)).toBe(true)
    const halId = hals.author.id as string

    expect((await d.request('DELETE', `/projects/${projectId}/members/${halId}`, {key: alice})).status).toBe(204)
    expect(await sees(hal, secretId)).toBe(false)
    expect(await sees(hal, hals.id)).toBe(false)
    expect(await myProjects(hal)).toEqual([])
    // The bound key defaults to the project, which it may no longer write to.
    expectProblem(await d.request('POST', '/knowledge', {key: hal, body: {title: 't', body: 'b'}}), 404, ['project_id'])
    expect(await sees(alice, hals.id)).toBe(true)
    // Removing someone who is not a member is 404; a plain member removing others is 403.
    expectProblem(await d.request('DELETE', `/projects/${projectId}/members/${halId}`, {key: alice}), 404)
    const carolId = (await d.request('GET', `/projects/${projectId}/members`, {key: alice})).body.items.find(
      (m: {principal: {name: string}}) => m.principal.name === 'carol',
    ).principal.id
    expectProblem(await d.request('DELETE', `/projects/${projectId}/members/${carolId}`, {key: await keyOf('erin')}), 403)
  })

  it('a member leaves; leaving again is 404', async () => {
    const erin = await keyOf('erin')
    expect((await d.request('POST', `/projects/${projectId}/leave`, {key: erin})).status).toBe(204)
    expect(await myProjects(erin)).toEqual([])
    expect(await sees(erin, secretId)).toBe(false)
    expectProblem(await d.request('POST', `/projects/${projectId}/leave`, {key: erin}), 404)
  })

  it('the only maintainer stays while others remain: cannot leave, be removed or be made a member', async () => {
    const members = (await d.request('GET', `/projects/${projectId}/members`, {key: alice})).body.items as Array<{
      principal: {id: string; name: string}
    }>
    const aliceId = members.find((m) => m.principal.name === 'alice')!.principal.id
    const carolId = members.find((m) => m.principal.name === 'carol')!.principal.id
    expectProblem(await d.request('POST', `/projects/${projectId}/leave`, {key: alice}), 409)
    expectProblem(await d.request('DELETE', `/projects/${projectId}/members/${aliceId}`, {key: alice}), 409)
    expectProblem(await d.request('DELETE', `/projects/${projectId}/members/${aliceId}`), 409)
    expectProblem(await d.request('PATCH', `/projects/${projectId}/members/${aliceId}`, {key: alice, body: {role: 'member'}}), 409)
    // With a second maintainer, alice may go.
    const promoted = await d.request('PATCH', `/projects/${projectId}/members/${carolId}`, {key: alice, body: {role: 'maintainer'}})
    expect(promoted.status).toBe(200)
    expect(promoted.body).toMatchObject({principal: {id: carolId, name: 'carol'}, role: 'maintainer'})
    expect((await d.request('POST', `/projects/${projectId}/leave`, {key: alice})).status).toBe(204)
    // A project entry is its members': its author, gone, no longer reads it; the project keeps it.
    expect(await sees(alice, secretId)).toBe(false)
    expect(await sees(await keyOf('carol'), secretId)).toBe(true)
  })
})

describe('a daemon run with --open-projects', () => {
  it('lets anyone who knows a remote join, as before membership', async () => {
    const open = await startInProcessDaemon({openProjects: true})
    try {
      const ann = await newPrincipal(open, 'ann')
      const ben = await newPrincipal(open, 'ben')
      expect((await open.request('POST', '/projects/join', {key: ann, body: {remote: REMOTE}})).status).toBe(201)
      const joined = await open.request('POST', '/projects/join', {key: ben, body: {remote: REMOTE}})
      expect(joined.status).toBe(200)
      expect(joined.body.project.role).toBe('member')
    } finally {
      await open.stop()
    }
  })
})

/** The key of a principal made above, by name: minted again by the owner (a principal may hold several). */
async function keyOf(name: string): Promise<string> {
  return newPrincipal(d, name)
}
