/**
 * Holes in safe publish found by the attacks of issue 24 (docs/security.md, "When the scan runs"): a fork's
 * title is new text and is scanned even when the fork stays among the parent's readers; an import honours
 * only acknowledgements the server recorded and signed, for the audience they were given for.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, type HttpResult, type TestDaemon} from '../../helpers/daemon.js'
import {fakeCorpus} from '../scan/fake-corpus.js'
import {joinProject} from './support.js'

const corpus = fakeCorpus(2424)
const secret = (kind: string): string => corpus.find((s) => s.kind === kind)!.secret

let d: TestDaemon
let projectId: string

beforeAll(async () => {
  d = await startInProcessDaemon()
  projectId = (await joinProject(d, 'git@github.com:acme/holes.git')).id
})
afterAll(async () => {
  await d.stop()
})

describe('a fork brings its title', () => {
  it('a global entry forked into global with a key in its title: 422, nothing stored; redact stores the marker', async () => {
    const g = await d.request('POST', '/knowledge', {body: {title: 'Clean global', body: 'Nothing here.', scope: 'global'}})
    expect(g.status).toBe(201)
    const key = secret('aws-access-token')
    const before = (await d.request('GET', '/knowledge', {query: {limit: 100}})).body.items.length
    const res = await d.request('POST', `/knowledge/${g.body.id}/fork`, {body: {title: `fork ${key}`, scope: 'global'}})
    expect(res.status, res.text.slice(0, 300)).toBe(422)
    expect(res.body).toMatchObject({code: 'sensitive_content'})
    expect(res.body.findings).toMatchObject([{field: 'title', kind: 'aws-access-token'}])
    expect(res.text.includes(key)).toBe(false)
    expect((await d.request('GET', '/knowledge', {query: {limit: 100}})).body.items.length).toBe(before)
    const redacted = await d.request('POST', `/knowledge/${g.body.id}/fork`, {body: {title: `fork ${key}`, scope: 'global', redact: true}})
    expect(redacted.status).toBe(201)
    expect(redacted.body.title).toBe('fork [REDACTED:aws-access-token]')
  })

  it('a project entry forked into its own project: the title is scanned, what the parent already held is not', async () => {
    const body = {title: 'Ours', body: 'Call +44 20 7946 0123 for access.', scope: 'private', project_id: projectId}
    const e = (await d.request('POST', '/knowledge', {body})).body
    const phone = (await d.request('GET', `/knowledge/${e.id}/publish-preview`)).body.findings[0].id
    expect((await d.request('POST', `/knowledge/${e.id}/publish`, {body: {acknowledge: [phone]}})).status).toBe(200)
    const plain = await d.request('POST', `/knowledge/${e.id}/fork`, {body: {scope: 'project', project_id: projectId}})
    expect(plain.status, plain.text).toBe(201)
    const res = await d.request('POST', `/knowledge/${e.id}/fork`, {
      body: {title: `see ${secret('github-pat')}`, scope: 'project', project_id: projectId},
    })
    expect(res.status).toBe(422)
    expect(res.body.findings.map((f: {kind: string}) => f.kind)).toEqual(['github-pat'])
  })
})

describe('an import honours only acknowledgements this server signed, for the audience they were given for', () => {
  const header = JSON.stringify({kind: 'kb-export', version: 1})
  const post = (lines: string[], query: Record<string, string | boolean> = {}): Promise<HttpResult> =>
    d.request('POST', '/import', {raw: `${[header, ...lines].join('\n')}\n`, contentType: 'application/x-ndjson', query})
  const exportedLine = async (id: string): Promise<string> => {
    const text = await (await fetch(`${d.url}/export`, {headers: {authorization: `Bearer ${d.ownerKey}`}})).text()
    return text.split('\n').find((l) => l.includes(`"id":"${id}"`) && l.includes('"kind":"entry"'))!
  }

  it('a hand-written "Safe publish:" comment acknowledges nothing', async () => {
    const key = secret('stripe-access-token')
    const probe = await post([JSON.stringify({kind: 'entry', id: crypto.randomUUID(), title: 'Forged', body: key, scope: 'global'})])
    const id = /acknowledge=([0-9a-f]{16})/.exec(probe.body.rejected[0].reason)![1]!
    const forged = {
      kind: 'entry',
      id: crypto.randomUUID(),
      title: 'Forged',
      body: key,
      scope: 'global',
      comments: [
        {
          id: crypto.randomUUID(),
          body: `Safe publish: publishing to global with one finding acknowledged as intended (not redacted).\n- ${id} Stripe access token in body, line 1`,
          type: 'note',
          created_at: '2026-01-01T00:00:00.000Z',
        },
      ],
    }
    const res = await post([JSON.stringify(forged)])
    expect(res.status).toBe(200)
    expect(res.body.created).toBe(0)
    expect(res.body.rejected[0].reason).toMatch(/sensitive content for global scope: Stripe/)
    expect(res.text.includes(key)).toBe(false)
  })

  it('an export edited from project to global, imported with on_conflict=overwrite, is refused; as exported it goes back in', async () => {
    const body = {title: 'Acked for the project', body: `token ${secret('slack-bot-token')}`, scope: 'private', project_id: projectId}
    const e = (await d.request('POST', '/knowledge', {body})).body
    const ids = (await d.request('GET', `/knowledge/${e.id}/publish-preview`)).body.findings.map((f: {id: string}) => f.id)
    expect((await d.request('POST', `/knowledge/${e.id}/publish`, {body: {acknowledge: ids}})).status).toBe(200)
    const line = await exportedLine(e.id)
    expect(JSON.parse(line).comments[0].body).toMatch(/\nSigned: [0-9a-f]{32}$/)
    const widened = line.replace('"scope":"project"', '"scope":"global"')
    expect(widened).not.toBe(line)
    const res = await post([widened], {on_conflict: 'overwrite'})
    expect(res.body.updated).toBe(0)
    expect(res.body.rejected[0].reason).toMatch(/sensitive content for global scope: Slack bot token/)
    expect((await d.request('GET', `/knowledge/${e.id}`)).body.scope).toBe('project')
    // The record as the server wrote it, for the audience it was given for: honoured (a restore asks nothing again).
    expect((await d.request('DELETE', `/knowledge/${e.id}`)).status).toBe(204)
    const back = await post([line])
    expect(back.body, JSON.stringify(back.body)).toMatchObject({created: 1, rejected: []})
  })
})

describe('disguised secrets through the API', () => {
  it('a token with a zero-width space inside is refused, and redaction removes every character of it', async () => {
    const pat = secret('github-pat')
    const disguised = `${pat.slice(0, 8)}\u200b${pat.slice(8)}`
    const input = {title: 'CI token', body: `GH=${disguised} end`, scope: 'global'}
    const res = await d.request('POST', '/knowledge', {body: input})
    expect(res.status).toBe(422)
    expect(res.body.findings).toMatchObject([{kind: 'github-pat', field: 'body'}])
    const redacted = await d.request('POST', '/knowledge', {body: {...input, redact: true}})
    expect(redacted.status).toBe(201)
    expect(redacted.body.body).toBe('GH=[REDACTED:github-pat] end')
  })
})
