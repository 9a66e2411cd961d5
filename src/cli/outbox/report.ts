/**
 * @module How `kb sync` and the background send word each item's fate for people: one line each, the user's
 * labels and the server's messages made safe for a terminal.
 */
import {oneLine} from '../output/format.js'
import type {SyncItemReport} from './sync.js'
import {shortId, shortIds} from '../../shared/short-id.js'

const NEW_THINGS = new Set(['add', 'fork'])

export function syncLine(r: SyncItemReport): string {
  const what = `${r.command} ${oneLine(shortIds(r.label))}`
  switch (r.status) {
    case 'sent':
      return `sent     ${what}${r.id && NEW_THINGS.has(r.command) ? ` → ${shortId(r.id)}` : ''}${r.replayed ? ' (an earlier attempt had arrived; it was not done twice)' : ''}`
    case 'forked':
      return `forked   ${what} → ${shortId(r.fork_id)} (a field it changes changed meanwhile: the edit went to this fork, and a comment on the entry points at it)`
    case 'refused':
      return `refused  ${what}: ${oneLine(r.message)}`
    case 'waiting':
      return `waiting  ${what}: ${oneLine(r.message)}`
    case 'held':
      return `held     ${what}: ${oneLine(r.message)}`
  }
}
