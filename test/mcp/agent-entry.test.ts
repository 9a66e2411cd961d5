/**
 * The entry `kb agent install` writes actually starts kb's MCP server: for each tool, the command and
 * arguments read back from the installed file (.mcp.json, .cursor/mcp.json, .vscode/mcp.json,
 * .codex/config.toml) are spawned by the SDK client over stdio, as the agent would, in the checkout, against a child daemon; the tools are listed and a search
 * finds an entry of the checkout's project; the server's instructions are the section written into CLAUDE.md. Needs
 * `npm run build` first.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import {parse as parseJsonc} from 'jsonc-parser'
import {parse as parseToml} from 'smol-toml'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {KB_BIN, startChildDaemon, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, gitRepo, kb, makeUser, type KbEnv} from '../cli/helpers.js'

let d: ChildDaemon
let user: KbEnv
let repo: string

beforeAll(async () => {
  user = makeUser()
  d = await startChildDaemon({dataDir: user.dataDir})
  Object.assign(user.env, {KB_BASE_URL: d.url, KB_API_KEY: d.ownerKey})
  repo = gitRepo(user, 'api', {origin: 'git@github.com:acme/wired.git'})
  expect((await kb(user, ['project', 'join'], {cwd: repo})).code).toBe(0)
  const added = await kb(user, ['add', 'Wired agents find this', '--body', 'The socket was left open.', '--scope', 'project'], {cwd: repo})
  expect(added.code, added.stderr).toBe(0)
}, 30_000)

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

type Tool = 'claude-code' | 'cursor' | 'vscode' | 'codex'
const FILES: Record<Tool, string> = {
  'claude-code': '.mcp.json',
  cursor: '.cursor/mcp.json',
  vscode: '.vscode/mcp.json',
  codex: '.codex/config.toml',
}

/** Installs kb for `tool` with this checkout's kb as the command, and returns kb's entry as written. */
async function installed(tool: Tool): Promise<{command: string; args: string[]; cwd?: string}> {
  const r = await kb(user, ['agent', 'install', tool, '--command', `${process.execPath} ${KB_BIN}`, '--no-instructions'], {cwd: repo})
  expect(r.code, r.stderr).toBe(0)
  const text = readFileSync(join(repo, FILES[tool]), 'utf8')
  if (tool === 'codex') return (parseToml(text) as any).mcp_servers.kb
  return (parseJsonc(text) as any)[tool === 'vscode' ? 'servers' : 'mcpServers'].kb
}

describe('the installed MCP entry', () => {
  it.each(['claude-code', 'cursor', 'vscode', 'codex'] as const)(
    '%s: starts kb mcp, which lists the tools and searches the project',
    async (tool) => {
      const entry = await installed(tool)
      expect(entry.command).toBe(process.execPath)
      expect(entry.args).toEqual([KB_BIN, 'mcp'])
      // VS Code's entry names the folder it starts in; the others start in the project.
      const cwd = entry.cwd === undefined ? repo : entry.cwd.replace('${workspaceFolder}', repo)
      const transport = new StdioClientTransport({command: entry.command, args: entry.args, cwd, env: user.env, stderr: 'pipe'})
      let stderr = ''
      transport.stderr?.on('data', (b: Buffer) => (stderr += b.toString()))
      const client = new Client({name: 'kb-agent-entry-test', version: '1.0.0'})
      await client.connect(transport)
      try {
        const names = (await client.listTools()).tools.map((t) => t.name)
        expect(names, stderr).toEqual(expect.arrayContaining(['search_knowledge', 'add_knowledge', 'get_knowledge']))
        const found = (await client.callTool({name: 'search_knowledge', arguments: {query: 'wired agents'}})) as CallToolResult
        expect(found.isError, stderr).toBeFalsy()
        expect((found.structuredContent as {items: {title: string}[]}).items.map((i) => i.title)).toContain('Wired agents find this')
      } finally {
        await client.close()
      }
    },
    30_000,
  )

  it('the instructions written into CLAUDE.md are what the started server tells the agent: when to search, record, verify and flag', async () => {
    const r = await kb(user, ['agent', 'install', 'claude-code', '--command', `${process.execPath} ${KB_BIN}`], {cwd: repo})
    expect(r.code, r.stderr).toBe(0)
    const section = /<!-- kb:begin -->\n## [^\n]+\n\n([\s\S]*?)<!-- kb:end -->/.exec(readFileSync(join(repo, 'CLAUDE.md'), 'utf8'))
    expect(section).not.toBeNull()
    const entry = await installed('claude-code')
    const client = new Client({name: 'kb-agent-entry-test', version: '1.0.0'})
    await client.connect(new StdioClientTransport({command: entry.command, args: entry.args, cwd: repo, env: user.env}))
    try {
      const told = client.getInstructions() ?? ''
      expect(told.trim()).toBe(section![1]!.trim())
      for (const tool of ['search_knowledge', 'add_knowledge', 'verify_knowledge', 'flag_knowledge']) expect(told).toContain(tool)
    } finally {
      await client.close()
    }
  }, 30_000)
})
