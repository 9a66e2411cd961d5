/**
 * @module `kb project requests`: the join requests waiting for a maintainer of the current project.
 */
import type {JoinRequest} from '../../src/shared/membership-schemas.js'
import {KbCommand} from '../../src/cli/base.js'
import {requestRows, requireProject} from '../../src/cli/project/members.js'

export default class ProjectRequests extends KbCommand<typeof ProjectRequests> {
  static override summary = 'List the pending requests to join the project'
  static override description =
    'Approve one with `kb project approve <name|request>`, or deny it with `kb project deny` (maintainers and the owner; docs/cli.md, "Project members").'
  static override examples = ['<%= config.bin %> project requests', '<%= config.bin %> project requests --json']

  async run(): Promise<{items: JoinRequest[]}> {
    const projectId = requireProject(await this.projectId())
    const items = await (await this.client()).listJoinRequests(projectId)
    if (items.length === 0) {
      if (this.mode.tty) this.out('No pending requests.')
    } else this.out(requestRows(items, this.mode))
    return {items}
  }
}
