/**
 * @module `kb agent install|uninstall|list` (docs/agents.md): the changes to a tool's MCP config and
 * instructions file are planned as before/after texts first — which `--dry-run` prints as a diff and a
 * second install finds empty — then written. Loaded only by those commands (jsonc-parser, smol-toml).
 */
import {existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync} from 'node:fs'
import {delimiter, dirname, join, sep} from 'node:path'
import {KbError} from '../../shared/errors.js'
import {isLoopbackUrl} from '../daemon/manager.js'
import {git} from '../project/git-config.js'
import type {ConfigEditor} from './edit.js'
import {isPlainObject} from './edit.js'
import {hasInstructions, withInstructions, withoutInstructions} from './instructions.js'
import {jsonEditor} from './json-config.js'
import {claudeSettingsPath, recallCommand, withoutRecallHook, withRecallHook} from './recall-hook.js'
import {tomlEditor} from './toml-config.js'
import {AGENT_TOOLS, TOOL_IDS, type AgentTool, type ServerSpec, type ToolId} from './tools.js'

type Scope = 'project' | 'user'

export interface Change {
  role: 'config' | 'instructions' | 'hook'
  path: string
  before: string | null
  after: string | null
}

export type Outcome = 'created' | 'updated' | 'unchanged' | 'removed' | 'absent'

export function outcomeOf(c: Change): Outcome {
  if (c.before === c.after) return c.before === null ? 'absent' : 'unchanged'
  if (c.before === null) return 'created'
  return c.after === null ? 'removed' : 'updated'
}

export interface Plan {
  changes: Change[]
  /** Things the person should know (a file that was skipped, a step left to the tool). */
  notes: string[]
}

export interface Target {
  tool: ToolId
  scope: Scope
  /** The project's root: the git checkout's top, else the current directory. */
  root: string
  env: NodeJS.ProcessEnv
  instructions: boolean
  /** kb's prompt hook (`kb recall --hook`): true adds it on install; uninstall always takes it out. */
  recall?: boolean
}

/** The project's root: the top of the git checkout around `cwd`, else `cwd` itself. */
export async function projectRoot(cwd: string): Promise<string> {
  return (await git(['rev-parse', '--show-toplevel'], cwd)) ?? cwd
}

