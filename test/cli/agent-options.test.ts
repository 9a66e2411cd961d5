/**
 * `kb agent install` options with the real `kb` binary: --user (each tool's user-level file under a
 * temporary HOME, CODEX_HOME and XDG_CONFIG_HOME honoured, the rest of ~/.claude.json untouched), --http
 * (refused for a loopback base URL, the team server's /mcp otherwise), --command split without a shell,
 * --no-instructions, an entry switched from stdio to HTTP keeping keys a person added, and `kb agent list`
 * as JSON and as an 80-column table.
 */
import {chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {parse as parseToml} from 'smol-toml'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ANSI_RE, cleanup, gitRepo, kb, kbTty, makeUser, type KbEnv} from './helpers.js'

let user: KbEnv
let n = 0
const TEAM = 'https://kb.example.com/api/v1'

beforeAll(() => {
  user = makeUser({KB_NO_AUTOSTART: '1', KB_BASE_URL: 'http://127.0.0.1:9/api/v1'})
})

afterAll(async () => {
  if (user) await cleanup(user)
})

const repo = (): string => gitRepo(user, `o${++n}`, {origin: `git@github.com:acme/o${n}.git`})
const readJson = (path: string): Record<string, any> => JSON.parse(readFileSync(path, 'utf8'))

describe('kb agent install --user', () => {
  it("claude-code: ~/.claude.json's mcpServers, everything else in the file kept; instructions in ~/.claude/CLAUDE.md", async () => {
    const file = join(user.home, '.claude.json')
    const original = '{\n  "numStartups": 42,\n  "projects": {\n    "/src/api": {"allowedTools": []}\n  },\n  "theme": "dark"\n}\n'
    writeFileSync(file, original)
    const r = await kb(user, ['agent', 'install', 'claude-code', '--user'], {cwd: repo()})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe(`updated\t${file}\ncreated\t${join(user.home, '.claude', 'CLAUDE.md')}\n`)
    const doc = readJson(file)
    expect(doc).toEqual({
      numStartups: 42,
      projects: {'/src/api': {allowedTools: []}},
      theme: 'dark',
      mcpServers: {kb: {type: 'stdio', command: 'kb', args: ['mcp']}},
    })
    expect(readFileSync(file, 'utf8').startsWith(original.slice(0, original.lastIndexOf('\n}')))).toBe(true)
    const un = await kb(user, ['agent', 'uninstall', 'claude-code', '--user'], {cwd: repo()})
    expect(un.code, un.stderr).toBe(0)
    expect(readFileSync(file, 'utf8')).toBe(original)
  })

  it('codex: $CODEX_HOME/config.toml and AGENTS.md; vscode: the profile folder under XDG_CONFIG_HOME, no instructions file', async () => {
    const codexHome = join(user.root, 'codex-home')
    const codex = await kb(user, ['agent', 'install', 'codex', '--user'], {cwd: repo(), env: {CODEX_HOME: codexHome}})
    expect(codex.code, codex.stderr).toBe(0)
    expect(parseToml(readFileSync(join(codexHome, 'config.toml'), 'utf8'))).toEqual({mcp_servers: {kb: {command: 'kb', args: ['mcp']}}})
    expect(readFileSync(join(codexHome, 'AGENTS.md'), 'utf8')).toContain('<!-- kb:begin -->')

    const vscode = await kb(user, ['agent', 'install', 'vscode', '--user', '--json'], {cwd: repo()})
    expect(vscode.code, vscode.stderr).toBe(0)
    const file = join(user.env.XDG_CONFIG_HOME!, 'Code', 'User', 'mcp.json')
    expect(readJson(file).servers.kb).toMatchObject({type: 'stdio', command: 'kb', args: ['mcp']})
    const out = JSON.parse(vscode.stdout)
    expect(out.changes).toEqual([{role: 'config', path: file, outcome: 'created'}])
    expect(out.notes.join(' ')).toMatch(/no user-level instructions file/)
  })
})

