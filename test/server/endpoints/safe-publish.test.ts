/**
 * Safe publish over HTTP (docs/api.md, "Safe publish"): publish refuses what the scanner finds (409) unless
 * redacted or acknowledged; the preview changes nothing; creating, editing and forking into a shared scope
 * refuse with 422 on the same terms; no answer ever carries a secret; and the daemon keeps answering while
 * hostile 100,000-character bodies are scanned.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanText} from '../../../server/scan/scanner.js'
import {newPrincipal, startInProcessDaemon, type HttpResult, type TestDaemon} from '../../helpers/daemon.js'
import {fakeCorpus} from '../scan/fake-corpus.js'
import {createEntry, joinProject} from './support.js'

const corpus = fakeCorpus(1515)
const secret = (kind: string): string => corpus.find((s) => s.kind === kind)!.secret
const line = (kind: string): string => corpus.find((s) => s.kind === kind)!.text
const SECRETS = corpus.map((s) => s.secret)

let d: TestDaemon
let projectId: string
let bob: string

beforeAll(async () => {
  d = await startInProcessDaemon()
  projectId = (await joinProject(d, 'git@github.com:acme/safe-publish.git')).id
  bob = await newPrincipal(d, 'bob', projectId)
})
afterAll(async () => {
  await d.stop()
})

/** No secret of the corpus anywhere in an answer. */
function expectNoSecret(res: HttpResult): void {
  for (const s of SECRETS) expect(res.text.includes(s), `answer holds ${s.slice(0, 8)}…`).toBe(false)
}

