/**
 * @module `kb project members`: the current project's members and their roles (its maintainers and the owner).
 */
import type {Member} from '../../src/shared/membership-schemas.js'
import {KbCommand} from '../../src/cli/base.js'
import {memberRows, requireProject} from '../../src/cli/project/members.js'

export default class ProjectMembers extends KbCommand<typeof ProjectMembers> {
  static override summary = "List the project's members and their roles"
  static override description = 'For its maintainers and the owner (docs/cli.md, "Project members").'
  static override examples = ['<%= config.bin %> project members', '<%= config.bin %> project members --json']

  async run(): Promise<{items: Member[]}> {
    const projectId = requireProject(await this.projectId())
    const items = await (await this.client()).listMembers(projectId)
    this.out(memberRows(items, this.mode))
    return {items}
  }
}
