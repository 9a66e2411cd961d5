/**
 * @module `kb project invite <principal>|--link`: invite a principal by name, or make a one-time invitation link
 * (maintainers and the owner); an invitation lasts 7 days.
 */
import {Args, Flags} from '@oclif/core'
import {KbError} from '../../src/shared/errors.js'
import type {Invitation} from '../../src/shared/membership-schemas.js'
import {KbCommand} from '../../src/cli/base.js'
import {requireProject} from '../../src/cli/project/members.js'
import {cell, dim, oneLine, time} from '../../src/cli/output/format.js'

export default class ProjectInvite extends KbCommand<typeof ProjectInvite> {
  static override summary = 'Invite a principal to the project, or make a one-time invitation link'
  static override description =
    'An invited principal joins with `kb project join`, without waiting for approval; a link\'s token (shown once) is for anyone, once: `kb project join --invitation <token>`. Either lasts 7 days (docs/cli.md, "Project members").'
  static override examples = ['<%= config.bin %> project invite bob', '<%= config.bin %> project invite --link']
  static override args = {principal: Args.string({description: 'the principal to invite (a name)'})}
  static override flags = {link: Flags.boolean({description: 'make a one-time link instead (a token to hand over)'})}

  async run(): Promise<Invitation> {
    if ((this.args.principal === undefined) === !this.flags.link)
      throw new KbError('usage', 'name a principal to invite, or pass --link (not both)')
    const projectId = requireProject(await this.projectId())
    const client = await this.client()
    const invitation = await client.invite(projectId, this.flags.link ? {link: true} : {principal: this.args.principal!})
    const until = time(invitation.expires_at, this.mode)
    if (invitation.token !== undefined) {
      if (this.mode.tty) {
        this.out(`Invitation link, for one use until ${until}; it is shown only now:`)
        this.out(`  kb project join --invitation ${invitation.token}`)
      } else this.out(invitation.token)
    } else if (this.mode.tty) {
      this.out(`Invited ${oneLine(invitation.principal!.name)} until ${until}: \`kb project join\` lets them in`)
      this.out(dim(this.mode, `invitation ${invitation.id}`))
    } else this.out(`${cell(invitation.id)}\t${cell(invitation.principal!.name)}\t${invitation.expires_at}`)
    return invitation
  }
}