describe('kb agent install: the server entry', () => {
  it('--http is refused for a local base URL (exit 2) and writes <base URL>/mcp for a team server', async () => {
    const dir = repo()
    const local = await kb(user, ['agent', 'install', 'cursor', '--http'], {cwd: dir})
    expect(local.code).toBe(2)
    expect(local.stderr).toMatch(/--http needs a team server's base URL.*leave out --http/)
    expect(existsSync(join(dir, '.cursor'))).toBe(false)

    const team = await kb(user, ['agent', 'install', 'cursor', '--http', '--base-url', TEAM, '--no-instructions'], {cwd: dir})
    expect(team.code, team.stderr).toBe(0)
    expect(readJson(join(dir, '.cursor', 'mcp.json'))).toEqual({mcpServers: {kb: {url: `${TEAM}/mcp`}}})
    expect(existsSync(join(dir, '.cursor', 'rules'))).toBe(false)
  })

  it('switching stdio → HTTP changes only the keys kb writes; env a person added stays', async () => {
    const dir = repo()
    const file = join(dir, '.mcp.json')
    writeFileSync(
      file,
      '{\n  "mcpServers": {\n    "kb": {"command": "kb", "args": ["mcp"], "env": {"KB_PROJECT": "github.com/acme/api"}}\n  }\n}\n',
    )
    const r = await kb(user, ['agent', 'install', 'claude-code', '--http', '--base-url', TEAM, '--no-instructions'], {cwd: dir})
    expect(r.code, r.stderr).toBe(0)
    expect(readJson(file).mcpServers.kb).toEqual({type: 'http', url: `${TEAM}/mcp`, env: {KB_PROJECT: 'github.com/acme/api'}})
  })

  it('codex: an existing [mcp_servers.kb] is rewritten in place, its other keys, sub-tables and CRLF line ends kept', async () => {
    const dir = repo()
    const file = join(dir, '.codex', 'config.toml')
    mkdirSync(join(dir, '.codex'))
    const before = [
      'model = "gpt-5"',
      '',
      '[mcp_servers.kb]',
      'command = "/old/kb"',
      'args = [',
      '  "mcp",',
      ']',
      'startup_timeout_sec = 20 # slow disk',
      '',
      '[mcp_servers.kb.env]',
      'KB_PROJECT = "github.com/acme/api"',
      '',
      '# other servers',
      '[mcp_servers.docs]',
      'url = "https://docs.example.com/mcp"',
      '',
    ]
    writeFileSync(file, before.join('\r\n'))
    const r = await kb(user, ['agent', 'install', 'codex', '--no-instructions'], {cwd: dir})
    expect(r.code, r.stderr).toBe(0)
    const after = before.slice()
    after.splice(3, 4, 'command = "kb"', 'args = ["mcp"]')
    expect(readFileSync(file, 'utf8')).toBe(after.join('\r\n'))
    expect(parseToml(readFileSync(file, 'utf8'))).toMatchObject({
      mcp_servers: {kb: {command: 'kb', args: ['mcp'], startup_timeout_sec: 20, env: {KB_PROJECT: 'github.com/acme/api'}}},
    })
    const un = await kb(user, ['agent', 'uninstall', 'codex', '--no-instructions'], {cwd: dir})
    expect(un.code, un.stderr).toBe(0)
    expect(readFileSync(file, 'utf8')).toBe(
      ['model = "gpt-5"', '', '# other servers', '[mcp_servers.docs]', 'url = "https://docs.example.com/mcp"', ''].join('\r\n'),
    )
  })

  it('--command is split into command and arguments without a shell; --project and --base-url go to kb mcp', async () => {
    const dir = repo()
    const r = await kb(
      user,
      [
        'agent',
        'install',
        'codex',
        '--command',
        `node "/opt/my kb/bin/run.js" --no-warnings`,
        '--project',
        'github.com/acme/api',
        '--no-instructions',
      ],
      {cwd: dir},
    )
    expect(r.code, r.stderr).toBe(0)
    expect(parseToml(readFileSync(join(dir, '.codex', 'config.toml'), 'utf8'))).toEqual({
      mcp_servers: {kb: {command: 'node', args: ['/opt/my kb/bin/run.js', '--no-warnings', 'mcp', '--project', 'github.com/acme/api']}},
    })
    const url = await kb(user, ['agent', 'install', 'vscode', '--base-url', TEAM, '--no-instructions'], {cwd: dir})
    expect(readJson(join(dir, '.vscode', 'mcp.json')).servers.kb.args).toEqual(['mcp', '--base-url', TEAM])
    expect(url.code).toBe(0)
    const unclosed = await kb(user, ['agent', 'install', 'cursor', '--command', 'node "/x'], {cwd: dir})
    expect(unclosed.code).toBe(2)
    expect(unclosed.stderr).toMatch(/--command: the " at character 6 is not closed/)
  })
})

describe('kb agent install: kb on PATH', () => {
  it('warns when the agent could not find `kb` on PATH, naming the --command that works; not when it can', async () => {
    const dir = repo()
    const bin = join(user.root, 'path-bin')
    mkdirSync(bin, {recursive: true})
    const without = await kb(user, ['agent', 'install', 'cursor', '--no-instructions'], {cwd: dir, env: {PATH: dirname(process.execPath)}})
    expect(without.code, without.stderr).toBe(0)
    expect(without.stderr).toContain(`kb: warning: kb is not on PATH, so Cursor cannot start \`kb mcp\``)
    expect(without.stderr).toMatch(/--command ".+ .+\/bin\/run\.js"/)
    writeFileSync(join(bin, 'kb'), '#!/bin/sh\n')
    chmodSync(join(bin, 'kb'), 0o755)
    const found = await kb(user, ['agent', 'install', 'cursor', '--no-instructions'], {
      cwd: dir,
      env: {PATH: `${bin}:${dirname(process.execPath)}`},
    })
    expect(found.code, found.stderr).toBe(0)
    expect(found.stderr).toBe('')
  })
})

describe('kb agent install: the instructions section', () => {
  it('is replaced in place between its markers (text around it kept); a lone marker is refused with its line and column', async () => {
    const dir = repo()
    const file = join(dir, 'CLAUDE.md')
    writeFileSync(file, '# Mine\n\n<!-- kb:begin -->\nan older kb said this\n<!-- kb:end -->\n\n## More of mine\n')
    const r = await kb(user, ['agent', 'install', 'claude-code'], {cwd: dir})
    expect(r.code, r.stderr).toBe(0)
    const text = readFileSync(file, 'utf8')
    expect(text).toMatch(
      /^# Mine\n\n<!-- kb:begin -->\n## kb: the team knowledge base\n[\s\S]*verify_knowledge[\s\S]*<!-- kb:end -->\n\n## More of mine\n$/,
    )
    expect(text).not.toContain('an older kb')

    writeFileSync(file, '# Mine\n\nsee <!-- kb:end --> below\n')
    const lone = await kb(user, ['agent', 'install', 'claude-code'], {cwd: dir})
    expect(lone.code).toBe(2)
    expect(lone.stderr).toContain('kb: CLAUDE.md:3:5: has <!-- kb:end --> without <!-- kb:begin -->')
  })
})

describe('kb agent list', () => {
  it('shows per tool and scope where kb is, as JSON and as a table that fits 80 columns', async () => {
    const dir = repo()
    const home = join(user.root, 'list-home')
    mkdirSync(home)
    const env = {HOME: home, XDG_CONFIG_HOME: join(home, '.config')}
    expect((await kb(user, ['agent', 'install', 'claude-code'], {cwd: dir, env})).code).toBe(0)
    expect((await kb(user, ['agent', 'install', 'cursor', '--user', '--http', '--base-url', TEAM], {cwd: dir, env})).code).toBe(0)
    const r = await kb(user, ['agent', 'list', '--json'], {cwd: dir, env})
    expect(r.code, r.stderr).toBe(0)
    const items = JSON.parse(r.stdout).items as {tool: string; scope: string; mcp: string | null; instructions: boolean | null}[]
    expect(items).toHaveLength(8)
    expect(items.filter((i) => i.mcp !== null).map((i) => [i.tool, i.scope, i.mcp, i.instructions])).toEqual([
      ['claude-code', 'project', 'stdio', true],
      ['cursor', 'user', 'http', null],
    ])

    const tty = await kbTty(user, ['agent', 'list'], {cwd: dir, env, cols: 80})
    expect(tty.code, tty.stdout).toBe(0)
    const lines = tty.stdout.replace(new RegExp(ANSI_RE.source, 'g'), '').trimEnd().split('\n')
    expect(lines[0]).toMatch(/^TOOL\s+SCOPE\s+MCP\s+INSTRUCTIONS\s+CONFIG FILE$/)
    expect(lines).toHaveLength(9)
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80)
    expect(lines[1]).toMatch(/^claude-code\s+project\s+stdio\s+yes\s+\.mcp\.json$/)
    expect(lines.find((l) => l.startsWith('cursor ') && l.includes('user'))).toMatch(/http\s+~\/\.cursor\/mcp\.json$/)
  })
})
