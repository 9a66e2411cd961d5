/**
 * @module `kb project set verify-after <days>`: a project's settings (its maintainers or the owner).
 */
import {Args} from '@oclif/core'
import {VERIFY_AFTER_DAYS_MAX} from '../../src/shared/contract.js'
import {KbError} from '../../src/shared/errors.js'
import type {Project} from '../../src/shared/types.js'
import {KbCommand} from '../../src/cli/base.js'
import {green, oneLine} from '../../src/cli/output/format.js'

export default class ProjectSet extends KbCommand<typeof ProjectSet> {
  static override summary = 'Change a setting of the current project'
  static override description = `verify-after <days>: an entry of the project that nobody verified (nor edited) for longer is stale, as "unverified" (default 180; 0 = never; at most ${VERIFY_AFTER_DAYS_MAX}). Only the project's maintainers and the owner may change it.`
  static override examples = [
    '<%= config.bin %> project set verify-after 90',
    '<%= config.bin %> project set verify-after 0 --project github.com/acme/api',
  ]
  static override args = {
    setting: Args.string({description: 'the setting', options: ['verify-after'], required: true}),
    value: Args.string({description: 'its new value', required: true}),
  }

  async run(): Promise<Project> {
    const raw = this.args.value
    const days = /^[0-9]{1,5}$/.test(raw) ? Number(raw) : Number.NaN
    if (!(days >= 0 && days <= VERIFY_AFTER_DAYS_MAX))
      throw new KbError('usage', `verify-after takes a number of days from 0 (never) to ${VERIFY_AFTER_DAYS_MAX}, not ${oneLine(raw)}`)
    const projectId = await this.projectId()
    if (projectId === null) throw new KbError('not_found', 'no project here: run `kb project join` in a git checkout, or pass --project')
    const project = await (await this.client()).patchProject(projectId, {verify_after_days: days})
    if (this.mode.tty)
      this.out(`${green(this.mode, 'Set')} verify-after of ${oneLine(project.name)} to ${days === 0 ? '0 (never)' : `${days} days`}`)
    else this.out(`${project.id}\tverify-after\t${project.verify_after_days}`)
    return project
  }
}
