/**
 * @module `kb project approve <name|request>`: approve a request to join the project: its principal becomes a member (maintainers and the owner).
 */
import {Args} from '@oclif/core'
import type {JoinRequest} from '../../src/shared/membership-schemas.js'
import {KbCommand} from '../../src/cli/base.js'
import {requestIdOf, requireProject} from '../../src/cli/project/members.js'
import {cell, oneLine} from '../../src/cli/output/format.js'

export default class ProjectApprove extends KbCommand<typeof ProjectApprove> {
  static override summary = 'Approve a request to join the project: its principal becomes a member'
  static override description = 'Names the request by its principal or by its id, as `kb project requests` lists them.'
  static override examples = [
    '<%= config.bin %> project approve bob',
    '<%= config.bin %> project approve 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980',
  ]
  static override args = {request: Args.string({description: 'the principal who asked (a name), or the request id', required: true})}

  async run(): Promise<JoinRequest> {
    const projectId = requireProject(await this.projectId())
    const client = await this.client()
    const decided = await client.decideJoinRequest(projectId, await requestIdOf(client, projectId, this.args.request), 'approve')
    if (this.mode.tty) this.out(`Approved ${oneLine(decided.principal.name)}'s request`)
    else this.out(`${cell(decided.id)}\t${cell(decided.principal.name)}\t${decided.status}`)
    return decided
  }
}
