/**
 * @module The coding agents `kb agent install` wires, in one table: where each keeps its MCP servers
 * (project and user level), in which format and under which key, what kb's entry looks like there, and
 * which instructions file it reads. Each row follows the tool's own documentation, linked in docs/agents.md.
 */
import {homedir} from 'node:os'
import {join} from 'node:path'

export const TOOL_IDS = ['claude-code', 'cursor', 'vscode', 'codex'] as const
export type ToolId = (typeof TOOL_IDS)[number]

/** How the agent reaches kb: `kb mcp` over stdio, or the server's HTTP endpoint (OAuth on first use). */
export type ServerSpec = {kind: 'stdio'; command: string; args: string[]} | {kind: 'http'; url: string}

type ConfigFormat = 'json' | 'jsonc' | 'toml'

export interface AgentTool {
  id: ToolId
  /** The tool as people name it. */
  name: string
  format: ConfigFormat
  /** The object that holds the servers by name. */
  serversKey: string
  /** The project's file, relative to the project's root (the file a team commits). */
  projectConfig: string
  userConfig: (env: NodeJS.ProcessEnv) => string
  /** The instructions file the tool reads in the project, relative to its root. */
  projectInstructions: string
  /** The user-level instructions file, where the tool has one. */
  userInstructions: (env: NodeJS.ProcessEnv) => string | null
  /** A Markdown file a section goes into, or a Cursor rule (.mdc) with front matter. */
  instructionsKind: 'markdown' | 'cursor-rule'
  /** kb's entry as this tool writes it. */
  entry: (server: ServerSpec) => Record<string, unknown>
}

/** The keys of kb's entry that kb writes; any other key a person added (env, headers, timeouts) is kept. */
export const MANAGED_KEYS = ['type', 'command', 'args', 'url', 'cwd'] as const

const home = (): string => homedir()

/** CODEX_HOME, else ~/.codex (Codex's "Config basics"). */
const codexHome = (env: NodeJS.ProcessEnv): string => (env.CODEX_HOME ? env.CODEX_HOME : join(home(), '.codex'))

/** VS Code's user profile folder, where its user-level mcp.json lives. */
function vscodeUserDir(env: NodeJS.ProcessEnv): string {
  if (process.platform === 'darwin') return join(home(), 'Library', 'Application Support', 'Code', 'User')
  if (process.platform === 'win32') return join(env.APPDATA ?? join(home(), 'AppData', 'Roaming'), 'Code', 'User')
  return join(env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : join(home(), '.config'), 'Code', 'User')
}

export const AGENT_TOOLS: Record<ToolId, AgentTool> = {
  'claude-code': {
    id: 'claude-code',
    name: 'Claude Code',
    format: 'json',
    serversKey: 'mcpServers',
    projectConfig: '.mcp.json',
    userConfig: () => join(home(), '.claude.json'),
    projectInstructions: 'CLAUDE.md',
    userInstructions: () => join(home(), '.claude', 'CLAUDE.md'),
    instructionsKind: 'markdown',
    entry: (s) => (s.kind === 'http' ? {type: 'http', url: s.url} : {type: 'stdio', command: s.command, args: s.args}),
  },
  cursor: {
    id: 'cursor',
    name: 'Cursor',
    // Cursor reads its mcp.json leniently (comments are common in the wild), so kb does too.
    format: 'jsonc',
    serversKey: 'mcpServers',
    projectConfig: join('.cursor', 'mcp.json'),
    userConfig: () => join(home(), '.cursor', 'mcp.json'),
    projectInstructions: join('.cursor', 'rules', 'kb.mdc'),
    userInstructions: () => null,
    instructionsKind: 'cursor-rule',
    entry: (s) => (s.kind === 'http' ? {url: s.url} : {command: s.command, args: s.args}),
  },
  vscode: {
    id: 'vscode',
    name: 'VS Code',
    format: 'jsonc',
    serversKey: 'servers',
    projectConfig: join('.vscode', 'mcp.json'),
    userConfig: (env) => join(vscodeUserDir(env), 'mcp.json'),
    projectInstructions: join('.github', 'copilot-instructions.md'),
    userInstructions: () => null,
    instructionsKind: 'markdown',
    // Started in the workspace folder, so `kb mcp` finds the checkout's project.
    entry: (s) =>
      s.kind === 'http' ? {type: 'http', url: s.url} : {type: 'stdio', command: s.command, args: s.args, cwd: '${workspaceFolder}'},
  },
  codex: {
    id: 'codex',
    name: 'Codex',
    format: 'toml',
    serversKey: 'mcp_servers',
    // Codex loads a project's .codex/ only in a trusted project (docs/agents.md).
    projectConfig: join('.codex', 'config.toml'),
    userConfig: (env) => join(codexHome(env), 'config.toml'),
    projectInstructions: 'AGENTS.md',
    userInstructions: (env) => join(codexHome(env), 'AGENTS.md'),
    instructionsKind: 'markdown',
    entry: (s) => (s.kind === 'http' ? {url: s.url} : {command: s.command, args: s.args}),
  },
}
