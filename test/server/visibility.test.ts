/**
 * @module The visibility matrix of docs/api.md, "Visibility and permissions": three principals (the owner and two members) in two projects
 * with different memberships, entries by each author in every scope (and forks of them), and every read
 * path checked for every reader against an independently computed expectation. Then the permission rules:
 * the owner moderates what it can see, others get 403 on visible entries they do not own, and private
 * means private even for the owner.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {joinApproved, newPrincipal, startInProcessDaemon, type TestDaemon} from '../helpers/daemon.js'
import {expectProblem, listAll} from './endpoints/support.js'

type Who = 'owner' | 'ann' | 'ben'
type Scope = 'private' | 'project' | 'global'

interface Made {
  id: string
  author: Who
  scope: Scope
  project: string | null
  forkedFrom: string | null
  marker: string
}

const WHO: Who[] = ['owner', 'ann', 'ben']
const SCOPES: Scope[] = ['private', 'project', 'global']

let d: TestDaemon
const key: Record<Who, string> = {owner: '', ann: '', ben: ''}
const member: Record<Who, Set<string>> = {owner: new Set(), ann: new Set(), ben: new Set()}
let p1: string
let p2: string
const entries: Made[] = []

/** §4, written out independently of the server's code. */
function canSee(reader: Who, e: Made): boolean {
  if (e.scope === 'global') return true
  if (e.scope === 'private') return e.author === reader
  return e.project !== null && member[reader].has(e.project)
}

/** §5's project filter: the project's entries, plus global ones, plus the reader's own private ones. */
function inProjectView(reader: Who, e: Made, project: string): boolean {
  return e.project === project || e.scope === 'global' || (e.scope === 'private' && e.author === reader)
}

function ids(list: Made[]): string[] {
  return list.map((e) => e.id).sort()
}

async function make(author: Who, scope: Scope, project: string | null): Promise<Made> {
  const marker = `m${entries.length}q`
  const res = await d.request('POST', '/knowledge', {
    key: key[author],
    body: {title: `${author} ${scope} ${marker}`, body: `Zebra crossing notes ${marker}.`, scope, project_id: project},
  })
  if (res.status !== 201) throw new Error(`${author} could not create ${scope}/${project}: ${res.status} ${res.text}`)
  const made: Made = {id: res.body.id, author, scope, project, forkedFrom: null, marker}
  entries.push(made)
  return made
}

async function fork(author: Who, parent: Made, scope: Scope, project: string | null): Promise<Made> {
  const marker = `m${entries.length}q`
  const res = await d.request('POST', `/knowledge/${parent.id}/fork`, {
    key: key[author],
    body: {title: `${author} fork ${marker}`, scope, project_id: project},
  })
  if (res.status !== 201) throw new Error(`${author} could not fork: ${res.status} ${res.text}`)
  // The fork copies the parent's body; give it its own marker so searches can tell them apart.
  const patched = await d.request('PATCH', `/knowledge/${res.body.id}`, {key: key[author], body: {body: `Zebra fork ${marker}.`}})
  expect(patched.status).toBe(200)
  const made: Made = {id: res.body.id, author, scope, project, forkedFrom: parent.id, marker}
  entries.push(made)
  return made
}

function find(author: Who, scope: Scope, project: string | null): Made {
  const e = entries.find((x) => x.author === author && x.scope === scope && x.project === project && x.forkedFrom === null)
  if (!e) throw new Error(`no ${author}/${scope}/${project}`)
  return e
}

beforeAll(async () => {
  d = await startInProcessDaemon()
  key.owner = d.ownerKey
  key.ann = await newPrincipal(d, 'ann')
  key.ben = await newPrincipal(d, 'ben')
  // owner: {p1}; ann: {p1, p2}; ben: {p2} — three different views.
  const join = async (who: Who, remote: string): Promise<string> => {
    // A join of someone else's project is approved by the owner (docs/api.md, "Membership").
    const res = await joinApproved(d, remote, key[who])
    member[who].add(res.project.id)
    return res.project.id
  }
  p1 = await join('owner', 'ssh://git@github.com/acme/one.git')
  await join('ann', 'https://github.com/acme/one.git')
  p2 = await join('ann', 'git@github.com:acme/two.git')
  await join('ben', 'https://github.com/acme/two')

  for (const who of WHO) {
    await make(who, 'private', null)
    await make(who, 'global', null)
    for (const p of member[who]) {
      await make(who, 'private', p)
      await make(who, 'project', p)
      await make(who, 'global', p)
    }
  }
  // Forks, into every scope, by readers who can see the parent.
  const ownerGlobal = find('owner', 'global', null)
  const annP1 = find('ann', 'project', p1)
  const annP2 = find('ann', 'project', p2)
  const benGlobal = find('ben', 'global', p2)
  await fork('ann', ownerGlobal, 'private', null)
  await fork('ann', ownerGlobal, 'project', p2)
  await fork('ben', ownerGlobal, 'private', null)
  await fork('ben', ownerGlobal, 'global', null)
  await fork('owner', annP1, 'private', p1)
  await fork('owner', annP1, 'project', p1)
  const benFork = await fork('ben', annP2, 'project', p2)
  await fork('ann', benFork, 'private', null)
  await fork('owner', benGlobal, 'project', p1)
  await fork('ann', benGlobal, 'global', p2)
  // An owner's private entry forked by its author only.
  await fork('owner', find('owner', 'private', null), 'private', null)
}, 60_000)

