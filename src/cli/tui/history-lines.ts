/**
 * @module The history view of `kb browse` (docs/tui.md, "History"): an entry's changes, oldest first, two lines
 * each — when, what and who (through what), then the fields changed — cut to the width. The items' text was made
 * safe for the terminal as it arrived (load.ts).
 */
import type {HistoryItem} from '../../shared/curation-schemas.js'
import {time} from '../output/format.js'
import {cut} from './text.js'

const MODE = {tty: true, color: false, width: 80}

export function historyLines(title: string, items: HistoryItem[], columns: number): string[] {
  const lines = [
    cut(title, columns),
    cut(`History: ${items.length} change${items.length === 1 ? '' : 's'}, oldest first (h: back to the entry)`, columns),
    '',
  ]
  for (const h of items) {
    const via = h.actor.client ? `${h.actor.via}: ${h.actor.client}` : h.actor.via
    lines.push(cut(`${time(h.at, MODE)}  ${h.action} by ${h.actor.name} (${via})`, columns))
    const changes = Object.entries(h.changes).map(([k, v]) => `${k} ${v}`)
    if (h.note) changes.push(`“${h.note}”`)
    if (changes.length > 0) lines.push(cut(`    ${changes.join(', ')}`, columns))
  }
  return lines
}
