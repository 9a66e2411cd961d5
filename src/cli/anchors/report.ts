/**
 * @module What `kb check` prints and returns: per entry, each anchor checked and what was found, the
 * counts, and for people one line per anchor that moved or went stale (docs/cli.md, "kb check").
 */
import type {Anchor, AnchorState} from '../../shared/types.js'
import {bold, dim, green, oneLine, red, yellow, type OutputMode} from '../output/format.js'
import type {AnchorOutcome} from './check.js'
import {anchorLabel} from './spec.js'
import {shortId} from '../../shared/short-id.js'

export interface CheckedAnchor {
  path: string
  lines: string | null
  symbol: string | null
  state: AnchorState
  /** What the server held before this check. */
  previous: AnchorState
  moved_to: {path: string; lines: string | null} | null
  /** Sent to the server (its state, place or hash changed). */
  reported: boolean
  /** Not checked: anchored at a commit the checked one does not descend from; `state` is the stored one. */
  skipped: boolean
}

export interface CheckedEntry {
  id: string
  title: string
  anchors: CheckedAnchor[]
  /** The entry's freshness after the check (as the server answered, or as it was when nothing was reported). */
  freshness: 'fresh' | 'stale' | null
}

export interface CheckReport {
  commit: string
  /** The work tree (null) or the revision checked. */
  rev: string | null
  changed_in: string | null
  entries: CheckedEntry[]
  counts: Record<'current' | 'moved' | 'changed' | 'deleted' | 'skipped', number>
  /** Entries whose check was sent to the server, and those that could not be (each with why). */
  reported: number
  failed: {id: string; error: string}[]
  /** Anchors found changed or deleted (now or before). */
  stale: number
}

export function checkedAnchor(o: AnchorOutcome): CheckedAnchor {
  const a: Anchor = o.anchor
  return {
    path: a.path,
    lines: a.lines,
    symbol: a.symbol,
    state: o.skipped ? a.state : o.result.state,
    previous: a.state,
    moved_to: o.result.moved_to ? {path: o.result.moved_to.path, lines: o.result.moved_to.lines ?? null} : null,
    reported: o.news,
    skipped: o.skipped,
  }
}

export function countStates(entries: CheckedEntry[]): CheckReport['counts'] {
  const counts = {current: 0, moved: 0, changed: 0, deleted: 0, skipped: 0}
  for (const e of entries)
    for (const a of e.anchors) {
      if (a.skipped) counts.skipped++
      else if (a.state in counts) counts[a.state as keyof typeof counts]++
    }
  return counts
}

/** Human lines: an anchor that moved, changed or was deleted, under its entry, then one summary line. */
export function renderCheck(r: CheckReport, mode: OutputMode): string {
  const out: string[] = []
  const short = r.commit.slice(0, 7)
  for (const e of r.entries) {
    const notable = e.anchors.filter((a) => a.state !== 'current' && !a.skipped)
    if (notable.length === 0) continue
    if (mode.tty)
      out.push(`${bold(mode, oneLine(e.title))} ${dim(mode, shortId(e.id))}${e.freshness === 'stale' ? ` ${red(mode, '[stale]')}` : ''}`)
    for (const a of notable) {
      const label = oneLine(anchorLabel(a))
      const what =
        a.state === 'moved'
          ? `moved to ${oneLine(anchorLabel({path: a.moved_to!.path, lines: a.moved_to!.lines, symbol: a.symbol}))}`
          : a.state === 'changed'
            ? `changed${a.previous === 'changed' ? ' (already known)' : ` in ${short}`}`
            : `deleted${a.previous === 'deleted' ? ' (already known)' : ` in ${short}`}`
      if (mode.tty) {
        const word = a.state === 'moved' ? yellow(mode, 'moved  ') : red(mode, a.state.padEnd(7))
        out.push(`  ${word}  anchor ${label} ${what}`)
      } else out.push([e.id, a.state, label, what, e.freshness ?? ''].join('\t'))
    }
  }
  if (mode.tty) {
    const c = r.counts
    const total = c.current + c.moved + c.changed + c.deleted + c.skipped
    const staleEntries = r.entries.filter((e) =>
      e.anchors.some((a) => !a.skipped && (a.state === 'changed' || a.state === 'deleted')),
    ).length
    const where = r.rev ? `at ${short}` : `in the work tree (HEAD ${short})`
    const summary = `Checked ${total} anchor${total === 1 ? '' : 's'} of ${r.entries.length} entr${r.entries.length === 1 ? 'y' : 'ies'} ${where}: ${c.current} current, ${c.moved} moved, ${c.changed} changed, ${c.deleted} deleted${c.skipped > 0 ? `, ${c.skipped} skipped (anchored at commits this one does not descend from)` : ''}`
    out.push(staleEntries > 0 ? `${summary}; ${red(mode, `${staleEntries} stale`)}` : `${summary}; ${green(mode, 'nothing stale')}`)
  }
  return out.length === 0 ? '' : out.join('\n') + '\n'
}