/** A sensitive_content problem with its report; returns it. */
function expectSensitive(res: HttpResult, status: 409 | 422): Record<string, any> {
  expect(res.status, res.text.slice(0, 500)).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  const p = res.body
  expect(p).toMatchObject({
    type: 'about:blank',
    status,
    code: 'sensitive_content',
    title: status === 409 ? 'Conflict' : 'Unprocessable Content',
  })
  expect(p.detail).toMatch(/redact: true/)
  expect(p.detail).toMatch(/acknowledge: \[/)
  expect(p.findings_total).toBe(p.findings.length)
  for (const f of p.findings) {
    expect(f.id).toMatch(/^[0-9a-f]{16}$/)
    expect(Object.keys(f).sort()).toEqual(['category', 'column', 'end', 'excerpt', 'field', 'id', 'kind', 'label', 'line', 'start'])
    expect(f.excerpt).toContain('…')
  }
  expectNoSecret(res)
  return p
}

/** A private entry carrying secrets and personal data in every field a wider audience reads. */
async function leakyEntry(): Promise<Record<string, any>> {
  const e = await createEntry(d, {
    title: `Deploy fails for ${secret('email')}`,
    body: `The job logged:\n\n    ${line('aws-access-token')}\n    ${line('slack-bot-token')}\n\nThen it retried.`,
    project_id: projectId,
    scope: 'private',
    tags: ['deploy', secret('npm-access-token')],
    url: `https://ci.acme-corp.io/jobs/7?token=${secret('github-pat')}`,
    thought_chain: [{thought: `The DSN was ${line('connection-string')}`}],
  })
  const c = await d.request('POST', `/knowledge/${e.id}/comments`, {body: {body: `Same here, from ${secret('ip-address')}`}})
  expect(c.status).toBe(201)
  const r = await d.request('POST', `/knowledge/${e.id}/resolve`, {body: {note: `Rotated ${secret('stripe-access-token')}`}})
  expect(r.status).toBe(200)
  return (await d.request('GET', `/knowledge/${e.id}`, {query: {detail: 'full'}})).body
}

const KINDS_IN_LEAKY = [
  'email',
  'aws-access-token',
  'slack-bot-token',
  'npm-access-token',
  'github-pat',
  'connection-string',
  'ip-address',
  'stripe-access-token',
]

describe('POST /knowledge/:id/publish', () => {
  it('refuses with 409 sensitive_content, every field scanned, nothing changed', async () => {
    const e = await leakyEntry()
    const p = expectSensitive(await d.request('POST', `/knowledge/${e.id}/publish`, {body: {scope: 'project'}}), 409)
    expect(p.findings.map((f: any) => f.kind).sort()).toEqual([...KINDS_IN_LEAKY].sort())
    const fields = p.findings.map((f: any) => f.field)
    const everywhere = ['title', 'body', 'url', 'tags/1', 'thought_chain/0/thought', 'resolution/note', `comments/${e.comments[0].id}/body`]
    expect(fields).toEqual(expect.arrayContaining(everywhere))
    const aws = p.findings.find((f: any) => f.kind === 'aws-access-token')
    expect(aws).toMatchObject({field: 'body', line: 3, category: 'secret'})
    expect(p.diff.some((l: any) => l.field === 'body' && l.line === 3 && l.after.includes('[REDACTED:aws-access-token]'))).toBe(true)
    expect(p.diff.find((l: any) => l.field === 'tags/1')).toMatchObject({after: null})
    const now = (await d.request('GET', `/knowledge/${e.id}`)).body
    expect(now).toMatchObject({scope: 'private', version: e.version, body: e.body})
  })

  it('the preview shows the same findings and the redacted text, and changes nothing', async () => {
    const e = await leakyEntry()
    const refused = (await d.request('POST', `/knowledge/${e.id}/publish`, {body: {}})).body
    const res = await d.request('GET', `/knowledge/${e.id}/publish-preview`)
    expect(res.status).toBe(200)
    expectNoSecret(res)
    const preview = res.body
    expect(preview.scope).toBe('project')
    expect(preview.findings.map((f: any) => f.id)).toEqual(refused.findings.map((f: any) => f.id))
    expect(preview.redacted.body).toContain('[REDACTED:aws-access-token]')
    expect(preview.redacted['tags/1']).toBeNull()
    expect(preview.redacted[`comments/${e.comments[0].id}/body`]).toContain('[REDACTED:ip-address]')
    expect(Object.keys(preview.redacted)).not.toContain('tags/0')
    expect((await d.request('GET', `/knowledge/${e.id}`)).body.version).toBe(e.version)
    const global = await d.request('GET', `/knowledge/${e.id}/publish-preview`, {query: {scope: 'global'}})
    expect(global.body.scope).toBe('global')
  })

  it('the preview refuses what publish would: a scope that does not widen, a stranger', async () => {
    const e = await leakyEntry()
    expect((await d.request('GET', `/knowledge/${e.id}/publish-preview`, {query: {scope: 'private'}})).status).toBe(409)
    expect((await d.request('GET', `/knowledge/${e.id}/publish-preview`, {key: bob})).status).toBe(404)
  })

  it('redact: true stores the redacted text and the new scope as one new version', async () => {
    const e = await leakyEntry()
    const res = await d.request('POST', `/knowledge/${e.id}/publish`, {body: {scope: 'global', redact: true}})
    expect(res.status, res.text).toBe(200)
    expectNoSecret(res)
    const after = res.body
    expect(after).toMatchObject({scope: 'global', version: e.version + 1, tags: ['deploy'], comment_count: 1})
    expect(after.title).toBe('Deploy fails for [REDACTED:email]')
    expect(after.body).toContain('aws_access_key_id = [REDACTED:aws-access-token]')
    expect(after.url).toBe('https://ci.acme-corp.io/jobs/7?token=[REDACTED:github-pat]')
    expect(after.thought_chain[0].thought).toContain('[REDACTED:connection-string]')
    expect(after.comments[0].body).toBe('Same here, from [REDACTED:ip-address]')
    expect(after.resolution.note).toBe('Rotated [REDACTED:stripe-access-token]')
    // Search sees the redacted text only; the summary was recomputed.
    const summary = (await d.request('GET', `/knowledge/${e.id}`, {query: {detail: 'summary'}})).body
    expect(summary.title).toContain('[REDACTED:email]')
    const found = await d.request('GET', '/search', {query: {q: secret('aws-access-token')}})
    expect(found.body.items.map((i: any) => i.id)).not.toContain(e.id)
    // What is published scans clean.
    for (const text of [
      after.title,
      after.body,
      after.url,
      ...after.tags,
      after.thought_chain[0].thought,
      after.comments[0].body,
      after.resolution.note,
    ]) {
      expect(scanText(text)).toEqual([])
    }
  })

  it('acknowledge: [ids] publishes as is and records who acknowledged what, in the same version', async () => {
    const e = await leakyEntry()
    const ids = (await d.request('GET', `/knowledge/${e.id}/publish-preview`)).body.findings.map((f: any) => f.id)
    const res = await d.request('POST', `/knowledge/${e.id}/publish`, {body: {acknowledge: ids}})
    expect(res.status, res.text).toBe(200)
    const after = res.body
    expect(after).toMatchObject({
      scope: 'project',
      body: e.body,
      title: e.title,
      url: e.url,
      tags: e.tags,
      version: e.version + 1,
      comment_count: 2,
    })
    const note = after.comments[1]
    expect(note.author.name).toBe('owner')
    expect(note.type).toBe('note')
    for (const id of ids) expect(note.body).toContain(id)
    expect(note.body).toMatch(/publishing to project with 8 findings acknowledged/)
    expect(note.body).toContain('AWS access key in body, line 3')
    // The record names kinds and places, never the text, and is itself clean to publish further.
    for (const s of SECRETS) expect(note.body).not.toContain(s)
    expect(scanText(note.body)).toEqual([])
  })

  it('publishing wider again asks again: an acknowledgement is for one audience', async () => {
    const e = await leakyEntry()
    const ids = (await d.request('GET', `/knowledge/${e.id}/publish-preview`)).body.findings.map((f: any) => f.id)
    expect((await d.request('POST', `/knowledge/${e.id}/publish`, {body: {acknowledge: ids}})).status).toBe(200)
    const p = expectSensitive(await d.request('POST', `/knowledge/${e.id}/publish`, {body: {scope: 'global'}}), 409)
    expect(p.findings.map((f: any) => f.id).sort()).toEqual([...ids].sort())
  })

  it('acknowledging some and redacting the rest; acknowledging some without redact lists only the rest', async () => {
    const e = await leakyEntry()
    const findings = (await d.request('GET', `/knowledge/${e.id}/publish-preview`)).body.findings
    const email = findings.find((f: any) => f.kind === 'email')
    const partial = expectSensitive(await d.request('POST', `/knowledge/${e.id}/publish`, {body: {acknowledge: [email.id]}}), 409)
    expect(partial.findings.map((f: any) => f.id)).not.toContain(email.id)
    expect(partial.findings).toHaveLength(findings.length - 1)
    const res = await d.request('POST', `/knowledge/${e.id}/publish`, {body: {acknowledge: [email.id], redact: true}})
    expect(res.status).toBe(200)
    expect(res.body.title).toBe(e.title)
    expect(res.body.body).toContain('[REDACTED:aws-access-token]')
    const note = res.body.comments.at(-1)
    expect(note.body).toContain(email.id)
    expect(note.body).toMatch(/one finding acknowledged/)
  })

  it('an acknowledgement is of the text that was seen: after an edit the ids differ and publish refuses', async () => {
    const e = await leakyEntry()
    const ids = (await d.request('GET', `/knowledge/${e.id}/publish-preview`)).body.findings.map((f: any) => f.id)
    const edited = await d.request('PATCH', `/knowledge/${e.id}`, {body: {body: `Preface.\n${e.body}`}})
    expect(edited.status).toBe(200)
    const p = expectSensitive(await d.request('POST', `/knowledge/${e.id}/publish`, {body: {acknowledge: ids}}), 409)
    expect(p.findings.some((f: any) => f.field === 'body')).toBe(true)
  })

  it('a clean entry publishes with no record added', async () => {
    const e = await createEntry(d, {
      title: 'Port 7411 in use',
      body: 'Stop the old daemon with kb daemon stop.',
      project_id: projectId,
      scope: 'private',
    })
    const res = await d.request('POST', `/knowledge/${e.id}/publish`, {body: {}})
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({scope: 'project', comment_count: 0, version: 2})
  })

  it('refuses malformed acknowledgements with 422 validation_failed', async () => {
    const e = await leakyEntry()
    const res = await d.request('POST', `/knowledge/${e.id}/publish`, {body: {acknowledge: ['not-an-id']}})
    expect(res.status).toBe(422)
    expect(res.body.code).toBe('validation_failed')
  })
})

describe('creating, editing and forking into a shared scope', () => {
  it('create in project scope: 422 and nothing stored; redact or acknowledge let it through', async () => {
    const input = {title: 'Webhook misfires', body: `Posted to ${line('slack-webhook-url')}`, project_id: projectId, scope: 'project'}
    const before = (await d.request('GET', '/knowledge', {query: {limit: 100}})).body.items.length
    const p = expectSensitive(await d.request('POST', '/knowledge', {body: input}), 422)
    expect(p.findings).toMatchObject([{kind: 'slack-webhook-url', field: 'body'}])
    expect((await d.request('GET', '/knowledge', {query: {limit: 100}})).body.items.length).toBe(before)
    const redacted = await d.request('POST', '/knowledge', {body: {...input, redact: true}})
    expect(redacted.status).toBe(201)
    expect(redacted.body.body).toBe('Posted to curl -X POST https://[REDACTED:slack-webhook-url]')
    expect(redacted.body.comment_count).toBe(0)
    const acked = await d.request('POST', '/knowledge', {body: {...input, acknowledge: [p.findings[0].id]}})
    expect(acked.status).toBe(201)
    expect(acked.body).toMatchObject({body: input.body, comment_count: 1, scope: 'project'})
    expect(acked.body.comments[0].body).toMatch(/creating an entry in project scope with one finding acknowledged/)
  })

  it('create in private scope is not scanned', async () => {
    const res = await d.request('POST', '/knowledge', {body: {title: 'Mine', body: line('private-key'), scope: 'private'}})
    expect(res.status).toBe(201)
  })

  it('edit of a shared entry: only the findings the change brings count', async () => {
    const e = await createEntry(d, {title: 'Shared', body: `Reach me at ${secret('email')}`, project_id: projectId, scope: 'private'})
    const email = (await d.request('GET', `/knowledge/${e.id}/publish-preview`)).body.findings[0].id
    expect((await d.request('POST', `/knowledge/${e.id}/publish`, {body: {acknowledge: [email]}})).status).toBe(200)
    // The acknowledged address stays where it was: editing around it is no new exposure.
    const retitled = await d.request('PATCH', `/knowledge/${e.id}`, {
      body: {title: 'Shared, retitled', body: `Note.\nReach me at ${secret('email')}`},
    })
    expect(retitled.status, retitled.text).toBe(200)
    const brought = `${line('github-fine-grained-pat')}\nReach me at ${secret('email')}`
    const p = expectSensitive(await d.request('PATCH', `/knowledge/${e.id}`, {body: {body: brought}}), 422)
    expect(p.findings.map((f: any) => f.kind)).toEqual(['github-fine-grained-pat'])
    const redacted = await d.request('PATCH', `/knowledge/${e.id}`, {
      body: {body: `${line('github-fine-grained-pat')}`, tags: ['ok'], redact: true},
    })
    expect(redacted.status).toBe(200)
    expect(redacted.body.body).toBe('GH_TOKEN=[REDACTED:github-fine-grained-pat]')
    // Tags are stored lower-cased: an npm token (lower-case already) survives that and is found.
    const tags = expectSensitive(await d.request('PATCH', `/knowledge/${e.id}`, {body: {tags: [secret('npm-access-token')]}}), 422)
    expect(tags.findings[0]).toMatchObject({field: 'tags/0', kind: 'npm-access-token'})
    const acked = await d.request('PATCH', `/knowledge/${e.id}`, {
      body: {tags: [secret('npm-access-token')], acknowledge: [tags.findings[0].id]},
    })
    expect(acked.status).toBe(200)
    expect(acked.body.comments.at(-1).body).toMatch(/editing an entry in project scope/)
  })

  it('fork into a wider audience is scanned; within the same one it is not', async () => {
    const e = await createEntry(d, {title: 'Key leak', body: line('anthropic-api-key'), project_id: projectId, scope: 'private'})
    expect((await d.request('POST', `/knowledge/${e.id}/fork`, {body: {}})).status).toBe(201)
    const p = expectSensitive(await d.request('POST', `/knowledge/${e.id}/fork`, {body: {scope: 'project'}}), 422)
    expect(p.findings[0].kind).toBe('anthropic-api-key')
    const fork = await d.request('POST', `/knowledge/${e.id}/fork`, {body: {scope: 'global', redact: true}})
    expect(fork.status).toBe(201)
    expect(fork.body.body).toBe('ANTHROPIC_API_KEY=[REDACTED:anthropic-api-key]')
    // A project entry forked into its own project reaches no one new.
    const shared = await createEntry(d, {title: 'Ack', body: line('phone'), project_id: projectId, scope: 'private'})
    const id = (await d.request('GET', `/knowledge/${shared.id}/publish-preview`)).body.findings[0].id
    expect((await d.request('POST', `/knowledge/${shared.id}/publish`, {body: {acknowledge: [id]}})).status).toBe(200)
    const same = await d.request('POST', `/knowledge/${shared.id}/fork`, {body: {scope: 'project', project_id: projectId}})
    expect(same.status, same.text).toBe(201)
  })
})

describe('POST /import into a shared scope', () => {
  const header = JSON.stringify({kind: 'kb-export', version: 1})
  const entryLine = (id: string, body: string, scope = 'global'): string =>
    JSON.stringify({kind: 'entry', id, title: 'Imported', body, scope, created_at: '2026-01-01T00:00:00.000Z'})
  const importBody = (...lines: string[]): string => `${[header, ...lines].join('\n')}\n`
  const post = (text: string, query: Record<string, string | boolean> = {}): Promise<HttpResult> =>
    d.request('POST', '/import', {raw: text, contentType: 'application/x-ndjson', query})

  it('rejects an entry with findings (nothing applied), names them and both ways out', async () => {
    const id = '01930000-0000-7000-8000-00000000a001'
    const res = await post(
      importBody(entryLine(id, line('gcp-api-key')), entryLine('01930000-0000-7000-8000-00000000a002', 'clean', 'global')),
    )
    expect(res.status).toBe(200)
    expectNoSecret(res)
    expect(res.body).toMatchObject({created: 0, rejected: [{line: 2}]})
    expect(res.body.rejected[0].reason).toMatch(/^sensitive content for global scope: Google Cloud API key in body, line 1 /)
    expect(res.body.rejected[0].reason).toMatch(/redact=true.*acknowledge=[0-9a-f]{16}/)
    expect((await d.request('GET', `/knowledge/${id}`)).status).toBe(404)
  })

  it('private entries are not scanned; redact=true redacts; acknowledge=<ids> keeps and records', async () => {
    const priv = await post(importBody(entryLine('01930000-0000-7000-8000-00000000a011', line('gcp-api-key'), 'private')))
    expect(priv.body).toMatchObject({created: 1, rejected: []})
    const redacted = await post(importBody(entryLine('01930000-0000-7000-8000-00000000a012', line('gcp-api-key'))), {redact: true})
    expect(redacted.body).toMatchObject({created: 1, rejected: []})
    expect((await d.request('GET', '/knowledge/01930000-0000-7000-8000-00000000a012')).body.body).toBe(
      'const firebaseKey = "[REDACTED:gcp-api-key]";',
    )
    const refused = await post(importBody(entryLine('01930000-0000-7000-8000-00000000a013', line('gcp-api-key'))))
    const ids = /acknowledge=([0-9a-f,]+)/.exec(refused.body.rejected[0].reason)![1]!
    const acked = await post(importBody(entryLine('01930000-0000-7000-8000-00000000a013', line('gcp-api-key'))), {acknowledge: ids})
    expect(acked.body).toMatchObject({created: 1, rejected: []})
    const e = (await d.request('GET', '/knowledge/01930000-0000-7000-8000-00000000a013', {query: {detail: 'full'}})).body
    expect(e.body).toBe(line('gcp-api-key'))
    expect(e.comments[0].body).toMatch(/^Safe publish: importing into global scope with one finding acknowledged/)
  })

  it('acknowledge= takes comma-separated finding ids and nothing else', async () => {
    const ids = (n: number): string => Array.from({length: n}, (_, i) => i.toString(16).padStart(16, '0')).join(',')
    const clean = importBody(entryLine('01930000-0000-7000-8000-00000000a021', 'clean'))
    expect((await post(clean, {acknowledge: ids(50), dry_run: true})).status).toBe(200)
    for (const bad of ['not-an-id', `${ids(2)},`, 'ABCDEF0123456789']) {
      const res = await post(clean, {acknowledge: bad, dry_run: true})
      expect(res.status, bad).toBe(400)
      expect(res.body.code).toBe('bad_request')
    }
  })

  it('an entry published with an acknowledgement exports and imports again without asking twice', async () => {
    const e = await createEntry(d, {title: 'Round trip', body: line('sendgrid-api-token'), project_id: projectId, scope: 'private'})
    const ids = (await d.request('GET', `/knowledge/${e.id}/publish-preview`, {query: {scope: 'global'}})).body.findings.map(
      (f: any) => f.id,
    )
    expect((await d.request('POST', `/knowledge/${e.id}/publish`, {body: {scope: 'global', acknowledge: ids}})).status).toBe(200)
    // JSON Lines: read as text (the helper would parse it as one JSON document).
    const exported = await (await fetch(`${d.url}/export?scope=global`, {headers: {authorization: `Bearer ${d.ownerKey}`}})).text()
    const mine = exported.split('\n').filter((l) => l.includes(e.id) && l.includes('"kind":"entry"'))
    expect(mine).toHaveLength(1)
    // Restored after a deletion: its own record acknowledges the same findings, so it goes back in as it was.
    expect((await d.request('DELETE', `/knowledge/${e.id}`)).status).toBe(204)
    const again = await post(importBody(mine[0]!))
    expect(again.body, JSON.stringify(again.body)).toMatchObject({created: 1, rejected: []})
    const restored = (await d.request('GET', `/knowledge/${e.id}`, {query: {detail: 'full'}})).body
    expect(restored.body).toBe(line('sendgrid-api-token'))
    expect(restored.comments).toHaveLength(1)
    // A finding the record does not name still counts: the same line with another secret added is refused.
    const tampered = mine[0]!.replace(
      JSON.stringify(line('sendgrid-api-token')),
      JSON.stringify(`${line('sendgrid-api-token')}\n${line('jwt')}`),
    )
    expect((await d.request('DELETE', `/knowledge/${e.id}`)).status).toBe(204)
    const refused = await post(importBody(tampered))
    expect(refused.body.rejected[0].reason).toMatch(/JSON Web Token in body, line 2/)
  })
})

describe('hostile bodies', () => {
  it('100,000-character adversarial bodies are scanned while /health keeps answering', async () => {
    const bodies = [
      'a.b@c.d'.repeat(14_286),
      'key='.repeat(25_000),
      '-----BEGIN RSA PRIVATE KEY-----\n'.repeat(3_125),
      `eyJhbGciOiJIUzI1NiJ9.ey${'/eyJhbGciOiJIUzI1NiJ9'.repeat(5000)}`,
      '+1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 '.repeat(3_125),
    ].map((b) => b.slice(0, 100_000))
    const ids: string[] = []
    for (const body of bodies) ids.push((await createEntry(d, {title: 'Hostile', body, project_id: projectId, scope: 'private'})).id)
    let worst = 0
    let polling = true
    const poll = (async () => {
      while (polling) {
        const t = performance.now()
        const h = await d.request('GET', '/health', {key: null})
        expect(h.status).toBe(200)
        worst = Math.max(worst, performance.now() - t)
      }
    })()
    const started = performance.now()
    const answers = await Promise.all(ids.map((id) => d.request('GET', `/knowledge/${id}/publish-preview`)))
    const took = performance.now() - started
    polling = false
    await poll
    for (const a of answers) expect(a.status).toBe(200)
    // Wall-clock bounds, generous for a shared two-core machine: each scan is tens of milliseconds of CPU
    // (test/server/scan/linear.test.ts measures that), so a stall of seconds would mean a scan that is not.
    expect(took).toBeLessThan(20_000)
    expect(worst).toBeLessThan(3_000)
  })
})
