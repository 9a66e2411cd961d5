/**
 * @module `kb mcp`: the kb MCP tools over stdio, for agents that launch a command (Claude Code, Cursor,
 * VS Code). It talks to the kb API like every other command — the CLI's base URL, credential (OAuth
 * tokens refreshed), daemon autostart — and takes the project from the working directory. stdout is
 * the protocol channel, so nothing else is ever written there.
 */
import {KbCommand} from '../src/cli/base.js'

export default class Mcp extends KbCommand<typeof Mcp> {
  static override summary = 'Serve the kb tools to a coding agent over MCP (stdio)'
  static override description =
    'Speaks the Model Context Protocol on stdin/stdout: search_knowledge, get_knowledge, add_knowledge, update_knowledge, comment_on_knowledge, resolve_knowledge, publish_knowledge, fork_knowledge and join_project. ' +
    'Run it from the agent\'s configuration, in the repository the agent works in: the project is the checkout\'s, found as every kb command finds it (docs/cli.md, "The project of a checkout"). See docs/mcp.md.'
  static override examples = ['claude mcp add kb -- kb mcp', '<%= config.bin %> mcp --base-url https://kb.example.com/api/v1']
  static override enableJsonFlag = false

  async run(): Promise<void> {
    const [{StdioServerTransport}, {createMcpServer}] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('../src/shared/mcp/server.js'),
    ])
    const client = await this.client()
    // The base client refreshes an OAuth token at most once; a session lasts hours, so re-arm it per call.
    const refresh = client.refreshKey
    let project: Promise<string | null> | undefined
    const server = createMcpServer(
      {
        api: new Proxy(client, {
          get: (target, prop, receiver) => {
            if (refresh && target.refreshKey === undefined) target.refreshKey = refresh
            return Reflect.get(target, prop, receiver)
          },
        }),
        // Only a found project is kept: a checkout without one may get one during the session (join_project).
        projectId: () =>
          (project ??= this.projectId().then(
            (id) => {
              if (id === null) project = undefined
              return id
            },
            (e: unknown) => {
              project = undefined
              throw e
            },
          )),
      },
      this.config.version,
    )
    const transport = new StdioServerTransport()
    const closed = new Promise<void>((resolve) => {
      transport.onclose = resolve
      process.stdin.once('end', resolve)
      process.stdin.once('close', resolve)
    })
    await server.connect(transport)
    await closed
    await server.close()
  }
}
