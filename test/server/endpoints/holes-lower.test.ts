/**
 * Lower holes of issue 24, each against a real daemon (both drivers): a non-member's import refusal does not
 * name another project's id; the JSON body parser refuses deep nesting before parsing it, and `/health`
 * keeps answering meanwhile.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {longestHold} from '../../helpers/loop-hold.js'
import {joinProject} from './support.js'

let d: TestDaemon
let bob: string

beforeAll(async () => {
  d = await startInProcessDaemon()
  bob = await newPrincipal(d, 'bob')
})
afterAll(async () => {
  await d.stop()
})

describe('import refusals name nothing the importer may not see', () => {
  it("a project line with another project's remote: refused without that project's id", async () => {
    const theirs = await joinProject(d, 'git@github.com:acme/secret-payments.git')
    const line = JSON.stringify({
      kind: 'project',
      id: crypto.randomUUID(),
      name: 'mine',
      remote: 'github.com/acme/secret-payments',
    })
    const raw = `${JSON.stringify({kind: 'kb-export', version: 1})}\n${line}\n`
    const res = await d.request('POST', '/import', {raw, contentType: 'application/x-ndjson', key: bob})
    expect(res.status).toBe(200)
    expect(res.body.rejected).toHaveLength(1)
    expect(res.body.rejected[0].reason).toMatch(/already belongs to another project here/)
    expect(res.text).not.toContain(theirs.id)
  })
})

describe('deeply nested JSON', () => {
  it('1 MB of [ is a 400 before it is parsed, holding the loop for a few milliseconds of CPU', async () => {
    const {result, worstMs} = await longestHold(() =>
      d.request('POST', '/knowledge', {raw: '['.repeat(1024 * 1024 - 16), contentType: 'application/json'}),
    )
    expect(result.status).toBe(400)
    expect(result.body).toMatchObject({code: 'bad_request'})
    expect(result.body.detail).toMatch(/nests arrays and objects more than 64 deep/)
    // Before: ~200 ms in V8's parser. Generous for a loaded machine.
    expect(worstMs).toBeLessThan(100)
  })

  it('ordinary nesting and brackets inside strings are fine', async () => {
    const body = {title: '[[[[[[[[', body: `${'{['.repeat(200)} in a string`, thought_chain: [{thought: ']]]]'}], scope: 'private'}
    expect((await d.request('POST', '/knowledge', {body})).status).toBe(201)
  })
})
