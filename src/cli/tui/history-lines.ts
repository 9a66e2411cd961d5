/**
 * @module The history view of `kb browse` (docs/tui.md, "History"): an entry's changes, oldest first, two lines
 * each — when, what and who (through what), then the fields changed — cut to the width. The items' text was made
 * safe for the terminal as it arrived (load.ts).
 */
import type {HistoryItem} from '../../shared/curation-schemas.js'
import {time} from '../output/format.js'
import {seg, type Line} from './styled.js'
import {cut} from './text.js'

const MODE = {tty: true, color: false, width: 80}

export function historyLines(title: string, items: HistoryItem[], columns: number): Line[] {
  const lines: Line[] = [
    [seg(cut(title, columns), {bold: true})],
    [
      seg(cut(`History: ${items.length} change${items.length === 1 ? '' : 's'}, oldest first (h: back to the entry)`, columns), {
        dim: true,
      }),
    ],
    [],
  ]
  for (const h of items) {
    const via = h.actor.client ? `${h.actor.via}: ${h.actor.client}` : h.actor.via
    lines.push([seg(cut(`${time(h.at, MODE)}  ${h.action} by ${h.actor.name} (${via})`, columns))])
    const changes = Object.entries(h.changes).map(([k, v]) => `${k} ${v}`)
    if (h.note) changes.push(`“${h.note}”`)
    if (changes.length > 0) lines.push([seg(cut(`    ${changes.join(', ')}`, columns), {dim: true})])
  }
  return lines
}
