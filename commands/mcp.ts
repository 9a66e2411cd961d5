/**
 * @module `kb mcp`: the kb MCP tools over stdio, for agents that launch a command (Claude Code, Cursor,
 * VS Code). It talks to the kb API like every other command — the CLI's base URL, credential (OAuth
 * tokens refreshed), daemon autostart — and takes the project from the working directory. stdout is
 * the protocol channel, so nothing else is ever written there.
 */
import {KbCommand} from '../src/cli/base.js'
import {ApiClient} from '../src/shared/client.js'
import {KbError} from '../src/shared/errors.js'

export default class Mcp extends KbCommand<typeof Mcp> {
  static override summary = 'Serve the kb tools to a coding agent over MCP (stdio)'
  static override description =
    "Speaks the Model Context Protocol on stdin/stdout: kb's tools to search, read, add, update, comment on, resolve, publish, fork, verify, flag and curate entries and to join a project. `kb agent install <tool>` writes this command into a coding agent's configuration. " +
    'Run it from the agent\'s configuration, in the repository the agent works in: the project is the checkout\'s, found as every kb command finds it (docs/cli.md, "The project of a checkout"). See docs/mcp.md.'
  static override examples = ['claude mcp add kb -- kb mcp', '<%= config.bin %> mcp --base-url https://kb.example.com/api/v1']
  static override enableJsonFlag = false

  async run(): Promise<void> {
    const [{StdioServerTransport}, {createMcpServer}] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('../src/shared/mcp/server.js'),
    ])
    let project: Promise<string | null> | undefined
    const server = createMcpServer(
      {
        api: this.lazyApi(),
        remote: !this.local,
        // Only a found project is kept: a checkout without one may get one during the session (join_project).
        projectId: () =>
          (project ??= this.clientOrRetry()
            .then(() => this.projectId())
            .then(
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

  /**
   * The API client, made at the first tool call rather than before `initialize`: with the daemon down (and
   * autostart off) the server still starts, and each call fails with what to do until the daemon is back
   * (docs/mcp.md). Properties the server sets (`via`, `recallTag`) are kept and given to the client.
   */
  private lazyApi(): ApiClient {
    const settings: Partial<Record<keyof ApiClient, unknown>> = {}
    // The client refreshes an OAuth token at most once; a session lasts hours, so it is re-armed per call.
    let refresh: ApiClient['refreshKey']
    const call =
      (name: keyof ApiClient) =>
      async (...args: unknown[]): Promise<unknown> => {
        const client = await this.clientOrRetry()
        refresh ??= client.refreshKey
        if (refresh && client.refreshKey === undefined) client.refreshKey = refresh
        Object.assign(client, settings)
        try {
          return await (client[name] as (...a: unknown[]) => Promise<unknown>).apply(client, args)
        } catch (e) {
          // Nothing answered: the next call checks for the daemon again and reads the credential afresh.
          if (e instanceof KbError && e.code === 'unreachable') this.forgetClient()
          throw e
        }
      }
    return new Proxy(settings, {
      get: (target, prop) =>
        typeof prop === 'string' && typeof (ApiClient.prototype as unknown as Record<string, unknown>)[prop] === 'function'
          ? call(prop as keyof ApiClient)
          : target[prop as keyof ApiClient],
      set: (target, prop, value) => {
        target[prop as keyof ApiClient] = value
        return true
      },
    }) as unknown as ApiClient
  }
}
