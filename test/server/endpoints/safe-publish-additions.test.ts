/**
 * Safe publish for what is added to an entry a wider audience already reads (docs/api.md, "Safe publish"):
 * a comment or a resolution (note and url) on a project or global entry is scanned as an edit is — 422
 * sensitive_content with the findings, nothing stored, and the same two ways out (redact, acknowledge);
 * on a private entry nothing is scanned until it is published.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type HttpResult, type TestDaemon} from '../../helpers/daemon.js'
import {fakeCorpus} from '../scan/fake-corpus.js'
import {createEntry, joinProject} from './support.js'

const corpus = fakeCorpus(1516)
const secret = (kind: string): string => corpus.find((s) => s.kind === kind)!.secret
const line = (kind: string): string => corpus.find((s) => s.kind === kind)!.text

let d: TestDaemon
let projectId: string
let bob: string

beforeAll(async () => {
  d = await startInProcessDaemon()
  projectId = (await joinProject(d, 'git@github.com:acme/safe-additions.git')).id
  bob = await newPrincipal(d, 'bob', projectId)
})
afterAll(async () => {
  await d.stop()
})

/** A 422 sensitive_content naming both ways out and never the secret; returns the problem. */
function expectRefused(res: HttpResult, secrets: string[]): Record<string, any> {
  expect(res.status, res.text.slice(0, 400)).toBe(422)
  expect(res.body.code).toBe('sensitive_content')
  expect(res.body.detail).toMatch(/redact: true/)
  expect(res.body.detail).toMatch(/acknowledge: \[/)
  for (const s of secrets) expect(res.text).not.toContain(s)
  return res.body
}

const shared = async (scope: 'project' | 'global' = 'project'): Promise<Record<string, any>> =>
  createEntry(d, {title: 'Deploy stalls', body: 'The deploy job stalls after the migration step.', project_id: projectId, scope})

const get = async (id: string): Promise<Record<string, any>> => (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body

describe('POST /knowledge/:id/comments on a shared entry', () => {
  it('a comment carrying a secret is refused (nothing stored), by any member; redact stores it redacted', async () => {
    const e = await shared()
    const body = `Same here; the log had\n${line('github-pat')}`
    const p = expectRefused(await d.request('POST', `/knowledge/${e.id}/comments`, {body: {body}, key: bob}), [secret('github-pat')])
    expect(p.findings).toMatchObject([{field: 'comment', kind: 'github-pat', line: 2}])
    expect(p.diff).toMatchObject([{field: 'comment', line: 2}])
    expect(p.diff[0].after).toContain('[REDACTED:github-pat]')
    expect(await get(e.id)).toMatchObject({comment_count: 0, version: e.version})
    const res = await d.request('POST', `/knowledge/${e.id}/comments`, {body: {body, redact: true}, key: bob})
    expect(res.status, res.text).toBe(201)
    expect(res.body.body).toBe(`Same here; the log had\n${line('github-pat').replace(secret('github-pat'), '[REDACTED:github-pat]')}`)
    expect(res.body.author.name).toBe('bob')
    const after = await get(e.id)
    expect(after).toMatchObject({comment_count: 1, version: e.version})
    expect(after.comments[0].body).not.toContain(secret('github-pat'))
  })

  it('acknowledge keeps the comment as written and records who let what through, in the same version', async () => {
    const e = await shared('global')
    const body = `Write to ${secret('email')} for access`
    const p = expectRefused(await d.request('POST', `/knowledge/${e.id}/comments`, {body: {body, type: 'supplement'}}), [secret('email')])
    const ids = p.findings.map((f: any) => f.id)
    // The same text gives the same ids: the retry can name them.
    const again = expectRefused(await d.request('POST', `/knowledge/${e.id}/comments`, {body: {body}}), [])
    expect(again.findings.map((f: any) => f.id)).toEqual(ids)
    const res = await d.request('POST', `/knowledge/${e.id}/comments`, {body: {body, type: 'supplement', acknowledge: ids}})
    expect(res.status, res.text).toBe(201)
    expect(res.body).toMatchObject({body, type: 'supplement', author: {name: 'owner'}})
    const after = await get(e.id)
    expect(after).toMatchObject({comment_count: 2, version: e.version + 1})
    expect(after.comments.map((c: any) => c.id)[0]).toBe(res.body.id)
    expect(after.comments[1].body).toMatch(/^Safe publish: commenting on an entry in global scope with one finding acknowledged/)
    expect(after.comments[1].body).toContain(`${ids[0]} email address in comment, line 1`)
    expect(after.comments[1].body).not.toContain(secret('email'))
  })

  it('a clean comment, and any comment on a private entry, is not refused', async () => {
    const e = await shared()
    expect((await d.request('POST', `/knowledge/${e.id}/comments`, {body: {body: 'Retrying fixed it.'}})).status).toBe(201)
    const mine = await createEntry(d, {title: 'Mine', body: 'Notes', scope: 'private'})
    expect((await d.request('POST', `/knowledge/${mine.id}/comments`, {body: {body: line('private-key')}})).status).toBe(201)
    // ...and it is found when the entry is published.
    const preview = (await d.request('GET', `/knowledge/${mine.id}/publish-preview`, {query: {scope: 'global'}})).body
    expect(preview.findings[0].field).toMatch(/^comments\/[0-9a-f-]{36}\/body$/)
  })
})

describe('POST /knowledge/:id/resolve on a shared entry', () => {
  it('a note or url carrying a secret is refused (still open); redact resolves with them redacted', async () => {
    const e = await shared()
    const input = {note: `Rotated ${secret('stripe-access-token')}`, url: `https://ci.acme-corp.io/runs/9?token=${secret('github-pat')}`}
    const p = expectRefused(await d.request('POST', `/knowledge/${e.id}/resolve`, {body: input}), [
      secret('stripe-access-token'),
      secret('github-pat'),
    ])
    expect(p.findings.map((f: any) => f.field)).toEqual(['resolution/note', 'resolution/url'])
    expect(await get(e.id)).toMatchObject({status: 'open', resolution: null, version: e.version})
    const res = await d.request('POST', `/knowledge/${e.id}/resolve`, {body: {...input, redact: true}})
    expect(res.status, res.text).toBe(200)
    expect(res.body.status).toBe('resolved')
    expect(res.body.resolution).toMatchObject({
      note: 'Rotated [REDACTED:stripe-access-token]',
      url: 'https://ci.acme-corp.io/runs/9?token=[REDACTED:github-pat]',
    })
    expect(res.body.comment_count).toBe(0)
  })

  it('acknowledge resolves with the note as written and a record; a private entry is not scanned', async () => {
    const e = await shared()
    const note = `Call ${secret('phone')} when it recurs`
    const p = expectRefused(await d.request('POST', `/knowledge/${e.id}/resolve`, {body: {note}}), [secret('phone')])
    const res = await d.request('POST', `/knowledge/${e.id}/resolve`, {body: {note, acknowledge: p.findings.map((f: any) => f.id)}})
    expect(res.status, res.text).toBe(200)
    expect(res.body.resolution.note).toBe(note)
    expect(res.body.comments.at(-1).body).toMatch(/resolving an entry in project scope with one finding acknowledged/)
    const mine = await createEntry(d, {title: 'Mine', body: 'Notes', scope: 'private'})
    expect((await d.request('POST', `/knowledge/${mine.id}/resolve`, {body: {note}})).status).toBe(200)
  })

  it('publish scans the resolution url too', async () => {
    const mine = await createEntry(d, {title: 'Mine', body: 'Notes', project_id: projectId, scope: 'private'})
    const url = `https://ci.acme-corp.io/runs/3?token=${secret('github-pat')}`
    expect((await d.request('POST', `/knowledge/${mine.id}/resolve`, {body: {url}})).status).toBe(200)
    const refused = await d.request('POST', `/knowledge/${mine.id}/publish`, {body: {}})
    expect(refused.status).toBe(409)
    expect(refused.body.findings).toMatchObject([{field: 'resolution/url', kind: 'github-pat'}])
    const res = await d.request('POST', `/knowledge/${mine.id}/publish`, {body: {redact: true}})
    expect(res.status, res.text).toBe(200)
    expect(res.body.resolution.url).toBe('https://ci.acme-corp.io/runs/3?token=[REDACTED:github-pat]')
  })
})

describe('the redaction diff of a refusal', () => {
  it('masks findings that stay as written (acknowledged, or already there before an edit), never showing them', async () => {
    const aws = secret('aws-access-token')
    const gh = secret('github-pat')
    const e = await createEntry(d, {title: 'Keys in the log', body: `keys ${aws} and ${gh} on one line`, scope: 'private'})
    const preview = (await d.request('GET', `/knowledge/${e.id}/publish-preview`, {query: {scope: 'global'}})).body
    const awsId = preview.findings.find((f: {kind: string}) => f.kind === 'aws-access-token').id
    // The AWS key acknowledged, the token not: refused for the token; the diff shows neither.
    const res = await d.request('POST', `/knowledge/${e.id}/publish`, {body: {scope: 'global', acknowledge: [awsId]}})
    expect(res.status, res.text.slice(0, 400)).toBe(409)
    expect(res.body.findings).toMatchObject([{kind: 'github-pat'}])
    expect(res.body.diff[0].after).toContain('[REDACTED:github-pat]')
    expect(res.text).not.toContain(aws)
    expect(res.text).not.toContain(gh)
    // Acknowledged and published; an edit adding a second token to the same line is refused without showing the first.
    const ghId = preview.findings.find((f: {kind: string}) => f.kind === 'github-pat').id
    const published = await d.request('POST', `/knowledge/${e.id}/publish`, {body: {scope: 'global', acknowledge: [awsId, ghId]}})
    expect(published.status, published.text.slice(0, 400)).toBe(200)
    const stripe = secret('stripe-access-token')
    const edit = await d.request('PATCH', `/knowledge/${e.id}`, {
      body: {body: `keys ${aws} and ${gh} and ${stripe} on one line`},
      headers: {'if-match': `"${published.body.version}"`},
    })
    expectRefused(edit, [aws, gh, stripe])
    expect(edit.body.findings).toMatchObject([{kind: 'stripe-access-token'}])
  })
})
