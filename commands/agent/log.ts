/**
 * @module `kb agent log`: the record of what kb recalled for agents (docs/agents.md, "The recall record"): when,
 * for which tool and session, the query, and which entries were given, with what happened to them since.
 */
import {Flags} from '@oclif/core'
import {LIMIT_MAX} from '../../src/shared/contract.js'
import type {RecallRecord} from '../../src/shared/recall-schemas.js'
import {KbCommand} from '../../src/cli/base.js'
import {renderTable, time, type OutputMode} from '../../src/cli/output/format.js'
import {safeText} from '../../src/cli/output/safe-text.js'

/** A recall's GIVEN cell: how many entries it gave, and how many of them were verified or flagged since. */
function given(r: RecallRecord): string {
  if (r.items.length === 0) return 'none'
  const verified = r.items.filter((i) => i.verified_since).length
  const flagged = r.items.filter((i) => i.flagged_since).length
  const since = [verified > 0 ? `${verified} verified` : '', flagged > 0 ? `${flagged} flagged` : ''].filter(Boolean).join(', ')
  return `${r.items.length}${since ? ` (${since})` : ''}`
}

function recallRows(items: RecallRecord[], mode: OutputMode): string {
  return renderTable(
    [{header: 'WHEN'}, {header: 'BY', cut: true}, {header: 'GIVEN', cut: true}, {header: 'QUERY', flex: true}],
    items.map((r) => [time(r.at, mode), r.client ?? r.source, given(r), safeText(r.query, {newlines: false})]),
    mode,
  )
}

export default class AgentLog extends KbCommand<typeof AgentLog> {
  static override summary = 'Show what kb recalled for agents: when, for whom, the query, what was given'
  static override description =
    'Your own recalls, newest first: those of `kb recall --hook` and of the MCP tools\u2019 searches and reads. ' +
    'GIVEN counts the entries given and how many were verified or flagged since (the agent said the fix worked, or did not). ' +
    '--json lists every entry with its id, score, freshness and the words it matched. Records are kept 30 days (`kb daemon run --recall-retention-days`).'
  static override examples = ['<%= config.bin %> agent log', '<%= config.bin %> agent log --session 5f1c… --json']
  static override flags = {
    session: Flags.string({description: 'only this agent session'}),
    limit: Flags.integer({char: 'n', description: `how many recalls (1\u2013${LIMIT_MAX})`, min: 1, max: LIMIT_MAX, default: 20}),
  }

  async run(): Promise<{items: RecallRecord[]}> {
    const client = await this.client()
    const page = await client.listRecalls({limit: this.flags.limit, ...(this.flags.session ? {session: this.flags.session} : {})})
    if (page.items.length === 0) {
      if (this.mode.tty) this.out('Nothing recalled yet.')
    } else this.out(recallRows(page.items, this.mode))
    return {items: page.items}
  }
}
