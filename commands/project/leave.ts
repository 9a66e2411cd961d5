/**
 * @module `kb project leave`: leave the current project. Its only maintainer cannot while other members remain.
 */
import {KbCommand} from '../../src/cli/base.js'
import {requireProject} from '../../src/cli/project/members.js'
import {cell} from '../../src/cli/output/format.js'

export default class ProjectLeave extends KbCommand<typeof ProjectLeave> {
  static override summary = 'Leave the project'
  static override description =
    'You no longer see its entries (yours included, which stay in the project). Its only maintainer cannot leave while other members remain: make another maintainer first (`kb project role <name> maintainer`).'
  static override examples = ['<%= config.bin %> project leave', '<%= config.bin %> project leave --project github.com/acme/api']

  async run(): Promise<{project_id: string; left: true}> {
    const projectId = requireProject(await this.projectId())
    await (await this.client()).leaveProject(projectId)
    if (this.mode.tty) this.out(`Left project ${projectId}`)
    else this.out(`${cell(projectId)}\tleft`)
    return {project_id: projectId, left: true}
  }
}
