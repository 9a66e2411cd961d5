/**
 * @module `kb project list`: the projects you belong to (the current one marked).
 */
import type {Project} from '../../src/shared/types.js'
import {KbCommand} from '../../src/cli/base.js'
import {projectIn} from '../../src/cli/project/project.js'
import {projectRows} from '../../src/cli/output/format.js'

export default class ProjectList extends KbCommand<typeof ProjectList> {
  static override summary = 'List your projects'
  static override examples = ['<%= config.bin %> project list', '<%= config.bin %> project list --json']

  async run(): Promise<{items: Project[]}> {
    const client = await this.client()
    const items = await client.listProjects()
    const ref = await this.projectRef()
    const current = ref ? (projectIn(ref, items)?.id ?? null) : null
    if (items.length === 0) {
      if (this.mode.tty) this.out('No projects: run `kb project join` in a git checkout.')
    } else this.out(projectRows(items, this.mode, current))
    return {items}
  }
}
