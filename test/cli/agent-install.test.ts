/**
 * `kb agent install|uninstall|list` with the real `kb` binary in temporary git checkouts, for each tool:
 * a fresh install (config and instructions written as the tool reads them), an existing config with other
 * servers and comments (kept byte for byte: uninstall gives the original file back), a second install that
 * changes nothing, --dry-run's diff with nothing written, and an unparseable file refused with its line and
 * column (exit 2). HOME (and CODEX_HOME) point into the test's own directory for --user.
 */
import {existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {parse as parseToml} from 'smol-toml'
import {parse as parseJsonc} from 'jsonc-parser'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cleanup, gitRepo, kb, makeUser, type KbEnv} from './helpers.js'

let user: KbEnv
let n = 0

beforeAll(() => {
  // No daemon: installing touches files only; a command that tried the network would fail here.
  user = makeUser({KB_NO_AUTOSTART: '1', KB_BASE_URL: 'http://127.0.0.1:9/api/v1'})
})

afterAll(async () => {
  if (user) await cleanup(user)
})

const repo = (): string => gitRepo(user, `p${++n}`, {origin: `git@github.com:acme/p${n}.git`})
const read = (path: string): string => readFileSync(path, 'utf8')
function write(path: string, text: string): void {
  mkdirSync(dirname(path), {recursive: true})
  writeFileSync(path, text)
}

interface Case {
  tool: string
  config: string
  instructions: string
  /** kb's entry as read back from the file. */
  entry: (text: string) => unknown
  stdio: Record<string, unknown>
  existing: string
  /** An unparseable file and where the refusal must point. */
  broken: string
  brokenAt: string
}

const json = (key: string) => (text: string) => (parseJsonc(text) as Record<string, Record<string, unknown>>)[key]!.kb
const CASES: Case[] = [
  {
    tool: 'claude-code',
    config: '.mcp.json',
    instructions: 'CLAUDE.md',
    entry: json('mcpServers'),
    stdio: {type: 'stdio', command: 'kb', args: ['mcp']},
    existing:
      '{\n  "mcpServers": {\n    "github": {\n      "type": "http",\n      "url": "https://api.githubcopilot.com/mcp/"\n    }\n  }\n}\n',
    // Claude Code reads plain JSON: a trailing comma is an error there.
    broken: '{\n  "mcpServers": {\n    "a": {"command": "x"},\n  }\n}\n',
    brokenAt: '.mcp.json:4:3',
  },
  {
    tool: 'cursor',
    config: '.cursor/mcp.json',
    instructions: '.cursor/rules/kb.mdc',
    entry: json('mcpServers'),
    stdio: {command: 'kb', args: ['mcp']},
    existing:
      '{\n  // the team\'s servers\n  "mcpServers": {\n    "linear": {"url": "https://mcp.linear.app/mcp"}, // OAuth\n    "db": {"command": "npx", "args": ["-y", "db-mcp"]}\n  }\n}\n',
    broken: '{\n  "mcpServers": {\n    "a": {"command" "x"}\n  }\n}\n',
    brokenAt: '.cursor/mcp.json:3:21',
  },
  {
    tool: 'vscode',
    config: '.vscode/mcp.json',
    instructions: '.github/copilot-instructions.md',
    entry: json('servers'),
    stdio: {type: 'stdio', command: 'kb', args: ['mcp'], cwd: '${workspaceFolder}'},
    existing:
      '{\n  "inputs": [\n    {"type": "promptString", "id": "token", "password": true},\n  ],\n  "servers": {\n    // GitHub\'s\n    "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"},\n  },\n}\n',
    broken: '{\n  "servers": {\n    "a": {"command": \'x\'}\n  }\n}\n',
    brokenAt: '.vscode/mcp.json:3:22',
  },
  {
    tool: 'codex',
    config: '.codex/config.toml',
    instructions: 'AGENTS.md',
    entry: (text) => (parseToml(text) as {mcp_servers: Record<string, unknown>}).mcp_servers.kb,
    stdio: {command: 'kb', args: ['mcp']},
    existing:
      '# Codex settings\nmodel = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"] # pinned\n\n[mcp_servers.docs.env]\nTOKEN = "x"\n',
    broken: 'model = "gpt-5"\n\n[mcp_servers.docs\ncommand = "npx"\n',
    brokenAt: '.codex/config.toml:3:',
  },
]

