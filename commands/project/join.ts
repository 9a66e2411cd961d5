/**
 * @module `kb project join`: join (or create) the project of this repository's git remote and remember
 * it for this server in `git config kb.<base URL>.project`; an existing project may first need a maintainer's
 * approval (docs/cli.md, "Project members").
 */
import {Flags} from '@oclif/core'
import type {JoinPending} from '../../src/shared/membership-schemas.js'
import {canonicalRemote} from '../../src/shared/remote.js'
import type {JoinResult} from '../../src/shared/types.js'
import {KbCommand} from '../../src/cli/base.js'
import {git} from '../../src/cli/project/git-config.js'
import {inGitRepo, pickRemote, projectConfigKey} from '../../src/cli/project/project.js'
import {cell, dim, green, oneLine, yellow} from '../../src/cli/output/format.js'

const PENDING_HINT = 'a maintainer must approve (kb project requests / approve); run kb project join again once approved'

export default class ProjectJoin extends KbCommand<typeof ProjectJoin> {
  static override summary = "Join the project of this repository's git remote"
  static override description =
    'Picks the remote as gh does (upstream, then origin, then the others), or --remote (a remote name or a URL). The project is created on first join, with you as its maintainer; its id is stored for this server in `git config kb.<base URL>.project`, so later commands in this checkout use it (docs/cli.md, "The project of a checkout"). ' +
    "Joining a project that exists needs a maintainer's approval (the join records a request and exits 0) or an invitation (`kb project invite`; a link's token goes in --invitation)."
  static override examples = [
    '<%= config.bin %> project join',
    '<%= config.bin %> project join --remote upstream',
    '<%= config.bin %> project join --remote git@github.com:acme/api.git --name "ACME API"',
    '<%= config.bin %> project join --invitation kbinv_…',
  ]
  static override flags = {
    remote: Flags.string({description: 'a remote name of this repository, or a git URL'}),
    name: Flags.string({description: 'display name when the project is created (default: the repository name)'}),
    invitation: Flags.string({description: "an invitation link's token (from `kb project invite --link`)"}),
  }

  async run(): Promise<JoinResult | JoinPending> {
    const picked = await pickRemote(this.flags.remote)
    const client = await this.client()
    const result = await client.joinProject({
      remote: picked.url,
      ...(this.flags.name ? {name: this.flags.name} : {}),
      ...(this.flags.invitation ? {invitation: this.flags.invitation.trim()} : {}),
    })
    if ('request' in result) {
      // Not a member yet: nothing is remembered, so commands here do not point at a project they cannot use.
      if (this.mode.tty) {
        this.out(`${yellow(this.mode, 'Requested')} to join ${oneLine(result.project.name)}; ${PENDING_HINT}`)
        this.out(dim(this.mode, `project ${result.project.id} · request ${result.request.id}`))
      } else {
        this.out(`${cell(result.project.id)}\t${cell(canonicalRemote(picked.url) ?? picked.url)}\trequested`)
        this.note(`requested; ${PENDING_HINT}`)
      }
      return result
    }
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
