/**
 * @module Supersede and merge over HTTP (docs/api.md, "Supersede and merge"): who may, what a superseded entry looks
 * like at each level, list and search leaving it out unless include=superseded, the 422s of `by` (itself, hidden,
 * a cycle), withdrawing, and a merge carrying comments and tags over.
 */
import {countTokens} from 'gpt-tokenizer/encoding/o200k_base'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {fakeCorpus} from '../scan/fake-corpus.js'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {createEntry, expectProblem, joinProject, listAll, MISSING_ID} from './support.js'

const REMOTE = 'git@github.com:acme/curation.git'
let d: TestDaemon
let ben: string
let carol: string
let dave: string
let erin: string
let projectId: string

beforeAll(async () => {
  d = await startInProcessDaemon()
  ben = await newPrincipal(d, 'ben')
  carol = await newPrincipal(d, 'carol')
  dave = await newPrincipal(d, 'dave')
  erin = await newPrincipal(d, 'erin')
  // Ben joins first: the project's maintainer; Carol and Dave are members; Erin is not one.
  projectId = (await joinProject(d, REMOTE, ben)).id
  await joinProject(d, REMOTE, carol)
  await joinProject(d, REMOTE, dave)
})
afterAll(async () => {
  await d?.stop()
})

const post = (path: string, body: unknown, key?: string) => d.request('POST', path, {body, ...(key ? {key} : {})})
const entryIn = (title: string, body: string, key: string, tags: string[] = []) =>
  createEntry(d, {title, body, scope: 'project', project_id: projectId, tags}, key)