afterAll(async () => {
  await d.stop()
})

describe('visibility matrix', () => {
  it('has a matrix worth checking: every reader sees some and misses some, and the views differ', () => {
    const views = WHO.map((r) => ids(entries.filter((e) => canSee(r, e))).join(','))
    expect(new Set(views).size).toBe(3)
    for (const r of WHO) {
      expect(entries.some((e) => canSee(r, e))).toBe(true)
      expect(entries.some((e) => !canSee(r, e))).toBe(true)
    }
    for (const s of SCOPES) expect(entries.filter((e) => e.scope === s).length).toBeGreaterThanOrEqual(5)
  })

  for (const reader of WHO) {
    describe(`as ${reader}`, () => {
      it('GET /knowledge/:id is 200 exactly for the visible entries, 404 otherwise', async () => {
        for (const e of entries) {
          for (const detail of ['summary', 'standard', 'full']) {
            const res = await d.request('GET', `/knowledge/${e.id}`, {key: key[reader], query: {detail}})
            if (canSee(reader, e)) {
              expect(res.status, `${reader} should see ${e.author}/${e.scope}`).toBe(200)
              expect(res.body.id).toBe(e.id)
            } else {
              expectProblem(res, 404)
              expect(res.text).not.toContain(e.marker)
            }
          }
        }
      })

      it('GET /knowledge lists exactly the visible entries, with and without project_id and scope filters', async () => {
        const visible = entries.filter((e) => canSee(reader, e))
        expect((await listAll(d, {}, key[reader])).map((e) => e.id).sort()).toEqual(ids(visible))
        for (const scope of SCOPES) {
          expect((await listAll(d, {scope}, key[reader])).map((e) => e.id).sort(), scope).toEqual(
            ids(visible.filter((e) => e.scope === scope)),
          )
        }
        for (const project of [p1, p2]) {
          if (!member[reader].has(project)) {
            // A project you are not a member of is 404, as if it did not exist (docs/api.md, "Errors").
            expectProblem(await d.request('GET', '/knowledge', {key: key[reader], query: {project_id: project}}), 404)
            continue
          }
          const inView = visible.filter((e) => inProjectView(reader, e, project))
          expect((await listAll(d, {project_id: project}, key[reader])).map((e) => e.id).sort()).toEqual(ids(inView))
          for (const scope of SCOPES) {
            const got = (await listAll(d, {project_id: project, scope}, key[reader])).map((e) => e.id).sort()
            expect(got, `${project}/${scope}`).toEqual(ids(inView.filter((e) => e.scope === scope)))
          }
        }
        // Small pages walk the same set.
        expect((await listAll(d, {limit: 4}, key[reader])).map((e) => e.id).sort()).toEqual(ids(visible))
      })

      it('GET /search finds exactly the visible entries, with and without filters', async () => {
        const visible = entries.filter((e) => canSee(reader, e))
        const search = async (query: Record<string, string>): Promise<{ids: string[]; total: number}> => {
          const res = await d.request('GET', '/search', {key: key[reader], query: {q: 'zebra', limit: '100', ...query}})
          expect(res.status).toBe(200)
          return {ids: res.body.items.map((i: {id: string}) => i.id).sort(), total: res.body.total}
        }
        const all = await search({})
        expect(all.ids).toEqual(ids(visible))
        expect(all.total).toBe(visible.length)
        for (const scope of SCOPES) expect((await search({scope})).ids, scope).toEqual(ids(visible.filter((e) => e.scope === scope)))
        for (const project of [p1, p2]) {
          if (!member[reader].has(project)) {
            expectProblem(await d.request('GET', '/search', {key: key[reader], query: {q: 'zebra', project_id: project}}), 404)
            continue
          }
          const inView = visible.filter((e) => inProjectView(reader, e, project))
          const got = await search({project_id: project})
          expect(got.ids).toEqual(ids(inView))
          expect(got.total).toBe(inView.length)
          for (const scope of SCOPES)
            expect((await search({project_id: project, scope})).ids).toEqual(ids(inView.filter((e) => e.scope === scope)))
        }
        // A hidden entry's unique words find nothing at all, not even a count.
        for (const e of entries.filter((x) => !canSee(reader, x))) {
          const res = await d.request('GET', '/search', {key: key[reader], query: {q: e.marker}})
          expect(res.body, `${reader} must not find ${e.marker}`).toEqual({items: [], next_cursor: null, total: 0})
        }
      })

      it('the branches of a full view are the forks this reader may see', async () => {
        for (const parent of entries.filter((e) => canSee(reader, e))) {
          const res = await d.request('GET', `/knowledge/${parent.id}`, {key: key[reader], query: {detail: 'full'}})
          const expected = entries.filter((e) => e.forkedFrom === parent.id && canSee(reader, e)).map((e) => e.id)
          expect(
            res.body.branches.map((b: {id: string}) => b.id),
            `${reader} branches of ${parent.author}/${parent.scope}`,
          ).toEqual(expected)
          for (const b of res.body.branches) {
            const made = entries.find((e) => e.id === b.id)!
            expect(b).toMatchObject({scope: made.scope, author: {name: made.author}})
          }
        }
        // The matrix has hidden forks to hide.
        expect(
          entries.some(
            (f) =>
              f.forkedFrom &&
              canSee(
                reader,
                entries.find((p) => p.id === f.forkedFrom)!,
              ) &&
              !canSee(reader, f),
          ),
        ).toBe(true)
      })

      it('forking or commenting on an entry it cannot see is 404', async () => {
        for (const e of entries.filter((x) => !canSee(reader, x))) {
          expectProblem(await d.request('POST', `/knowledge/${e.id}/fork`, {key: key[reader]}), 404)
          expectProblem(await d.request('POST', `/knowledge/${e.id}/comments`, {key: key[reader], body: {body: 'hello?'}}), 404)
        }
      })
    })
  }
})

