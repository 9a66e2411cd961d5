/**
 * @module `kb search <query…>`: ranked full-text search, best match first.
 */
import {Args, Flags} from '@oclif/core'
import {KbError} from '../src/shared/errors.js'
import {DETAIL_DEFAULT, LIMIT_DEFAULT, LIMIT_MAX, MAX_TOKENS_MAX} from '../src/shared/contract.js'
import type {SearchResult} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {detailFlag, detailOr, limitOr, scopeFlag, statusFlag, freshnessFlags, freshnessFrom} from '../src/cli/flags.js'
import {dim, oneLine, searchRows} from '../src/cli/output/format.js'

export default class Search extends KbCommand<typeof Search> {
  static override summary = 'Search knowledge entries'
  static override description =
    'Words match titles, tags and bodies (stemmed, typo-tolerant); any word may match and the best matches come first. Inside a joined repository the search covers that project, global entries and your private ones.'
  static override examples = [
    '<%= config.bin %> search port already in use',
    '<%= config.bin %> search "sqlite locked" --status open --limit 5',
    '<%= config.bin %> search crash --json | jq -r ".items[0].id"',
    '<%= config.bin %> search "deploy rollback" --detail full --max-tokens 2000',
  ]
  static override strict = false
  static override args = {query: Args.string({description: 'words to search for', required: true})}
  static override flags = {
    scope: scopeFlag('only entries of this scope'),
    status: statusFlag(),
    tag: Flags.string({description: 'only entries with this tag'}),
    limit: Flags.integer({
      char: 'L',
      description: `how many results (1–${LIMIT_MAX}, default ${LIMIT_DEFAULT.search} or config default_limit)`,
      min: 1,
      max: LIMIT_MAX,
    }),
    detail: detailFlag(),
    ...freshnessFlags,
    'max-tokens': Flags.integer({
      description: 'pack the best hits into this many tokens, stepping big ones down a detail level before dropping them',
      min: 1,
      max: MAX_TOKENS_MAX,
    }),
  }

  async run(): Promise<SearchResult> {
    const {flags} = this
    const q = this.positional.join(' ')
    if (q.trim() === '') throw new KbError('usage', 'give words to search for: kb search <words…>')
    const client = await this.client()
    const projectId = await this.projectId()
    const result = await client.search({
      q,
      ...(flags.scope ? {scope: flags.scope} : {}),
      ...(flags.status ? {status: flags.status} : {}),
      ...(flags.tag ? {tag: flags.tag} : {}),
      ...freshnessFrom(flags),
      ...(projectId ? {project_id: projectId} : {}),
      detail: detailOr(flags.detail, DETAIL_DEFAULT.search),
      limit: limitOr(flags.limit, LIMIT_DEFAULT.search),
      ...(flags['max-tokens'] !== undefined ? {max_tokens: flags['max-tokens']} : {}),
    })
    if (result.items.length === 0) {
      if (this.mode.tty) this.out(`No entries match "${oneLine(q)}".`)
    } else {
      this.out(searchRows(result.items, this.mode))
      if (this.mode.tty && result.total > result.items.length)
        this.out(dim(this.mode, `${result.items.length} of ${result.total} matches; --limit shows more.`))
    }
    if (flags['max-tokens'] !== undefined && result.tokens_used !== undefined && !this.jsonEnabled()) {
      const line = `${result.tokens_used} of ${flags['max-tokens']} tokens used${result.truncated ? '; truncated: hits were shortened or left out to fit' : ''}`
      // Piped rows stay rows: off a terminal the budget's outcome goes to stderr.
      if (this.mode.tty) this.out(dim(this.mode, line))
      else process.stderr.write(`kb: ${line}\n`)
    }
    return result
  }
}