describe('POST /knowledge/:id/supersede', () => {
  it('hides the entry from list and search; include=superseded brings it back; GET still answers, naming the replacement', async () => {
    const old = await entryIn(
      'Quokka cache flush needs a restart',
      'Flushing the quokka cache only works after restarting the worker.',
      carol,
    )
    const neu = await entryIn(
      'Quokka cache flush without restart',
      'Since 2.3 the quokka cache flushes live with `quokka flush --live`.',
      carol,
    )
    const res = await post(`/knowledge/${old.id}/supersede`, {by: neu.id, note: 'fixed upstream in 2.3'}, carol)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({id: old.id, superseded_by: neu.id, version: old.version + 1})
    expect(res.headers.get('etag')).toBe(`"${old.version + 1}"`)
    expect(res.body.comments.at(-1).body).toBe(`Superseded by ${neu.id}: fixed upstream in 2.3`)

    const ids = (items: Array<{id: string}>): string[] => items.map((i) => i.id)
    expect(ids(await listAll(d, {project_id: projectId}, carol))).not.toContain(old.id)
    expect(ids(await listAll(d, {project_id: projectId, include: 'superseded'}, carol))).toContain(old.id)
    const search = await d.request('GET', '/search', {query: {q: 'quokka cache flush'}, key: carol})
    expect(ids(search.body.items)).toEqual([neu.id])
    expect(search.body.total).toBe(1)
    const all = await d.request('GET', '/search', {query: {q: 'quokka cache flush', include: 'superseded'}, key: carol})
    expect(ids(all.body.items).sort()).toEqual([old.id, neu.id].sort())
    // At summary it carries superseded_by (and only when set), within the 100-token budget.
    const hit = all.body.items.find((i: {id: string}) => i.id === old.id)
    expect(hit.superseded_by).toBe(neu.id)
    expect(all.body.items.find((i: {id: string}) => i.id === neu.id)).not.toHaveProperty('superseded_by')

    const got = await d.request('GET', `/knowledge/${old.id}`, {query: {detail: 'summary'}, key: carol})
    expect(got.status).toBe(200)
    expect(got.body.superseded_by).toBe(neu.id)
    expect((await d.request('GET', `/knowledge/${neu.id}`, {key: carol})).body.superseded_by).toBeNull()
    // by: null withdraws it, and it is back in the list.
    const back = await post(`/knowledge/${old.id}/supersede`, {by: null}, carol)
    expect(back.body.superseded_by).toBeNull()
    expect(ids(await listAll(d, {project_id: projectId}, carol))).toContain(old.id)
  })

  it('a superseded entry with a long title and body keeps its summary item within 100 tokens, superseded_by and score included', async () => {
    const words = Array.from({length: 300}, (_, i) => `word${i}`).join(' ')
    const long = await entryIn(`Lemur ${'very long title words '.repeat(8).trim()}`, `Lemur ${words}.`, carol)
    const by = await entryIn('Lemur replacement', 'Lemur: the short version.', carol)
    expect((await post(`/knowledge/${long.id}/supersede`, {by: by.id}, carol)).status).toBe(200)
    const hits = await d.request('GET', '/search', {query: {q: 'lemur', include: 'superseded', limit: 10}, key: carol})
    const item = hits.body.items.find((i: {id: string}) => i.id === long.id)
    expect(item.superseded_by).toBe(by.id)
    expect(countTokens(JSON.stringify(item), {disallowedSpecial: new Set()})).toBeLessThanOrEqual(100)
  })

  it('the author, a maintainer of the project or the owner may; another member 403, a stranger 404', async () => {
    const a = await entryIn('Walrus lint rule W12 false positive', 'W12 fires on generated files; exclude gen/.', carol)
    const b = await entryIn('Walrus lint rule W12 configuration', 'Configure W12 with exclude patterns in walrus.toml.', carol)
    expectProblem(await post(`/knowledge/${a.id}/supersede`, {by: b.id}, dave), 403)
    expectProblem(await post(`/knowledge/${a.id}/supersede`, {by: b.id}, erin), 404)
    expect((await post(`/knowledge/${a.id}/supersede`, {by: b.id}, ben)).status).toBe(200)
    // The owner moderates what it can see (a project entry is hidden from a non-member, the owner too).
    expectProblem(await post(`/knowledge/${a.id}/supersede`, {by: null}), 404)
    const g1 = await createEntry(d, {title: 'Walrus global A', body: 'Global walrus text.', scope: 'global'}, carol)
    const g2 = await createEntry(d, {title: 'Walrus global B', body: 'Other global walrus text.', scope: 'global'}, carol)
    expect((await post(`/knowledge/${g1.id}/supersede`, {by: g2.id})).status).toBe(200)
    expectProblem(await post(`/knowledge/${g2.id}/supersede`, {by: g1.id}, dave), 403)
    expectProblem(await post(`/knowledge/${MISSING_ID}/supersede`, {by: b.id}, carol), 404)
  })

  it('refuses with 422 a replacement that is the entry itself, one the caller cannot see, or a cycle', async () => {
    const a = await entryIn('Narwhal deploy order A', 'Deploy the narwhal migrations before the app.', carol)
    const b = await entryIn('Narwhal deploy order B', 'Deploy narwhal app after migrations.', carol)
    const c = await entryIn('Narwhal deploy order C', 'Narwhal: migrations first, then app.', carol)
    const hidden = await createEntry(d, {title: 'Erin private note', body: 'Only Erin sees this.', scope: 'private'}, erin)
    expectProblem(await post(`/knowledge/${a.id}/supersede`, {by: a.id}, carol), 422, ['by'])
    expectProblem(await post(`/knowledge/${a.id}/supersede`, {by: hidden.id}, carol), 422, ['by'])
    expectProblem(await post(`/knowledge/${a.id}/supersede`, {by: MISSING_ID}, carol), 422, ['by'])
    expectProblem(await post(`/knowledge/${a.id}/supersede`, {by: 'not-a-uuid'}, carol), 422)
    expectProblem(await post(`/knowledge/${a.id}/supersede`, {}, carol), 422)
    expect((await post(`/knowledge/${a.id}/supersede`, {by: b.id}, carol)).status).toBe(200)
    expect((await post(`/knowledge/${b.id}/supersede`, {by: c.id}, carol)).status).toBe(200)
    // c → a would close the loop a → b → c → a.
    expectProblem(await post(`/knowledge/${c.id}/supersede`, {by: a.id}, carol), 422, ['by'])
  })
})