/** `--command "node /abs/bin/run.js"` as words, split like a shell would split them but without a shell. */
function splitCommand(text: string): string[] {
  const words: string[] = []
  let word: string | null = null
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (/\s/.test(c)) {
      if (word !== null) words.push(word)
      word = null
    } else if (c === "'" || c === '"') {
      const close = text.indexOf(c, i + 1)
      if (close === -1) throw new KbError('usage', `--command: the ${c} at character ${i + 1} is not closed`)
      // Inside double quotes a backslash escapes only " \\ $ and `, as in sh; single quotes take everything as written.
      const quoted = text.slice(i + 1, close)
      word = (word ?? '') + (c === '"' ? quoted.replace(/\\(["\\$`])/g, '$1') : quoted)
      i = close
    } else if (c === '\\' && i + 1 < text.length) word = (word ?? '') + text[++i]
    else word = (word ?? '') + c
  }
  if (word !== null) words.push(word)
  if (words.length === 0) throw new KbError('usage', '--command is empty; give the program that runs kb, e.g. --command kb')
  return words
}

/** Whether `name` is a program on `PATH` (as the agent that starts it will look it up). */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : ['']
  return (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => exts.some((ext) => existsSync(join(dir, name + ext))))
}

/** The server kb's entry starts: `kb mcp` (or `--command`'s words + `mcp`), or `<base URL>/mcp` with --http. */
export function serverSpec(o: {http: boolean; baseUrl: string; baseUrlFlag?: string; command?: string; project?: string}): ServerSpec {
  if (o.http) {
    if (isLoopbackUrl(o.baseUrl))
      throw new KbError(
        'usage',
        `--http needs a team server's base URL, and ${o.baseUrl} is this machine: for the local daemon leave out --http (the agent runs \`kb mcp\`), or give --base-url https://kb.example.com/api/v1`,
      )
    return {kind: 'http', url: `${o.baseUrl}/mcp`}
  }
  const [command, ...pre] = splitCommand(o.command ?? 'kb')
  const args = [...pre, 'mcp']
  if (o.baseUrlFlag) args.push('--base-url', o.baseUrl)
  if (o.project) args.push('--project', o.project)
  return {kind: 'stdio', command: command!, args}
}

function editorFor(tool: AgentTool, file: string): ConfigEditor {
  return tool.format === 'toml' ? tomlEditor(file) : jsonEditor(file, tool.serversKey, tool.format === 'jsonc')
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new KbError('usage', `cannot read ${path}: ${(e as Error).message}`)
  }
}

function configPath(tool: AgentTool, scope: Scope, root: string, env: NodeJS.ProcessEnv): string {
  return scope === 'project' ? join(root, tool.projectConfig) : tool.userConfig(env)
}

function instructionsPath(tool: AgentTool, scope: Scope, root: string, env: NodeJS.ProcessEnv): string | null {
  return scope === 'project' ? join(root, tool.projectInstructions) : tool.userInstructions(env)
}

/** The changes `kb agent install` makes; `label` names a file in messages. */
export function planInstall(t: Target, server: ServerSpec, label: (path: string) => string): Plan {
  const tool = AGENT_TOOLS[t.tool]
  const path = configPath(tool, t.scope, t.root, t.env)
  const before = readText(path)
  const changes: Change[] = [{role: 'config', path, before, after: editorFor(tool, label(path)).set(before, tool.entry(server))}]
  const notes: string[] = []
  if (t.instructions) {
    const file = instructionsPath(tool, t.scope, t.root, t.env)
    if (file === null) notes.push(`${tool.name} has no user-level instructions file; run without --user in a project to add kb's section`)
    else {
      const text = readText(file)
      changes.push({role: 'instructions', path: file, before: text, after: withInstructions(text, label(file), tool.instructionsKind)})
    }
  }
  if (t.recall) {
    if (t.tool !== 'claude-code')
      throw new KbError(
        'usage',
        `--recall: ${tool.name} has no prompt hook that adds context to the prompt; only claude-code has (docs/agents.md, "Recall on every prompt")`,
      )
    const settings = claudeSettingsPath(t.scope, t.root)
    const text = readText(settings)
    changes.push({role: 'hook', path: settings, before: text, after: withRecallHook(label(settings), text, recallCommand(server))})
  }
  if (t.tool === 'codex' && t.scope === 'project')
    notes.push('Codex reads .codex/config.toml only in a project you trust (Codex asks once, or see docs/agents.md)')
  if (server.kind === 'http')
    notes.push(
      t.tool === 'codex'
        ? 'sign in once with `codex mcp login kb` (OAuth)'
        : `${tool.name} signs in with OAuth on first use (paste an API key on kb's consent page)`,
    )
  return {changes, notes}
}

/** The changes `kb agent uninstall` makes: kb's entry and kb's instructions section out, the rest kept. */
export function planUninstall(t: Target, label: (path: string) => string): Plan {
  const tool = AGENT_TOOLS[t.tool]
  const path = configPath(tool, t.scope, t.root, t.env)
  const before = readText(path)
  const changes: Change[] = [{role: 'config', path, before, after: before === null ? null : editorFor(tool, label(path)).remove(before)}]
  const file = t.instructions ? instructionsPath(tool, t.scope, t.root, t.env) : null
  if (file !== null) {
    const text = readText(file)
    changes.push({role: 'instructions', path: file, before: text, after: text === null ? null : withoutInstructions(text, label(file))})
  }
  if (t.tool === 'claude-code') {
    const settings = claudeSettingsPath(t.scope, t.root)
    const text = readText(settings)
    if (text !== null) changes.push({role: 'hook', path: settings, before: text, after: withoutRecallHook(label(settings), text)})
  }
  return {changes, notes: []}
}

/**
 * Writes the planned texts (through a symlink, keeping the file's mode); a file planned as null goes, and
 * so do the folders below `root` it leaves empty (.cursor/rules, .codex, .vscode that kb created).
 */
export function applyChanges(changes: Change[], root?: string): void {
  for (const c of changes) {
    if (c.before === c.after) continue
    if (c.after === null) {
      rmSync(c.path, {force: true})
      for (let dir = dirname(c.path); root !== undefined && dir.startsWith(`${root}${sep}`); dir = dirname(dir)) {
        if (readdirSync(dir).length > 0) break
        rmdirSync(dir)
      }
    } else {
      mkdirSync(dirname(c.path), {recursive: true})
      writeFileSync(c.path, c.after)
    }
  }
}

export interface AgentInstall {
  tool: ToolId
  scope: Scope
  /** `stdio`, `http`, null when kb is not there; `unreadable` for a file kb cannot parse. */
  mcp: 'stdio' | 'http' | 'unreadable' | null
  config: string
  /** Whether the instructions file has kb's section (null: the tool has none at this level). */
  instructions: boolean | null
  instructions_file: string | null
}

/** Where kb is installed, per tool and scope. */
export function listInstalls(root: string, env: NodeJS.ProcessEnv): AgentInstall[] {
  return TOOL_IDS.flatMap((id) =>
    (['project', 'user'] as const).map((scope) => {
      const tool = AGENT_TOOLS[id]
      const config = configPath(tool, scope, root, env)
      let mcp: AgentInstall['mcp'] = null
      const text = readText(config)
      if (text !== null) {
        try {
          const entry = editorFor(tool, config).read(text)
          if (entry !== undefined) mcp = isPlainObject(entry) && 'url' in entry ? 'http' : 'stdio'
        } catch {
          mcp = 'unreadable'
        }
      }
      const file = instructionsPath(tool, scope, root, env)
      const itext = file === null ? null : readText(file)
      return {
        tool: id,
        scope,
        mcp,
        config,
        instructions: file === null ? null : itext !== null && hasInstructions(itext),
        instructions_file: file,
      }
    }),
  )
}
