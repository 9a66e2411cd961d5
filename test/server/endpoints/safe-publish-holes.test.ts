/**
 * Holes in safe publish found by the attacks of issue 24 (docs/security.md, "When the scan runs"): a fork's
 * title is new text and is scanned even when the fork stays among the parent's readers; an import honours
 * only acknowledgements the server recorded and signed, for the audience they were given for.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
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
