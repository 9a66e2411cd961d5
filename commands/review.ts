/**
 * @module `kb review`: the review queue (docs/cli.md, "Curation") — counts, then the entries a curator should look
 * at, most used first. On a terminal it walks them one at a time like `git add -p`: why each is there, then
 * verify, edit, flag, supersede, delete, next or quit. Piped, or with --list, a table; --json for scripts.
 */
import {Flags} from '@oclif/core'
import {LIMIT_MAX, REVIEW_KINDS} from '../src/shared/contract.js'
import type {ReviewPage} from '../src/shared/curation-schemas.js'
import {KbCommand} from '../src/cli/base.js'
import {interactive} from '../src/cli/input.js'
import {countsLine, reviewRows} from '../src/cli/output/curation.js'
import {walkQueue} from '../src/cli/review/walk.js'

export default class Review extends KbCommand<typeof Review> {
  static override summary = 'Review what needs a curator: stale, flagged, similar, unverified, unused entries'
  static override description =
    'Counts, then the entries most used first, each with why. On a terminal it walks them one at a time: ' +
    'v)erify e)dit f)lag s)upersede d)elete n)ext q)uit. Piped or with --list it prints a table; --json gives the page.'
  static override examples = [
    '<%= config.bin %> review',
    '<%= config.bin %> review --kind flagged --list',
    '<%= config.bin %> review --json',
  ]
  static override flags = {
    kind: Flags.option({options: REVIEW_KINDS, description: 'only entries of this kind'})(),
    limit: Flags.integer({char: 'L', description: `how many (1–${LIMIT_MAX}, default 20)`, min: 1, max: LIMIT_MAX}),
    list: Flags.boolean({description: 'print the queue as a table, even on a terminal', default: false}),
  }

  async run(): Promise<ReviewPage> {
    const client = await this.client()
    const projectId = await this.projectId()
    const page = await client.review({
      ...(projectId ? {project_id: projectId} : {}),
      ...(this.flags.kind ? {kind: this.flags.kind} : {}),
      ...(this.flags.limit ? {limit: this.flags.limit} : {}),
    })
    if (this.jsonEnabled()) return page
    this.out(countsLine(page.counts, this.mode))
    if (page.items.length === 0) {
      this.out('Nothing to review.')
      return page
    }
    if (this.flags.list || !interactive()) {
      this.out(reviewRows(page, this.mode))
      return page
    }
    const done = await walkQueue(client, page, this.mode, (t) => this.out(t))
    this.out(`Reviewed ${done.acted} of ${page.items.length}${done.quit ? ' (quit)' : ''}.`)
    return page
  }
}
