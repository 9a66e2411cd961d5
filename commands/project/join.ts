/**
 * @module `kb project join`: join (or create) the project of this repository's git remote and remember
 * it for this server in `git config kb.<base URL>.project`.
 */
import {Flags} from '@oclif/core'
import type {JoinResult} from '../../src/shared/types.js'
import {KbCommand} from '../../src/cli/base.js'
import {git} from '../../src/cli/project/git-config.js'
import {inGitRepo, pickRemote, projectConfigKey} from '../../src/cli/project/project.js'
import {cell, dim, green, oneLine} from '../../src/cli/output/format.js'

export default class ProjectJoin extends KbCommand<typeof ProjectJoin> {
  static override summary = "Join the project of this repository's git remote"
  static override description =
    'Picks the remote as gh does (upstream, then origin, then the others), or --remote (a remote name or a URL). The project is created on first join; its id is stored for this server in `git config kb.<base URL>.project`, so later commands in this checkout use it (docs/cli.md, "The project of a checkout").'
  static override examples = [
    '<%= config.bin %> project join',
    '<%= config.bin %> project join --remote upstream',
    '<%= config.bin %> project join --remote git@github.com:acme/api.git --name "ACME API"',
  ]
  static override flags = {
    remote: Flags.string({description: 'a remote name of this repository, or a git URL'}),
    name: Flags.string({description: 'display name when the project is created (default: the repository name)'}),
  }

  async run(): Promise<JoinResult> {
    const picked = await pickRemote(this.flags.remote)
    const client = await this.client()
    const result = await client.joinProject({remote: picked.url, ...(this.flags.name ? {name: this.flags.name} : {})})
    let remembered = false
    if (await inGitRepo()) {
      remembered = (await git(['config', '--local', projectConfigKey(this.baseUrl), result.project.id])) !== null
      // The server-less key of earlier versions went stale when the base URL changed; it is no longer read.
      await git(['config', '--local', '--unset-all', 'kb.project'])
    }
    if (this.mode.tty) {
      this.out(
        `${green(this.mode, result.created ? 'Created and joined' : 'Joined')} ${oneLine(result.project.name)} (${oneLine(result.project.remote)})`,
      )
      this.out(
        dim(
          this.mode,
          oneLine(
            `id ${result.project.id} · role ${result.project.role}${remembered ? ` · saved in git config ${projectConfigKey(this.baseUrl)}` : ''}`,
          ),
        ),
      )
    } else {
      this.out(`${cell(result.project.id)}\t${cell(result.project.remote)}\t${result.created ? 'created' : 'joined'}`)
    }
    return result
  }
}
