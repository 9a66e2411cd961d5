/**
 * @module `kb project show`: the project commands use here (from --project, KB_PROJECT or git config).
 */
import {KbError} from '../../src/shared/errors.js'
import type {Project} from '../../src/shared/types.js'
import {KbCommand} from '../../src/cli/base.js'
import {projectRef, resolveProjectId} from '../../src/cli/project/project.js'
import {bold, cell, dim, oneLine} from '../../src/cli/output/format.js'

export default class ProjectShow extends KbCommand<typeof ProjectShow> {
  static override summary = 'Show the current project'
  static override examples = ['<%= config.bin %> project show', '<%= config.bin %> project show --json']

  async run(): Promise<Project & {source: string}> {
    const ref = await projectRef(this.flags.project)
    if (!ref) throw new KbError('not_found', 'no project here: run `kb project join` in a git checkout, or pass --project')
    const client = await this.client()
    const id = await resolveProjectId(ref, client)
    const project = (await client.listProjects()).find((p) => p.id === id)
    if (!project)
      throw new KbError(
        'not_found',
        `project ${id} (from ${ref.source === 'git' ? 'git config kb.project' : ref.source === 'env' ? 'KB_PROJECT' : '--project'}) is not one of yours on ${this.baseUrl}; run \`kb project join\``,
      )
    const source = ref.source === 'git' ? 'git config kb.project' : ref.source === 'env' ? 'KB_PROJECT' : '--project'
    if (this.mode.tty) {
      this.out(bold(this.mode, oneLine(project.name)))
      this.out(
        `${dim(this.mode, 'id     ')}  ${oneLine(project.id)}\n${dim(this.mode, 'remote ')}  ${oneLine(project.remote)}\n${dim(this.mode, 'role   ')}  ${oneLine(project.role)}\n${dim(this.mode, 'from   ')}  ${source}`,
      )
    } else {
      this.out([project.id, project.name, project.remote, project.role].map(cell).join('\t'))
    }
    return {...project, source}
  }
}
