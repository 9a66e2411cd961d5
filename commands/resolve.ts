/**
 * @module `kb resolve <id>`: mark an entry resolved, with an optional note and source URL.
 */
import {Flags} from '@oclif/core'
import {writeRequests} from '../src/shared/client.js'
import type {EntryFull} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {entryIdArg, noQueueFlag} from '../src/cli/flags.js'
import {green, oneLine} from '../src/cli/output/format.js'
import {isQueued, type QueuedWrite} from '../src/cli/outbox/state.js'
import {choiceFrom, clearSensitive, sensitiveFlags} from '../src/cli/safe-publish.js'
import {shortId} from '../src/shared/short-id.js'

export default class Resolve extends KbCommand<typeof Resolve> {
  static override summary = 'Resolve a knowledge entry'
  static override description =
    'Idempotent: resolving a resolved entry changes nothing. Reopen with `kb edit <id> --status open`.\n\n' +
    'On a project or global entry the note and url are scanned for secrets and personal data as `kb publish` does: on a terminal you choose to redact them, ' +
    'keep them (recorded on the entry) or stop; elsewhere the command fails with exit 5 unless --redact or --acknowledge <ids> says what to do.'
  static override examples = [
    '<%= config.bin %> resolve 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --note "Fixed by pinning better-sqlite3" --url https://github.com/acme/api/pull/42',
  ]
  static override args = {id: entryIdArg}
  static override entryArgs = ['id']
  static override flags = {
    note: Flags.string({char: 'n', description: 'how it was resolved'}),
    url: Flags.string({description: 'where: a commit, pull request or doc (absolute http(s) URL)'}),
    'no-queue': noQueueFlag,
    ...sensitiveFlags,
  }

  async run(): Promise<EntryFull | QueuedWrite> {
    const input = {
      ...(this.flags.note !== undefined ? {note: this.flags.note} : {}),
      ...(this.flags.url !== undefined ? {url: this.flags.url} : {}),
    }
    // On a shared entry the resolution reaches its readers at once (docs/cli.md, "Safe publish").
    const entry = await clearSensitive(
      choiceFrom(this.flags),
      {mode: this.mode, json: this.jsonEnabled(), what: `resolving ${shortId(this.args.id)}`},
      (c) =>
        this.write<EntryFull>(
          {command: 'resolve', label: this.args.id, request: writeRequests.resolve(this.args.id, {...input, ...c})},
          this.flags['no-queue'],
        ),
    )
    if (isQueued(entry)) return entry
    if (this.mode.tty) this.out(`${green(this.mode, 'Resolved')} ${shortId(entry.id)}  ${oneLine(entry.title)}`)
    else this.out(`${entry.id}\t${entry.status}`)
    return entry
  }
}
