/**
 * @module `kb project deny <name|request>`: deny a request to join the project (maintainers and the owner).
 */
import {Args} from '@oclif/core'
import type {JoinRequest} from '../../src/shared/membership-schemas.js'
import {KbCommand} from '../../src/cli/base.js'
import {requestIdOf, requireProject} from '../../src/cli/project/members.js'
import {cell, oneLine} from '../../src/cli/output/format.js'

export default class ProjectDeny extends KbCommand<typeof ProjectDeny> {
  static override summary = 'Deny a request to join the project'
  static override description = 'Names the request by its principal or by its id, as `kb project requests` lists them.'
  static override examples = ['<%= config.bin %> project deny bob', '<%= config.bin %> project deny 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980']
  static override args = {request: Args.string({description: 'the principal who asked (a name), or the request id', required: true})}

  async run(): Promise<JoinRequest> {
    const projectId = requireProject(await this.projectId())
    const client = await this.client()
    const decided = await client.decideJoinRequest(projectId, await requestIdOf(client, projectId, this.args.request), 'deny')
    if (this.mode.tty) this.out(`Denied ${oneLine(decided.principal.name)}'s request`)
    else this.out(`${cell(decided.id)}\t${cell(decided.principal.name)}\t${decided.status}`)
    return decided
  }
}
