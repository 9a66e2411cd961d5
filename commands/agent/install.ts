/**
 * @module `kb agent install <tool>`: kb's MCP server into a coding agent's config and kb's section into its
 * instructions file, in one command (docs/agents.md). The work is in src/cli/agent/, loaded here only.
 */
import {Args, Flags} from '@oclif/core'
import {join} from 'node:path'
import {KbCommand} from '../../src/cli/base.js'
import {TOOL_IDS, type ToolId} from '../../src/cli/agent/tools.js'
import type {PlanReport} from '../../src/cli/agent/report.js'

export default class AgentInstall extends KbCommand<typeof AgentInstall> {
  static override summary = 'Wire kb into a coding agent: its MCP config and its instructions file'
  static override description = `Writes kb's MCP server into the tool's own configuration file — the project's by default (.mcp.json, .cursor/mcp.json, .vscode/mcp.json, .codex/config.toml, the files a team commits), the user's with --user — merged with what is there: other servers, comments and formatting are kept. The entry runs \`kb mcp\` (stdio), or with --http the kb server's HTTP endpoint, signed in with OAuth.

It also adds kb's short section (between <!-- kb:begin --> and <!-- kb:end -->) to the instructions file the agent reads: CLAUDE.md, AGENTS.md, .cursor/rules/kb.mdc or .github/copilot-instructions.md; --no-instructions leaves it out. With --recall (Claude Code), a UserPromptSubmit hook in .claude/settings.json runs \`kb recall --hook claude-code\` on every prompt, giving the agent kb's best fresh entries within a token budget. Running it again changes nothing; --dry-run prints the diff and writes nothing. A file kb cannot parse is refused with its line and column (exit 2). See docs/agents.md.`
  static override examples = [
    '<%= config.bin %> agent install claude-code',
    '<%= config.bin %> agent install claude-code --recall',
    '<%= config.bin %> agent install cursor --dry-run',
    '<%= config.bin %> agent install codex --user',
    '<%= config.bin %> agent install vscode --http --base-url https://kb.example.com/api/v1',
  ]
  static override args = {
    tool: Args.string({description: 'the coding agent', required: true, options: [...TOOL_IDS]}),
  }
  static override flags = {
    user: Flags.boolean({description: "the tool's user-level file (every project) instead of the project's", default: false}),
    http: Flags.boolean({
      description: "the kb server's HTTP endpoint (<base URL>/mcp, OAuth) instead of `kb mcp`: for a team server",
      default: false,
    }),
    command: Flags.string({description: 'the program that runs kb, with its leading arguments (default: kb)', exclusive: ['http']}),
    'dry-run': Flags.boolean({description: 'print the diff of each file and write nothing', default: false}),
    recall: Flags.boolean({
      description:
        'claude-code: also give the agent kb\u2019s best fresh entries on every prompt (a UserPromptSubmit hook running `kb recall --hook claude-code`)',
      default: false,
    }),
    instructions: Flags.boolean({
      description: "add kb's section to the agent's instructions file (--no-instructions: do not)",
      default: true,
      allowNo: true,
    }),
  }

  async run(): Promise<PlanReport & {tool: ToolId; scope: string; entry: Record<string, unknown>}> {
    const [{applyChanges, onPath, planInstall, projectRoot, serverSpec}, {displayPath, renderPlan}, {AGENT_TOOLS}] = await Promise.all([
      import('../../src/cli/agent/agents.js'),
      import('../../src/cli/agent/report.js'),
      import('../../src/cli/agent/tools.js'),
    ])
    const tool = this.args.tool as ToolId
    const scope = this.flags.user ? 'user' : 'project'
    const server = serverSpec({
      http: this.flags.http,
      baseUrl: this.baseUrl,
      baseUrlFlag: this.flags['base-url'],
      command: this.flags.command,
      project: this.flags.project,
    })
    const target = {
      tool,
      scope,
      root: await projectRoot(process.cwd()),
      env: process.env,
      instructions: this.flags.instructions,
      recall: this.flags.recall,
    } as const
    const plan = planInstall(target, server, (p) => displayPath(p))
    const name = AGENT_TOOLS[tool].name
    const {report, text} = renderPlan(plan, {
      dryRun: this.flags['dry-run'],
      mode: this.mode,
      what: (role) =>
        role === 'config'
          ? `kb's MCP server for ${name} (${scope})`
          : role === 'hook'
            ? 'kb recall on every prompt (UserPromptSubmit hook)'
            : `kb's section of the agent's instructions`,
    })
    if (!this.flags['dry-run']) applyChanges(plan.changes)
    // The agent starts `kb` from its PATH: say so now rather than leave a server that never starts.
    if (server.kind === 'stdio' && this.flags.command === undefined && !onPath('kb'))
      this.warnLine(
        `kb is not on PATH, so ${name} cannot start \`kb mcp\`; install kb globally (npm install -g), or run again with --command "${process.execPath} ${join(this.config.root, 'bin', 'run.js')}"`,
      )
    this.out(text)
    return {tool, scope, entry: AGENT_TOOLS[tool].entry(server), ...report}
  }
}
