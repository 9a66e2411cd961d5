/**
 * Safe publish through the MCP tools (docs/mcp.md, "Safe publish"), with the real SDK client against a real
 * daemon: add_knowledge, publish_knowledge, update_knowledge, fork_knowledge, comment_on_knowledge and
 * resolve_knowledge answer a sensitive_content
 * refusal with a tool error listing every finding (masked) and saying how to redact or acknowledge, and take
 * redact / acknowledge to go on.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../helpers/daemon.js'
import {fakeCorpus} from '../server/scan/fake-corpus.js'

const corpus = fakeCorpus(88)
const line = (kind: string): string => corpus.find((s) => s.kind === kind)!.text
const BODY = `Root cause: the CI job echoed its environment.\n${line('github-pat')}\n${line('private-key')}`

let d: TestDaemon
let client: Client
let projectId: string

beforeAll(async () => {
  d = await startInProcessDaemon()
  client = new Client({name: 'kb-test', version: '1.0.0'})
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), {requestInit: {headers: {authorization: `Bearer ${d.ownerKey}`}}}),
  )
  projectId = (await d.request('POST', '/projects/join', {body: {remote: 'git@github.com:acme/mcp-safe.git'}})).body.project.id
})
afterAll(async () => {
  await client?.close().catch(() => undefined)
  await d?.stop()
})

const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  (await client.callTool({name, arguments: args})) as CallToolResult
const textOf = (r: CallToolResult): string => r.content.map((p) => (p.type === 'text' ? p.text : '')).join('')

/** A refusal as a tool error: every finding's id, masked, and both ways on; returns the ids. */
function expectRefusal(r: CallToolResult, tool: string, kinds: string[]): string[] {
  const text = textOf(r)
  expect(r.isError, text).toBe(true)
  expect(text).toMatch(new RegExp(`^${tool} failed \\(sensitive_content\\): it would share secrets or personal data`))
  const ids = [...text.matchAll(/^- ([0-9a-f]{16}): /gm)].map((m) => m[1]!)
  expect(ids).toHaveLength(kinds.length)
  expect(text).toContain('Call the tool again with redact: true')
  expect(text).toContain(`acknowledge: [${ids.map((i) => `"${i}"`).join(', ')}]`)
  for (const s of corpus) expect(text.includes(s.secret), s.kind).toBe(false)
  return ids
}

describe('MCP tools and safe publish', () => {
  it('add_knowledge into the project: a tool error first, then redact: true stores the redacted entry', async () => {
    const args = {title: 'CI leaked its token', body: BODY, scope: 'project', project_id: projectId}
    expectRefusal(await call('add_knowledge', args), 'add_knowledge', ['github-pat', 'private-key'])
    expect((await d.request('GET', '/knowledge')).body.items).toHaveLength(0)
    const r = await call('add_knowledge', {...args, redact: true, detail: 'standard'})
    expect(r.isError, textOf(r)).toBeFalsy()
    const entry = (r.structuredContent as {entry: {id: string; body: string}}).entry
    const redacted =
      'Root cause: the CI job echoed its environment.\ngit clone https://x:[REDACTED:github-pat]@github.com/acme/api.git\n[REDACTED:private-key]'
    expect(entry.body).toBe(redacted)
  })

  it('publish_knowledge: refused, then acknowledge: [ids] publishes and records it', async () => {
    const input = {title: 'Mail bounce', body: `From ${line('email')}`, scope: 'private', project_id: projectId}
    const id = (await d.request('POST', '/knowledge', {body: input})).body.id
    const ids = expectRefusal(await call('publish_knowledge', {id}), 'publish_knowledge', ['email'])
    const r = await call('publish_knowledge', {id, acknowledge: ids})
    expect(r.isError, textOf(r)).toBeFalsy()
    const e = (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
    expect(e.scope).toBe('project')
    expect(e.comments[0].body).toContain(ids[0])
  })

  it('update_knowledge and fork_knowledge take the same two arguments', async () => {
    const id = (await d.request('POST', '/knowledge', {body: {title: 'Shared', body: 'Clean.', scope: 'project', project_id: projectId}}))
      .body.id
    expectRefusal(await call('update_knowledge', {id, body: line('jwt')}), 'update_knowledge', ['jwt'])
    const u = await call('update_knowledge', {id, body: line('jwt'), redact: true})
    expect(u.isError, textOf(u)).toBeFalsy()
    expect((await d.request('GET', `/knowledge/${id}`)).body.body).toBe('session cookie [REDACTED:jwt]')
    const mine = (
      await d.request('POST', '/knowledge', {body: {title: 'Mine', body: line('phone'), scope: 'private', project_id: projectId}})
    ).body.id
    expectRefusal(await call('fork_knowledge', {id: mine, scope: 'global'}), 'fork_knowledge', ['phone'])
    const f = await call('fork_knowledge', {id: mine, scope: 'global', redact: true})
    expect(f.isError, textOf(f)).toBeFalsy()
  })

  it('fork_knowledge of a global entry into global: the new title is scanned (issue 24)', async () => {
    const id = (await d.request('POST', '/knowledge', {body: {title: 'Open', body: 'Clean.', scope: 'global'}})).body.id
    const key = corpus.find((s) => s.kind === 'aws-access-token')!.secret
    expectRefusal(await call('fork_knowledge', {id, title: `fork ${key}`, scope: 'global'}), 'fork_knowledge', ['aws-access-token'])
    const f = await call('fork_knowledge', {id, title: `fork ${key}`, scope: 'global', redact: true, detail: 'standard'})
    expect(f.isError, textOf(f)).toBeFalsy()
    expect((f.structuredContent as {entry: {title: string}}).entry.title).toBe('fork [REDACTED:aws-access-token]')
  })
  it('comment_on_knowledge and resolve_knowledge on a shared entry take the same two arguments', async () => {
    const id = (await d.request('POST', '/knowledge', {body: {title: 'Ours', body: 'Clean.', scope: 'project', project_id: projectId}}))
      .body.id
    expectRefusal(await call('comment_on_knowledge', {id, body: `Seen with ${line('jwt')}`}), 'comment_on_knowledge', ['jwt'])
    const c = await call('comment_on_knowledge', {id, body: `Seen with ${line('jwt')}`, redact: true})
    expect(c.isError, textOf(c)).toBeFalsy()
    expect((c.structuredContent as {comment: {body: string}}).comment.body).toBe('Seen with session cookie [REDACTED:jwt]')
    const ids = expectRefusal(await call('resolve_knowledge', {id, note: `Mailed ${line('email')}`}), 'resolve_knowledge', ['email'])
    const r = await call('resolve_knowledge', {id, note: `Mailed ${line('email')}`, acknowledge: ids})
    expect(r.isError, textOf(r)).toBeFalsy()
    const e = (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
    expect(e.resolution.note).toBe(`Mailed ${line('email')}`)
    expect(e.comments.at(-1).body).toContain(ids[0])
  })
})
