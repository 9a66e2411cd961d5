/**
 * @module `kb agent list`: where kb is wired into each coding agent, project and user level (docs/agents.md).
 */
import {KbCommand} from '../../src/cli/base.js'
import type {AgentInstall} from '../../src/cli/agent/agents.js'
import {renderTable} from '../../src/cli/output/format.js'

export default class AgentList extends KbCommand<typeof AgentList> {
  static override summary = 'Show where kb is wired into each coding agent'
  static override examples = ['<%= config.bin %> agent list', '<%= config.bin %> agent list --json']

  async run(): Promise<{items: AgentInstall[]}> {
    const [{listInstalls, projectRoot}, {displayPath}] = await Promise.all([
      import('../../src/cli/agent/agents.js'),
      import('../../src/cli/agent/report.js'),
    ])
    const items = listInstalls(await projectRoot(process.cwd()), process.env)
    const mark = (b: boolean | null): string => (b === null ? '' : b ? 'yes' : '-')
    this.out(
      renderTable(
        [{header: 'TOOL'}, {header: 'SCOPE'}, {header: 'MCP', cut: true}, {header: 'INSTRUCTIONS'}, {header: 'CONFIG FILE', flex: true}],
        items.map((i) => [i.tool, i.scope, i.mcp ?? '-', mark(i.instructions), this.mode.tty ? displayPath(i.config) : i.config]),
        this.mode,
      ),
    )
    return {items}
  }
}
