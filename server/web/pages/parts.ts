/**
 * @module Pieces several pages show alike: an entry's state badges (resolved, stale and why, superseded, flagged).
 */
import type {EntryView} from '../../../src/shared/types.js'
import {html, type Html} from '../html.js'

/** The state badges of an entry at any detail level (the freshness word at summary, the object above). */
export function badges(e: EntryView): Html {
  const out: Html[] = []
  if (e.status === 'resolved') out.push(html`<li class="badge resolved">resolved</li>`)
  const state = typeof e.freshness === 'string' ? e.freshness : e.freshness.state
  if (state === 'stale') out.push(html`<li class="badge stale">stale</li>`)
  if (e.superseded_by) out.push(html`<li class="badge superseded">superseded</li>`)
  if ('flags' in e) {
    const open = e.flags.stale + e.flags.incorrect + e.flags.duplicate + e.flags.obsolete
    if (open > 0) out.push(html`<li class="badge flagged">flagged ×${open}</li>`)
  }
  if ('scope' in e) out.push(html`<li class="badge">${e.scope}</li>`)
  return out.length === 0
    ? html``
    : html`<ul class="badges" aria-label="State">
        ${out}
      </ul>`
}