describe.each(CASES)('kb agent install $tool', (c) => {
  it('installs into a new project: the MCP entry and the instructions; a second run changes nothing; uninstall removes both', async () => {
    const dir = repo()
    const r = await kb(user, ['agent', 'install', c.tool], {cwd: dir})
    expect(r.code, r.stderr).toBe(0)
    const config = join(dir, c.config)
    const instructions = join(dir, c.instructions)
    expect(r.stdout).toBe(`created\t${config}\ncreated\t${instructions}\n`)
    expect(c.entry(read(config))).toEqual(c.stdio)
    const text = read(instructions)
    expect(text).toMatch(
      /<!-- kb:begin -->\n## kb: the team knowledge base\n[\s\S]*search_knowledge[\s\S]*add_knowledge[\s\S]*<!-- kb:end -->\n$/,
    )
    if (c.tool === 'cursor') expect(text).toMatch(/^---\ndescription: .+\nalwaysApply: true\n---\n<!-- kb:begin -->/)

    const again = await kb(user, ['agent', 'install', c.tool], {cwd: dir})
    expect(again.stdout).toBe(`unchanged\t${config}\nunchanged\t${instructions}\n`)
    expect(c.entry(read(config))).toEqual(c.stdio)

    const un = await kb(user, ['agent', 'uninstall', c.tool], {cwd: dir})
    expect(un.code, un.stderr).toBe(0)
    expect(un.stdout).toBe(`removed\t${config}\nremoved\t${instructions}\n`)
    expect(existsSync(config)).toBe(false)
    expect(existsSync(instructions)).toBe(false)
    // The folders kb created (.cursor/rules, .vscode, .github, .codex) go too: the checkout is as it was.
    expect(readdirSync(dir)).toEqual(['.git'])
  })

  it('merges into an existing config (other servers and comments kept byte for byte) and instructions file', async () => {
    const dir = repo()
    const config = join(dir, c.config)
    const instructions = join(dir, c.instructions)
    write(config, c.existing)
    const mine = c.tool === 'cursor' ? '---\nalwaysApply: false\n---\nUse tabs.\n' : '# House rules\n\nUse tabs.\n'
    write(instructions, mine)

    const dry = await kb(user, ['agent', 'install', c.tool, '--dry-run'], {cwd: dir})
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toContain(`--- a/${c.config}\n+++ b/${c.config}\n@@ `)
    expect(dry.stdout).toMatch(c.tool === 'codex' ? /\n\+\[mcp_servers\.kb\]\n\+command = "kb"\n/ : /\n\+ +"kb": \{\n/)
    expect(dry.stdout).toContain(`--- a/${c.instructions}\n+++ b/${c.instructions}\n`)
    expect(dry.stdout).toContain('\n+<!-- kb:begin -->\n')
    // Nothing of the original goes, except a line that only gains the comma JSON needs before kb's entry.
    const diffLines = dry.stdout.split('\n')
    const added = diffLines.filter((l) => l.startsWith('+') && !l.startsWith('+++')).map((l) => l.slice(1))
    for (const removed of diffLines.filter((l) => l.startsWith('-') && !l.startsWith('---')).map((l) => l.slice(1)))
      expect(
        added.some((a) => [...a].some((ch, i) => ch === ',' && a.slice(0, i) + a.slice(i + 1) === removed)),
        removed,
      ).toBe(true)
    expect(read(config)).toBe(c.existing)
    expect(read(instructions)).toBe(mine)

    const r = await kb(user, ['agent', 'install', c.tool], {cwd: dir})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe(`updated\t${config}\nupdated\t${instructions}\n`)
    const after = read(config)
    expect(c.entry(after)).toEqual(c.stdio)
    // Every line of the original is still there, in order and as written.
    let at = 0
    for (const line of c.existing.split('\n')) {
      const found = after.indexOf(line, at)
      expect(found, `${line} kept`).toBeGreaterThanOrEqual(0)
      at = found + line.length
    }
    expect(read(instructions).startsWith(`${mine}\n<!-- kb:begin -->\n`)).toBe(true)
    expect((await kb(user, ['agent', 'install', c.tool], {cwd: dir})).stdout).toBe(`unchanged\t${config}\nunchanged\t${instructions}\n`)

    const un = await kb(user, ['agent', 'uninstall', c.tool], {cwd: dir})
    expect(un.code, un.stderr).toBe(0)
    expect(read(config)).toBe(c.existing)
    expect(read(instructions)).toBe(mine)
  })

  it('refuses a file it cannot parse, with the line and column, writing nothing', async () => {
    const dir = repo()
    const config = join(dir, c.config)
    write(config, c.broken)
    const r = await kb(user, ['agent', 'install', c.tool], {cwd: dir})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`kb: ${c.brokenAt}`)
    expect(r.stderr).toMatch(/nothing was written/)
    expect(read(config)).toBe(c.broken)
    expect(existsSync(join(dir, c.instructions))).toBe(false)
    const list = await kb(user, ['agent', 'list', '--json'], {cwd: dir})
    expect(JSON.parse(list.stdout).items).toContainEqual(expect.objectContaining({tool: c.tool, scope: 'project', mcp: 'unreadable'}))
  })
})
