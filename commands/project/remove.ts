/**
 * @module `kb project remove <principal>`: end a member's membership (maintainers and the owner). What they wrote stays.
 */
import {Args} from '@oclif/core'
import {KbCommand} from '../../src/cli/base.js'
import {memberIdOf, requireProject} from '../../src/cli/project/members.js'
import {cell, oneLine} from '../../src/cli/output/format.js'

export default class ProjectRemove extends KbCommand<typeof ProjectRemove> {
  static override summary = 'Remove a member from the project'
  static override description =
    "They no longer see the project's entries (their keys bound to it included); what they wrote stays. The only maintainer cannot be removed while other members remain."
  static override examples = ['<%= config.bin %> project remove bob']
  static override args = {principal: Args.string({description: 'the member (a name or principal id)', required: true})}

  async run(): Promise<{principal: {id: string; name: string}; removed: true}> {
    const projectId = requireProject(await this.projectId())
    const client = await this.client()
    const member = await memberIdOf(client, projectId, this.args.principal)
    await client.removeMember(projectId, member.principal.id)
    if (this.mode.tty) this.out(`Removed ${oneLine(member.principal.name)}`)
    else this.out(`${cell(member.principal.id)}\t${cell(member.principal.name)}\tremoved`)
    return {principal: member.principal, removed: true}
  }
}
