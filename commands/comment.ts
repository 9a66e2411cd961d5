/**
 * @module `kb comment <id> [body]`: add a comment (note, supplement, correction or question).
 */
import {Args, Flags} from '@oclif/core'
import {KbError} from '../src/shared/errors.js'
import {writeRequests} from '../src/shared/client.js'
import type {Comment} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {bodyFrom, commentTypeFlag, entryIdArg, noQueueFlag} from '../src/cli/flags.js'
import {green} from '../src/cli/output/format.js'
import {isQueued, type QueuedWrite} from '../src/cli/outbox/state.js'
import {choiceFrom, clearSensitive, sensitiveFlags} from '../src/cli/safe-publish.js'
import {shortId} from '../src/shared/short-id.js'

export default class CommentCmd extends KbCommand<typeof CommentCmd> {
  static override summary = 'Comment on a knowledge entry'
  static override description =
    'The text comes from the argument, --body-file, stdin when piped, or $EDITOR on a terminal.\n\n' +
    'On a project or global entry the comment is scanned for secrets and personal data as `kb publish` does: on a terminal you choose to redact them, ' +
    'keep them (recorded on the entry) or stop; elsewhere the command fails with exit 5 unless --redact or --acknowledge <ids> says what to do.'
  static override examples = [
    '<%= config.bin %> comment 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 "Also happens on macOS" --type supplement',
    'git log -1 --format=%B | <%= config.bin %> comment 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980',
  ]
  static override args = {
    id: entryIdArg,
    body: Args.string({description: 'the comment text'}),
  }
  static override entryArgs = ['id']
  static override flags = {
    type: commentTypeFlag(),
    'body-file': Flags.string({char: 'F', description: 'read the text from this file (- for stdin)'}),
    'no-queue': noQueueFlag,
    ...sensitiveFlags,
  }

  async run(): Promise<Comment | QueuedWrite> {
    const body = await bodyFrom(
      {
        ...(this.args.body !== undefined ? {body: this.args.body} : {}),
        ...(this.flags['body-file'] !== undefined ? {'body-file': this.flags['body-file']} : {}),
      },
      '\n#kb: Write the comment above. Lines starting with #kb: are dropped.\n',
    )
    if (body === null || body.trim() === '')
      throw new KbError('usage', 'a comment needs text: kb comment <id> "<text>" (or pipe it on stdin)')
    const choice = choiceFrom(this.flags)
    // On a shared entry the comment reaches its readers at once (docs/cli.md, "Safe publish").
    const comment = await clearSensitive(
      choice,
      {mode: this.mode, json: this.jsonEnabled(), what: `commenting on ${shortId(this.args.id)}`},
      (c) =>
        this.write<Comment>(
          {
            command: 'comment',
            label: `on ${this.args.id}`,
            request: writeRequests.comment(this.args.id, {body, type: this.flags.type, ...c}),
          },
          this.flags['no-queue'],
        ),
    )
    if (isQueued(comment)) return comment
    if (this.mode.tty) this.out(`${green(this.mode, 'Commented')} on ${shortId(this.args.id)} (${comment.type})`)
    else this.out(comment.id)
    return comment
  }
}
