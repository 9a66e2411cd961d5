/**
 * `kb mcp` with no server to talk to (docs/mcp.md, "When the server is down"), with the real SDK client spawning the
 * built binary: it still answers `initialize` and `tools/list`; each tool call is an error saying what to do — start
 * the local daemon, or check the network for a remote server, never both and never twice — and once the daemon is
 * up the same session's calls work.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {KB_BIN} from '../helpers/daemon.js'
import {cleanup, freePort, kb, makeUser, type KbEnv} from '../cli/helpers.js'

let user: KbEnv

const textOf = (r: CallToolResult): string => r.content.map((p) => (p.type === 'text' ? p.text : '')).join('')
const count = (text: string, part: string): number => text.split(part).length - 1

async function spawnMcp(env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [KB_BIN, 'mcp'],
    cwd: user.home,
    env: {...user.env, ...env},
    stderr: 'pipe',
  })
  const client = new Client({name: 'kb-down-test', version: '1.0.0'})
  await client.connect(transport)
  return client
}

beforeAll(() => {
  user = makeUser()
})
afterAll(async () => {
  await kb(user, ['daemon', 'stop'])
  if (user) await cleanup(user)
})

describe('kb mcp while the server is down', () => {
  it('the local daemon down and autostart off: starts, says to start the daemon once, and works once it runs', async () => {
    const env = {KB_BASE_URL: `http://127.0.0.1:${await freePort()}/api/v1`, KB_NO_AUTOSTART: '1'}
    Object.assign(user.env, env)
    const client = await spawnMcp(env)
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('search_knowledge')
      const down = (await client.callTool({name: 'search_knowledge', arguments: {query: 'pool'}})) as CallToolResult
      expect(down.isError).toBe(true)
      const text = textOf(down)
      expect(text).toMatch(/^search_knowledge failed \(unreachable\): kb daemon at http:\/\/127\.0\.0\.1:\d+ is not reachable/)
      expect(count(text, '`kb daemon start`')).toBe(1)
      const started = await kb(user, ['daemon', 'start'])
      expect(started.code, started.stderr).toBe(0)
      const added = (await client.callTool({
        name: 'add_knowledge',
        arguments: {title: 'Back up', body: 'The daemon runs again.'},
      })) as CallToolResult
      expect(added.isError, textOf(added)).toBeFalsy()
      const found = (await client.callTool({name: 'search_knowledge', arguments: {query: 'daemon runs'}})) as CallToolResult
      expect(found.isError, textOf(found)).toBeFalsy()
      expect(textOf(found)).toContain('Back up')
    } finally {
      await client.close()
    }
  })

  it('a remote server that cannot be reached: the advice is about the network, not `kb daemon start`', async () => {
    const client = await spawnMcp({KB_BASE_URL: 'http://kb-unreachable.invalid/api/v1'})
    try {
      const r = (await client.callTool({name: 'get_knowledge', arguments: {id: '01a21e48-c9f9-7651-b458-2e183cb2b6f0'}})) as CallToolResult
      expect(r.isError).toBe(true)
      const text = textOf(r)
      expect(text).toContain('kb server at http://kb-unreachable.invalid is not reachable')
      expect(text).toContain('check the network (VPN) and the base URL kb mcp was given')
      expect(text).not.toContain('kb daemon')
    } finally {
      await client.close()
    }
  })
})
