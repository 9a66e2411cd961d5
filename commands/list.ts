/**
 * @module `kb list`: entries the caller may see, newest first (this project's, global and own private
 * ones inside a joined repository).
 */
import {Flags} from '@oclif/core'
import {LIMIT_DEFAULT, LIMIT_MAX} from '../src/shared/contract.js'
import type {EntryView, Page} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {includeSupersededFlag, detailFlag, noPagerFlag, scopeFlag, statusFlag, freshnessFlags} from '../src/cli/flags.js'
import {freshnessFrom, limitOr} from '../src/cli/flag-values.js'
import {dim, entryRows} from '../src/cli/output/format.js'

export default class List extends KbCommand<typeof List> {
  static override summary = 'List knowledge entries, newest first'
  static override examples = [
    '<%= config.bin %> list',
    '<%= config.bin %> list --status open --tag daemon',
    '<%= config.bin %> list --all --json | jq -r ".items[].title"',
  ]
  static override flags = {
    scope: scopeFlag('only entries of this scope'),
    status: statusFlag(),
    tag: Flags.string({description: 'only entries with this tag'}),
    author: Flags.string({description: 'only entries by this principal (name or id; me or @me: yours)'}),
    limit: Flags.integer({
      char: 'L',
      description: `how many (1–${LIMIT_MAX}, default ${LIMIT_DEFAULT.entries} or config default_limit)`,
      min: 1,
      max: LIMIT_MAX,
    }),
    all: Flags.boolean({description: 'every page, not just the first', default: false}),
    detail: detailFlag(),
    'include-superseded': includeSupersededFlag,
    'no-pager': noPagerFlag,
    ...freshnessFlags,
  }

  static override pager = true

  async run(): Promise<Page<EntryView>> {
    const {flags} = this
    const client = await this.client()
    const projectId = await this.projectId()
    const query = {
      ...(flags.scope ? {scope: flags.scope} : {}),
      ...(flags.status ? {status: flags.status} : {}),
      ...(flags.tag ? {tag: flags.tag} : {}),
      ...freshnessFrom(flags),
      ...(flags['include-superseded'] ? {include: 'superseded' as const} : {}),
      ...(flags.author ? {author: flags.author} : {}),
      ...(projectId ? {project_id: projectId} : {}),
      ...(flags.detail ? {detail: flags.detail} : {}),
      limit: flags.all ? LIMIT_MAX : limitOr(flags.limit, LIMIT_DEFAULT.entries),
    }
    const items: EntryView[] = []
    let cursor: string | null = null
    do {
      const page: Page<EntryView> = await client.listEntries({...query, ...(cursor ? {cursor} : {})})
      items.push(...page.items)
      cursor = flags.all ? page.next_cursor : null
      if (!flags.all) {
        this.print(items, page.next_cursor)
        return {items, next_cursor: page.next_cursor}
      }
    } while (cursor)
    this.print(items, null)
    return {items, next_cursor: null}
  }

  private print(items: EntryView[], next: string | null): void {
    if (items.length === 0) {
      if (this.mode.tty) this.out('No entries.')
      return
    }
    this.out(entryRows(items, this.mode))
    if (next && this.mode.tty) this.out(dim(this.mode, 'More entries: use --limit or --all.'))
  }
}
