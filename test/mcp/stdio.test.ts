/**
 * `kb mcp` over stdio with the real SDK client (`StdioClientTransport`) spawning the built binary in a
 * temporary git repository, with its own HOME/XDG and KB_BASE_URL/KB_API_KEY for a child daemon: the
 * project comes from the repository, and search, add with a thought chain and resolve work end to end.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {KB_BIN, startChildDaemon, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, gitRepo, kb, makeUser, type KbEnv} from '../cli/helpers.js'

let d: ChildDaemon
let user: KbEnv
let repo: string
let projectId: string

function textOf(r: CallToolResult): string {
  return r.content.map((p) => (p.type === 'text' ? p.text : '')).join('')
}

async function spawnMcp(cwd: string, env: Record<string, string> = {}): Promise<{client: Client; stderr: () => string}> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [KB_BIN, 'mcp'],
    cwd,
    env: {...user.env, ...env},
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (b: Buffer) => {
    stderr += b.toString()
  })
  const client = new Client({name: 'kb-stdio-test', version: '1.0.0'})
  await client.connect(transport)
  return {client, stderr: () => stderr}
}

beforeAll(async () => {
  user = makeUser()
  d = await startChildDaemon({dataDir: user.dataDir})
  Object.assign(user.env, {KB_BASE_URL: d.url, KB_API_KEY: d.ownerKey})
  repo = gitRepo(user, 'api', {origin: 'git@github.com:acme/stdio.git'})
  const joined = await kb(user, ['project', 'join', '--json'], {cwd: repo})
  expect(joined.code, joined.stderr).toBe(0)
  projectId = JSON.parse(joined.stdout).project.id
}, 30_000)

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('kb mcp over stdio', () => {
  it("adds with a thought chain (in the repository's project), searches and resolves", async () => {
    const {client, stderr} = await spawnMcp(repo)
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('search_knowledge')
      const added = (await client.callTool({
        name: 'add_knowledge',
        arguments: {
          title: 'Vitest hangs after the last test',
          body: 'An open keep-alive socket keeps the worker alive.\n\nClose the agent in afterAll.',
          tags: ['vitest'],
          thought_chain: [
            {thought: 'the run ends but the process stays', kind: 'observation'},
            {thought: 'a socket is left open', kind: 'hypothesis'},
            {thought: 'closing the agent fixes it', kind: 'conclusion'},
          ],
        },
      })) as CallToolResult
      expect(added.isError, textOf(added) + stderr()).toBeFalsy()
      const id = (added.structuredContent as {entry: {id: string}}).entry.id
      expect(textOf(added)).toMatch(/Added \(project, 3 thought steps\)/)
      const rest = (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
      expect(rest).toMatchObject({scope: 'project', project_id: projectId, tags: ['vitest']})
      expect(rest.thought_chain.map((t: {thought: string}) => t.thought)).toEqual([
        'the run ends but the process stays',
        'a socket is left open',
        'closing the agent fixes it',
      ])

      const found = (await client.callTool({name: 'search_knowledge', arguments: {query: 'vitest hangs'}})) as CallToolResult
      expect(found.isError, textOf(found)).toBeFalsy()
      expect((found.structuredContent as {items: {id: string}[]}).items[0]!.id).toBe(id)
      expect(textOf(found)).toContain(id)

      const resolved = (await client.callTool({
        name: 'resolve_knowledge',
        arguments: {id, note: 'close the agent', url: 'https://github.com/acme/stdio/pull/7'},
      })) as CallToolResult
      expect(resolved.isError, textOf(resolved)).toBeFalsy()
      expect((await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body).toMatchObject({
        status: 'resolved',
        resolution: {note: 'close the agent', url: 'https://github.com/acme/stdio/pull/7'},
      })

      // Bad arguments are tool errors; the server keeps running.
      const bad = (await client.callTool({name: 'resolve_knowledge', arguments: {id: 'nope'}})) as CallToolResult
      expect(bad.isError).toBe(true)
      expect(textOf(bad)).toMatch(/"nope" is not an entry id: an id, or its start or end, is hexadecimal digits/)
      const missing = (await client.callTool({
        name: 'get_knowledge',
        arguments: {id: '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980'},
      })) as CallToolResult
      expect(missing.isError).toBe(true)
      expect(textOf(missing)).toMatch(/not_found/)
      expect((await client.listTools()).tools).toHaveLength(13)
    } finally {
      await client.close()
    }
  }, 30_000)

  it('outside a project entries are private, a clone finds its project by remote; a refused credential is a tool error, not a crash', async () => {
    const elsewhere = gitRepo(user, 'other', {origin: 'git@github.com:acme/not-joined.git'})
    const {client} = await spawnMcp(elsewhere)
    try {
      const added = (await client.callTool({
        name: 'add_knowledge',
        arguments: {title: 'Scratch note', body: 'only mine'},
      })) as CallToolResult
      expect(added.isError, textOf(added)).toBeFalsy()
      const id = (added.structuredContent as {entry: {id: string}}).entry.id
      expect((await d.request('GET', `/knowledge/${id}`)).body).toMatchObject({scope: 'private', project_id: null})
    } finally {
      await client.close()
    }
    // A clone of a project's repository that never ran `kb project join`: the project comes from its remote.
    const clone = gitRepo(user, 'clone', {origin: 'https://github.com/Acme/stdio.git'})
    const inClone = await spawnMcp(clone)
    try {
      const added = (await inClone.client.callTool({
        name: 'add_knowledge',
        arguments: {title: 'From a clone', body: 'project by remote'},
      })) as CallToolResult
      expect(added.isError, textOf(added)).toBeFalsy()
      const id = (added.structuredContent as {entry: {id: string}}).entry.id
      expect((await d.request('GET', `/knowledge/${id}`)).body).toMatchObject({scope: 'project', project_id: projectId})
    } finally {
      await inClone.client.close()
    }
    const refused = await spawnMcp(repo, {KB_API_KEY: 'kb_0000000000000000000000000000000000000000000'})
    try {
      const r = (await refused.client.callTool({name: 'search_knowledge', arguments: {query: 'anything'}})) as CallToolResult
      expect(r.isError).toBe(true)
      expect(textOf(r)).toMatch(/unauthenticated/)
    } finally {
      await refused.client.close()
    }
  }, 30_000)

  it('a checkout with no project yet: after join_project, the next add belongs to it', async () => {
    const fresh = gitRepo(user, 'fresh', {origin: 'https://github.com/acme/fresh-mcp.git'})
    const {client} = await spawnMcp(fresh)
    try {
      const before = (await client.callTool({name: 'add_knowledge', arguments: {title: 'Before joining', body: 'b'}})) as CallToolResult
      const entryOf = async (r: CallToolResult): Promise<unknown> =>
        (await d.request('GET', `/knowledge/${(r.structuredContent as {entry: {id: string}}).entry.id}`)).body
      expect(await entryOf(before)).toMatchObject({scope: 'private', project_id: null})
      const joined = (await client.callTool({
        name: 'join_project',
        arguments: {remote: 'https://github.com/acme/fresh-mcp.git'},
      })) as CallToolResult
      expect(joined.isError, textOf(joined)).toBeFalsy()
      const id = (joined.structuredContent as {project: {id: string}}).project.id
      const after = (await client.callTool({name: 'add_knowledge', arguments: {title: 'After joining', body: 'b'}})) as CallToolResult
      expect(await entryOf(after)).toMatchObject({scope: 'project', project_id: id})
    } finally {
      await client.close()
    }
  }, 30_000)

  it('anchors on add, a stale entry found with freshness "stale" and shown as such, flag, withdraw and verify', async () => {
    const {client, stderr} = await spawnMcp(repo)
    const run = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> => {
      const r = (await client.callTool({name, arguments: args})) as CallToolResult
      expect(r.isError, `${name}: ${textOf(r)}${stderr()}`).toBeFalsy()
      return r
    }
    try {
      const added = await run('add_knowledge', {
        title: 'Migrations lock the users table',
        body: 'Run them with lock_timeout.',
        anchors: [{path: 'db/migrate.ts', lines: '10-20'}],
      })
      const id = (added.structuredContent as {entry: {id: string}}).entry.id
      expect((await d.request('GET', `/knowledge/${id}`)).body.anchors).toMatchObject([
        {path: 'db/migrate.ts', lines: '10-20', state: 'unknown'},
      ])
      const checked = await d.request('POST', `/knowledge/${id}/anchors/check`, {
        body: {commit: 'abcdef1', results: [{path: 'db/migrate.ts', lines: '10-20', state: 'deleted'}]},
      })
      expect(checked.status, checked.text).toBe(200)
      const found = await run('search_knowledge', {query: 'migrations lock', freshness: 'stale', detail: 'standard'})
      expect((found.structuredContent as {items: {id: string}[]}).items.map((i) => i.id)).toEqual([id])
      expect(textOf(found)).toContain(`1. ${id} — Migrations lock the users table [open · stale · project]`)
      expect(textOf(found)).toMatch(/- anchor db\/migrate\.ts:10-20 was deleted in abcdef1/)

      await run('flag_knowledge', {id, reason: 'obsolete', note: 'we moved to online migrations'})
      expect((await d.request('GET', `/knowledge/${id}`)).body.flags.obsolete).toBe(1)
      await run('flag_knowledge', {id, withdraw: true})
      expect((await d.request('GET', `/knowledge/${id}`)).body.flags.obsolete).toBe(0)
      const verified = await run('verify_knowledge', {id, note: 'lock_timeout still needed'})
      expect(textOf(verified)).toMatch(/^Verified: /)
      expect((await d.request('GET', `/knowledge/${id}`)).body.freshness.verified_at).toEqual(expect.any(String))
    } finally {
      await client.close()
    }
  }, 30_000)
})
