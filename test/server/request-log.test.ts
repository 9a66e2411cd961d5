/**
 * The request log never holds a secret (docs/security.md, "Safe publish"): a token or address in a request's
 * path or query — a search for a pasted token — is written as its kind; other targets are logged as sent.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startChildDaemon, type ChildDaemon} from '../helpers/daemon.js'
import {fakeCorpus} from './scan/fake-corpus.js'

const corpus = fakeCorpus(1212)
const secret = (kind: string): string => corpus.find((s) => s.kind === kind)!.secret

let d: ChildDaemon
beforeAll(async () => {
  d = await startChildDaemon()
})
afterAll(async () => {
  await d.stop()
})

describe('the request log', () => {
  it('redacts secrets and personal data in the path and query, encoded or not', async () => {
    const gh = secret('github-pat')
    const email = 'jane.doe@acme-corp.io'
    expect((await d.request('GET', '/search', {query: {q: `token ${gh}`}})).status).toBe(200)
    expect((await d.request('GET', `/knowledge/${gh}`)).status).toBe(400)
    expect((await d.request('GET', '/search', {query: {q: email}})).status).toBe(200)
    expect((await d.request('GET', '/knowledge', {query: {limit: 5}})).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const log = d.stderr()
    expect(log).not.toContain(gh)
    expect(log).not.toContain(email)
    expect(log).not.toContain('jane.doe%40acme-corp.io')
    expect(log).toContain('[REDACTED:github-pat]')
    expect(log).toContain('[REDACTED:email]')
    expect(log).toContain('"url":"/api/v1/knowledge?limit=5"')
  })

  it("never holds a web sign-in link's one-time code, used or not", async () => {
    const link = (await d.request('POST', '/web/links', {body: {next: '/search'}})).body.url as string
    const code = new URL(link).searchParams.get('code')!
    expect((await fetch(link, {redirect: 'manual'})).status).toBe(303)
    expect((await fetch(link, {redirect: 'manual'})).status).toBe(400)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const log = d.stderr()
    expect(log).not.toContain(code)
    expect(log).toContain('/signin/link?code=[REDACTED:code]')
  })
})