describe('POST /knowledge/:id/merge', () => {
  it('copies the comments (noting their origin) and unions the tags onto the target, then supersedes the merged entry', async () => {
    const a = await entryIn('Otter build cache corrupt', 'Delete .otter/cache when builds fail with checksum errors.', carol, [
      'otter',
      'cache',
    ])
    const b = await entryIn('Otter checksum errors in builds', 'Checksum errors come from a corrupt .otter/cache; remove it.', carol, [
      'otter',
      'build',
    ])
    await post(`/knowledge/${a.id}/comments`, {body: 'Also happens on CI runners.', type: 'supplement'}, dave)
    const res = await post(`/knowledge/${a.id}/merge`, {into: b.id, note: 'same fix'}, carol)
    expect(res.status).toBe(200)
    expect(res.body.id).toBe(b.id)
    expect(res.body.tags.sort()).toEqual(['build', 'cache', 'otter'])
    const bodies = res.body.comments.map((c: {body: string}) => c.body)
    expect(bodies[0]).toContain(`From merged entry ${a.id}`)
    expect(bodies[0]).toContain('supplement by dave')
    expect(bodies[0]).toContain('Also happens on CI runners.')
    expect(res.body.comments[0].type).toBe('supplement')
    expect(bodies.at(-1)).toBe(`Merged entry ${a.id} ("${a.title}") into this one: same fix`)
    const merged = await d.request('GET', `/knowledge/${a.id}`, {query: {detail: 'full'}, key: carol})
    expect(merged.body.superseded_by).toBe(b.id)
    expect(merged.body.comments.at(-1).body).toContain(`Superseded by ${b.id}`)
    // Dave may not merge what he may not curate.
    const c = await entryIn('Otter cache size', 'Limit the otter cache with OTTER_CACHE_MAX.', carol)
    expectProblem(await post(`/knowledge/${c.id}/merge`, {into: b.id}, dave), 403)
    expectProblem(await post(`/knowledge/${c.id}/merge`, {into: c.id}, carol), 422, ['into'])
  })

  it('is one transaction: refused half-way (a copied comment holds a secret), nothing of it is written on either entry', async () => {
    const leak = fakeCorpus(27).find((f) => f.kind === 'aws-access-token')!.text
    // A private entry may hold a secret in a comment; copied onto a project entry it is scanned and refused.
    const a = await createEntry(
      d,
      {title: 'Walrus deploy hangs', body: 'The walrus deploy hangs on the lock file.', tags: ['walrus']},
      carol,
    )
    const b = await entryIn('Walrus deploy stuck on lock', 'Remove the stale walrus lock file before deploying.', carol, ['deploy'])
    await post(`/knowledge/${a.id}/comments`, {body: 'Seen on staging too.'}, carol)
    await post(`/knowledge/${a.id}/comments`, {body: `Reproduced with ${leak}`}, carol)
    const state = async (id: string) => {
      const e = await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}, key: carol})
      const h = await d.request('GET', `/knowledge/${id}/history`, {key: carol})
      const {version, tags, comment_count: count, superseded_by: by} = e.body
      return {version, tags, count, by, history: h.body.items.length}
    }
    const before = [await state(a.id), await state(b.id)]
    // Before, the first comment was copied (and kept) when the second was refused.
    expect(await post(`/knowledge/${a.id}/merge`, {into: b.id}, carol)).toMatchObject({status: 422, body: {code: 'sensitive_content'}})
    expect([await state(a.id), await state(b.id)]).toEqual(before)
    // The same for a note that would leak into the merge's own comment on `into`.
    const c = await createEntry(d, {title: 'Walrus lock file', body: 'The walrus lock file is /var/walrus.lock.'}, carol)
    const beforeC = [await state(c.id), await state(b.id)]
    expect(await post(`/knowledge/${c.id}/merge`, {into: b.id, note: leak}, carol)).toMatchObject({
      status: 422,
      body: {code: 'sensitive_content'},
    })
    expect([await state(c.id), await state(b.id)]).toEqual(beforeC)
    // Once the secret is gone, the merge goes through whole: both comments plus the merge's, one version of `into`.
    const ok = await post(`/knowledge/${c.id}/merge`, {into: b.id, note: 'same lock'}, carol)
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({version: before[1]!.version + 1, comment_count: before[1]!.count + 1})
    expect((await state(c.id)).by).toBe(b.id)
    const h = await d.request('GET', `/knowledge/${b.id}/history`, {key: carol})
    expect(h.body.items.at(-1)).toMatchObject({action: 'commented'})
  })
})
