/**
 * @module `kb history <id>`: every change to an entry, oldest first — when, what, who and through what (docs/cli.md,
 * "Curation").
 */
import type {HistoryItem} from '../src/shared/curation-schemas.js'
import {KbCommand} from '../src/cli/base.js'
import {entryIdArg, noPagerFlag} from '../src/cli/flags.js'
import {historyRows} from '../src/cli/output/curation.js'

export default class History extends KbCommand<typeof History> {
  static override summary = 'Show the history of a knowledge entry'
  static override description =
    'Every change, oldest first: created, edited (which fields; the body as +N/−M lines), commented, verified, flagged, resolved, ' +
    'published, redacted (by field and count, never the text removed), imported … with who made it and through what: ' +
    'an API key (its name), an OAuth client (its name), MCP, the git hook or an import.'
  static override examples = [
    '<%= config.bin %> history 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980',
    '<%= config.bin %> history 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --json',
  ]
  static override args = {id: entryIdArg}
  static override entryArgs = ['id']
  static override flags = {'no-pager': noPagerFlag}
  static override pager = true

  async run(): Promise<{items: HistoryItem[]}> {
    const client = await this.client()
    const items: HistoryItem[] = []
    let cursor: string | null = null
    do {
      const page = await client.history(this.args.id, cursor)
      items.push(...page.items)
      cursor = page.next_cursor
    } while (cursor)
    this.out(historyRows(items, this.mode))
    return {items}
  }
}
