/**
 * The actions of a signed-in person over HTTP (docs/web.md, "Actions"), on both drivers: each form is the API call
 * it names (the entry changes as the API would change it, history says so), a form without its token is refused, a
 * refusal is shown in the API's words with its status, and publish shows the findings and redaction diff first.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {signIn, webClient, type WebClient} from './support.js'

// A made-up AWS access key id: the safe-publish scanner finds it (test/server/endpoints/recall.test.ts uses it too).
const AWS_KEY = 'AKIAQ5XTYWBN7TGHMK2P'

let d: TestDaemon
let c: WebClient
let csrf: string

async function entry(body: Record<string, unknown>, key?: string): Promise<string> {
  const res = await d.request('POST', '/knowledge', {body, ...(key ? {key} : {})})
  expect(res.status, res.text).toBe(201)
  return res.body.id
}
const full = async (id: string): Promise<any> => (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body

beforeAll(async () => {
  d = await startInProcessDaemon()
  c = webClient(d)
  await signIn(c, d.ownerKey)
  csrf = await c.csrf()
})
afterAll(async () => d?.stop())

describe('actions', () => {
  it('comment, verify, flag, resolve: each changes the entry as its API call does', async () => {
    const id = await entry({title: 'Flaky build on CI', body: 'Retry the job.', scope: 'private'})
    const page = await (await c.get(`/e/${id}`)).text()
    for (const a of ['comment', 'verify', 'flag', 'resolve', 'fork', 'supersede']) expect(page).toContain(`action="/e/${id}/${a}"`)

    const commented = await c.post(`/e/${id}/comment`, {csrf_token: csrf, body: 'Seen *again* today.', type: 'supplement'})
    expect(commented.status).toBe(303)
    expect(commented.headers.get('location')).toBe(`/e/${id}?done=comment`)
    expect(await (await c.get(`/e/${id}?done=comment`)).text()).toContain('Your comment was added.')

    expect((await c.post(`/e/${id}/verify`, {csrf_token: csrf, note: 'still true'})).status).toBe(303)
    expect((await c.post(`/e/${id}/flag`, {csrf_token: csrf, reason: 'incorrect', note: 'not on arm64'})).status).toBe(303)
    expect((await c.post(`/e/${id}/resolve`, {csrf_token: csrf, note: 'fixed by pinning', url: 'https://ci.example.com/1'})).status).toBe(
      303,
    )

    const e = await full(id)
    expect(e.comments.map((x: any) => [x.type, x.body])).toContainEqual(['supplement', 'Seen *again* today.'])
    expect(e.freshness.verified_by.name).toBe('owner')
    expect(e.flags.incorrect).toBe(1)
    expect(e.status).toBe('resolved')
    expect(e.resolution.note).toBe('fixed by pinning')
    const history = (await d.request('GET', `/knowledge/${id}/history`)).body.items.map((h: any) => h.action)
    expect(history).toEqual(expect.arrayContaining(['commented', 'verified', 'flagged', 'resolved']))

    const shown = await (await c.get(`/e/${id}`)).text()
    expect(shown).toContain('<em>again</em>')
    expect(shown).toContain('flagged ×1')
    expect(shown).toContain('Resolution')
  })

  it('fork lands on the new entry; supersede points at its replacement', async () => {
    const id = await entry({title: 'Old way', body: 'Use make.', scope: 'private'})
    const forked = await c.post(`/e/${id}/fork`, {csrf_token: csrf, title: 'New way'})
    expect(forked.status).toBe(303)
    const forkId = /^\/e\/([0-9a-f-]{36})\?done=fork$/.exec(forked.headers.get('location')!)![1]!
    expect((await full(forkId)).forked_from).toBe(id)
    expect((await full(forkId)).title).toBe('New way')

    expect((await c.post(`/e/${id}/supersede`, {csrf_token: csrf, by: forkId, note: 'use the fork'})).status).toBe(303)
    expect((await full(id)).superseded_by).toBe(forkId)
    const page = await (await c.get(`/e/${id}`)).text()
    expect(page).toContain(`Superseded by <a href="/e/${forkId}">New way</a>`)
  })

  it('refuses a form without its token, and says a refusal in the API words with its status', async () => {
    const id = await entry({title: 'Guarded', body: 'Body.', scope: 'private'})
    for (const a of ['comment', 'verify', 'flag', 'resolve', 'fork', 'supersede', 'publish']) {
      const res = await c.post(`/e/${id}/${a}`, {body: 'x', reason: 'stale', by: id})
      expect(res.status, a).toBe(403)
      expect(await res.text()).toContain('could not be verified')
      // A token of another session is no better.
      const other = webClient(d)
      await signIn(other, d.ownerKey)
      expect((await c.post(`/e/${id}/${a}`, {csrf_token: await other.csrf(), body: 'x', reason: 'stale'})).status, a).toBe(403)
    }
    expect((await full(id)).comments).toEqual([])

    const empty = await c.post(`/e/${id}/comment`, {csrf_token: csrf, body: ''})
    expect(empty.status).toBe(422)
    expect(await empty.text()).toMatch(/role="alert">[^<]*body/)
    const badReason = await c.post(`/e/${id}/flag`, {csrf_token: csrf, reason: 'boring'})
    expect(badReason.status).toBe(422)
    const badBy = await c.post(`/e/${id}/supersede`, {csrf_token: csrf, by: 'not-an-id'})
    expect(badBy.status).toBe(422)

    // Another person may comment on what they can see, but not resolve it: the API's 403, in its words.
    const bob = (await d.request('POST', '/api-keys', {body: {principal: 'bob'}})).body.key
    const shared = await entry({title: 'Shared', body: 'For everyone.', scope: 'global'})
    const cb = webClient(d)
    await signIn(cb, bob)
    const refused = await cb.post(`/e/${shared}/resolve`, {csrf_token: await cb.csrf()})
    expect(refused.status).toBe(403)
    expect(await refused.text()).toMatch(/role="alert">[^<]*(author|owner)/)
    // A private entry of someone else is the 404 page, for an action too.
    expect((await cb.post(`/e/${id}/comment`, {csrf_token: await cb.csrf(), body: 'hi'})).status).toBe(404)
  })

  it('publish shows the findings and the redaction diff before confirming; redact publishes the redacted text', async () => {
    const id = await entry({title: 'Deploy creds', body: `Use key ${AWS_KEY} for the bucket.`, scope: 'private'})
    const preview = await c.get(`/e/${id}/publish?scope=global`)
    expect(preview.status).toBe(200)
    const html = await preview.text()
    expect(html).toContain('1 finding')
    expect(html).not.toContain(AWS_KEY)
    expect(html).toContain('What redaction would change')
    expect(html).toContain('[REDACTED:')

    const plain = await c.post(`/e/${id}/publish`, {csrf_token: csrf, scope: 'global'})
    expect(plain.status).toBe(409)
    expect(await plain.text()).toContain('role="alert"')
    expect((await full(id)).scope).toBe('private')

    const redacted = await c.post(`/e/${id}/publish`, {csrf_token: csrf, scope: 'global', choice: 'redact'})
    expect(redacted.status).toBe(303)
    const e = await full(id)
    expect(e.scope).toBe('global')
    expect(e.body).not.toContain(AWS_KEY)
    expect(e.body).toContain('[REDACTED:')
  })

  it('publish with no findings is one click after the preview', async () => {
    const id = await entry({title: 'Clean', body: 'Nothing secret here.', scope: 'private'})
    expect(await (await c.get(`/e/${id}/publish?scope=global`)).text()).toContain('No secrets or personal data were found')
    expect((await c.post(`/e/${id}/publish`, {csrf_token: csrf, scope: 'global'})).status).toBe(303)
    expect((await full(id)).scope).toBe('global')
  })
})
