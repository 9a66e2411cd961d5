/**
 * @module `kb project role <principal> <maintainer|member>`: change a member's role (maintainers and the owner).
 */
import {Args} from '@oclif/core'
import {PROJECT_ROLES} from '../../src/shared/contract.js'
import type {Member} from '../../src/shared/membership-schemas.js'
import {KbCommand} from '../../src/cli/base.js'
import {memberIdOf, requireProject} from '../../src/cli/project/members.js'
import {cell, oneLine} from '../../src/cli/output/format.js'

export default class ProjectRole extends KbCommand<typeof ProjectRole> {
  static override summary = "Change a member's role"
  static override description = 'Maintainers admit, invite and remove members; the only maintainer stays one.'
  static override examples = ['<%= config.bin %> project role carol maintainer']
  static override args = {
    principal: Args.string({description: 'the member (a name or principal id)', required: true}),
    role: Args.string({description: 'the new role', options: [...PROJECT_ROLES], required: true}),
  }

  async run(): Promise<Member> {
    const projectId = requireProject(await this.projectId())
    const client = await this.client()
    const member = await memberIdOf(client, projectId, this.args.principal)
    const changed = await client.setMemberRole(projectId, member.principal.id, this.args.role as Member['role'])
    if (this.mode.tty) this.out(`${oneLine(changed.principal.name)} is now a ${changed.role}`)
    else this.out(`${cell(changed.principal.id)}\t${cell(changed.principal.name)}\t${changed.role}`)
    return changed
  }
}
