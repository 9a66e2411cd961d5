/**
 * @module `kb project show`: the project commands use here, and where that comes from (docs/cli.md, "The
 * project of a checkout").
 */
import {KbError} from '../../src/shared/errors.js'
import type {Project} from '../../src/shared/types.js'
import {KbCommand} from '../../src/cli/base.js'
import {inGitRepo, projectIn, refSource, resolveProjectId} from '../../src/cli/project/project.js'
import {bold, cell, dim, oneLine} from '../../src/cli/output/format.js'

export default class ProjectShow extends KbCommand<typeof ProjectShow> {
  static override summary = 'Show the current project'
  static override examples = ['<%= config.bin %> project show', '<%= config.bin %> project show --json']

  async run(): Promise<Project & {source: string}> {
    const ref = await this.projectRef()
    if (!ref)
      throw new KbError(
        'not_found',
        (await inGitRepo())
          ? 'no project here: this checkout has no remote with a host and path; run `kb project join --remote <url>`, or pass --project'
          : 'no project here: run `kb project join` in a git checkout, or pass --project',
      )
    const client = await this.client()
    const source = refSource(ref, this.baseUrl)
    const projects = await client.listProjects()
    const id = ref.source === 'remote' ? null : await resolveProjectId(ref, client, this.baseUrl)
    const project = ref.source === 'remote' ? projectIn(ref, projects) : (projects.find((p) => p.id === id) ?? null)
    if (!project)
      throw new KbError(
        'not_found',
        ref.source === 'remote'
          ? `no project here: none of your projects on ${this.baseUrl} has this checkout's remote (${ref.remotes!.join(', ')}); run \`kb project join\``
          : `project ${ref.ref} (from ${source}) is not one of yours on ${this.baseUrl}; run \`kb project join\``,
      )
    if (this.mode.tty) {
      this.out(bold(this.mode, oneLine(project.name)))
      this.out(
        `${dim(this.mode, 'id     ')}  ${oneLine(project.id)}\n${dim(this.mode, 'remote ')}  ${oneLine(project.remote)}\n${dim(this.mode, 'role   ')}  ${oneLine(project.role)}\n${dim(this.mode, 'verify ')}  ${verifyAfter(project)}\n${dim(this.mode, 'from   ')}  ${source}`,
      )
    } else {
      this.out([project.id, project.name, project.remote, project.role, project.verify_after_days].map(cell).join('\t'))
    }
    return {...project, source}
  }
}

/** `every 180 days` / `never`; a server from before the setting says nothing. */
function verifyAfter(p: Project): string {
  const d = (p as Partial<Project>).verify_after_days
  return d === undefined ? 'unknown' : d === 0 ? 'never (verify-after 0)' : `every ${d} days (verify-after)`
}