describe('permissions', () => {
  it('private means private, even for the owner', async () => {
    const annPrivate = find('ann', 'private', p1)
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['PATCH', '', {title: 'moderated'}],
      ['DELETE', '', undefined],
      ['POST', '/resolve', undefined],
      ['POST', '/publish', undefined],
      ['POST', '/comments', {body: 'x'}],
      ['POST', '/fork', undefined],
    ] as Array<[string, string, unknown]>) {
      expectProblem(await d.request(method, `/knowledge/${annPrivate.id}${suffix}`, body === undefined ? {} : {body}), 404)
    }
    const still = await d.request('GET', `/knowledge/${annPrivate.id}`, {key: key.ann})
    expect(still.body).toMatchObject({version: 1, status: 'open', scope: 'private'})
  })

  it('others get 403 on visible entries they do not own, and 404 on hidden ones', async () => {
    const cases: Array<[Who, Made]> = [
      ['ben', find('ann', 'global', null)],
      ['ann', find('owner', 'project', p1)],
      ['ben', find('ann', 'project', p2)],
    ]
    for (const [who, e] of cases) {
      expectProblem(await d.request('PATCH', `/knowledge/${e.id}`, {key: key[who], body: {title: 'not yours'}}), 403)
      expectProblem(await d.request('DELETE', `/knowledge/${e.id}`, {key: key[who]}), 403)
      expectProblem(await d.request('POST', `/knowledge/${e.id}/resolve`, {key: key[who]}), 403)
      expectProblem(await d.request('POST', `/knowledge/${e.id}/publish`, {key: key[who], body: {scope: 'global'}}), 403)
      const after = await d.request('GET', `/knowledge/${e.id}`, {key: key[e.author]})
      expect(after.body).toMatchObject({version: 1, status: 'open', scope: e.scope})
    }
    const hidden = find('owner', 'project', p1)
    expectProblem(await d.request('PATCH', `/knowledge/${hidden.id}`, {key: key.ben, body: {title: 'x'}}), 404)
    expectProblem(await d.request('DELETE', `/knowledge/${hidden.id}`, {key: key.ben}), 404)
  })

  it('the owner may PATCH, resolve, publish and DELETE any entry it can see', async () => {
    const annProject = find('ann', 'project', p1)
    const patched = await d.request('PATCH', `/knowledge/${annProject.id}`, {body: {title: 'Moderated title'}})
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({title: 'Moderated title', author: {name: 'ann'}, version: 2})
    const resolved = await d.request('POST', `/knowledge/${annProject.id}/resolve`, {body: {note: 'moderated'}})
    expect(resolved.body).toMatchObject({status: 'resolved', resolution: {note: 'moderated', resolved_by: {name: 'owner'}}})
    const published = await d.request('POST', `/knowledge/${annProject.id}/publish`)
    expect(published.status).toBe(200)
    expect(published.body.scope).toBe('global')
    // Ben can see it now that it is global.
    expect((await d.request('GET', `/knowledge/${annProject.id}`, {key: key.ben})).status).toBe(200)
    const benGlobal = find('ben', 'global', null)
    expect((await d.request('DELETE', `/knowledge/${benGlobal.id}`)).status).toBe(204)
    expectProblem(await d.request('GET', `/knowledge/${benGlobal.id}`, {key: key.ben}), 404)
    // But it cannot touch what it cannot see: ben's project entry in p2.
    const benP2 = find('ben', 'project', p2)
    expectProblem(await d.request('PATCH', `/knowledge/${benP2.id}`, {body: {title: 'x'}}), 404)
    expectProblem(await d.request('DELETE', `/knowledge/${benP2.id}`), 404)
  })
})
