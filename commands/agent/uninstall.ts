/**
 * @module `kb agent uninstall <tool>`: kb's entry out of the tool's MCP config and kb's section out of its
 * instructions file; everything else stays as written (docs/agents.md).
 */
import {Args, Flags} from '@oclif/core'
import {KbCommand} from '../../src/cli/base.js'
import {TOOL_IDS, type ToolId} from '../../src/cli/agent/tools.js'
import type {PlanReport} from '../../src/cli/agent/report.js'

export default class AgentUninstall extends KbCommand<typeof AgentUninstall> {
  static override summary = "Remove kb from a coding agent's MCP config and instructions file"
  static override examples = ['<%= config.bin %> agent uninstall claude-code', '<%= config.bin %> agent uninstall codex --user --dry-run']
  static override args = {
    tool: Args.string({description: 'the coding agent', required: true, options: [...TOOL_IDS]}),
  }
  static override flags = {
    user: Flags.boolean({description: "the tool's user-level file instead of the project's", default: false}),
    'dry-run': Flags.boolean({description: 'print the diff of each file and write nothing', default: false}),
    instructions: Flags.boolean({
      description: "remove kb's section from the instructions file too (--no-instructions: keep it)",
      default: true,
      allowNo: true,
    }),
  }

  async run(): Promise<PlanReport & {tool: ToolId; scope: string}> {
    const [{applyChanges, planUninstall, projectRoot}, {displayPath, renderPlan}] = await Promise.all([
      import('../../src/cli/agent/agents.js'),
      import('../../src/cli/agent/report.js'),
    ])
    const tool = this.args.tool as ToolId
    const scope = this.flags.user ? 'user' : 'project'
    const target = {tool, scope, root: await projectRoot(process.cwd()), env: process.env, instructions: this.flags.instructions} as const
    const plan = planUninstall(target, (p) => displayPath(p))
    const {report, text} = renderPlan(plan, {
      dryRun: this.flags['dry-run'],
      mode: this.mode,
      what: (role) =>
        role === 'config' ? "kb's MCP server" : role === 'hook' ? 'kb recall on every prompt' : "kb's section of the agent's instructions",
    })
    if (!this.flags['dry-run']) applyChanges(plan.changes, scope === 'project' ? target.root : undefined)
    this.out(text)
    return {tool, scope, ...report}
  }
}
