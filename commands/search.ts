/**
 * @module `kb search <query…>`: ranked full-text search, best match first.
 */
import {Args, Flags} from '@oclif/core'
import {LIMIT_DEFAULT, LIMIT_MAX} from '../src/shared/contract.js'
import type {SearchResult} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {includeSupersededFlag, detailFlag, scopeFlag, statusFlag, freshnessFlags} from '../src/cli/flags.js'
import {runSearch, SEARCH_INTEGER_FLAGS} from '../src/cli/search-run.js'

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
      ...SEARCH_INTEGER_FLAGS.limit,
    }),
    detail: detailFlag(),
    ...freshnessFlags,
    'include-superseded': includeSupersededFlag,
    'max-tokens': Flags.integer({
      description: 'pack the best hits into this many tokens, stepping big ones down a detail level before dropping them',
      ...SEARCH_INTEGER_FLAGS['max-tokens'],
    }),
  }

  async run(): Promise<SearchResult> {
    // Shared with the lean path of bin/run.js (src/cli/lean-search.ts), which runs it without oclif.
    return runSearch(
      {client: () => this.client(), projectId: () => this.projectId(), mode: this.mode, json: this.jsonEnabled(), out: (t) => this.out(t)},
      this.flags,
      this.positional,
    )
  }
}
