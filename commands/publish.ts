/**
 * @module `kb publish <id>`: widen an entry's scope (private → project → global), once its secrets and
 * personal data are redacted or acknowledged (docs/cli.md, "Safe publish"); `--preview` shows what would go.
 */
import {Flags} from '@oclif/core'
import {writeRequests} from '../src/shared/client.js'
import type {EntryFull, PublishPreview} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {entryIdArg, noQueueFlag, scopeFlag} from '../src/cli/flags.js'
import {green, oneLine} from '../src/cli/output/format.js'
import {isQueued, type QueuedWrite} from '../src/cli/outbox/state.js'
import {choiceFrom, clearSensitive, renderReport, sensitiveFlags} from '../src/cli/safe-publish.js'
import {shortId} from '../src/shared/short-id.js'

export default class Publish extends KbCommand<typeof Publish> {
  static override summary = 'Publish a knowledge entry to a wider scope'
  static override description =
    'Default: the next wider scope — private → project (when the entry has a project) or global; project → global. A scope that is not wider fails with exit 5.\n\n' +
    'Everything the wider audience would read (title, body, url, tags, thought chain, comments, resolution note) is scanned for secrets and personal data. ' +
    'Findings are listed with what redaction would change; on a terminal you choose to redact them, keep them (recorded on the entry) or stop. ' +
    'Elsewhere the command fails with exit 5 unless --redact or --acknowledge <ids> says what to do.'
  static override examples = [
    '<%= config.bin %> publish 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980',
    '<%= config.bin %> publish 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --scope global --preview',
    '<%= config.bin %> publish 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --redact',
    '<%= config.bin %> publish 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --acknowledge 3fa2c1e0b7d4e11f,9b0c2d4e6f8a1c3e',
  ]
  static override args = {id: entryIdArg}
  static override entryArgs = ['id']
  static override flags = {
    scope: scopeFlag('the scope to publish to (default: the next wider one)'),
    preview: Flags.boolean({description: 'show what publishing would expose and what redaction would change; change nothing'}),
    'no-queue': noQueueFlag,
    ...sensitiveFlags,
  }

  async run(): Promise<EntryFull | PublishPreview | QueuedWrite> {
    const {flags} = this
    const choice = choiceFrom(flags)
    if (flags.preview) return this.preview(await (await this.client()).publishPreview(this.args.id, flags.scope))
    const what = `publishing ${shortId(this.args.id)}${flags.scope ? ` to ${flags.scope}` : ''}`
    const entry = await clearSensitive(choice, {mode: this.mode, json: this.jsonEnabled(), what}, (c) => {
      const request = writeRequests.publish(this.args.id, {...(flags.scope ? {scope: flags.scope} : {}), ...c})
      return this.write<EntryFull>({command: 'publish', label: this.args.id, request}, flags['no-queue'])
    })
    if (isQueued(entry)) return entry
    if (this.mode.tty) this.out(`${green(this.mode, 'Published')} ${shortId(entry.id)} to ${oneLine(entry.scope)}`)
    else this.out(`${entry.id}\t${entry.scope}`)
    return entry
  }

  private preview(p: PublishPreview): PublishPreview {
    if (p.findings_total === 0) this.out(`Nothing found: publishing to ${p.scope} exposes no secret or personal data the scanner knows.`)
    else this.out(`Publishing to ${p.scope}:\n${renderReport(p, this.mode)}`)
    return p
  }
}
