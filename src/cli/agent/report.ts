/**
 * @module What `kb agent install|uninstall` print: one line per file (what happened to it), the notes, and
 * with --dry-run the unified diff of each file instead; the same as JSON for --json.
 */
import {homedir} from 'node:os'
import {isAbsolute, relative} from 'node:path'
import {green} from '../output/format.js'
import type {OutputMode} from '../output/format.js'
import {safeText} from '../output/safe-text.js'
import {outcomeOf, type Change, type Outcome, type Plan} from './agents.js'
import {unifiedDiff} from './diff.js'

export interface PlanReport {
  dry_run: boolean
  changes: {role: Change['role']; path: string; outcome: Outcome; diff?: string}[]
  notes: string[]
}

/** A path as people read it: relative below the current directory, `~/…` in the home directory. */
export function displayPath(path: string, cwd: string = process.cwd()): string {
  const rel = relative(cwd, path)
  if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return rel
  const home = relative(homedir(), path)
  if (home !== '' && !home.startsWith('..') && !isAbsolute(home)) return `~/${home}`
  return path
}

const WORDS: Record<Outcome, string> = {created: 'Created', updated: 'Updated', unchanged: 'Unchanged', removed: 'Removed', absent: 'No'}

/** The report of a plan, and its human text (TTY: sentences; piped: `outcome<TAB>path` lines). */
export function renderPlan(
  plan: Plan,
  o: {dryRun: boolean; mode: OutputMode; what: (role: Change['role']) => string},
): {report: PlanReport; text: string} {
  const changes = plan.changes.map((c) => {
    const outcome = outcomeOf(c)
    const diff = o.dryRun ? unifiedDiff(displayPath(c.path), c.before, c.after) : ''
    return {role: c.role, path: c.path, outcome, ...(o.dryRun && diff !== '' ? {diff} : {})}
  })
  const report: PlanReport = {dry_run: o.dryRun, changes, notes: plan.notes}
  let text: string
  if (o.dryRun) {
    // The files are the person's own, so what they hold reaches the terminal only through safeText.
    text = changes.map((c) => safeText(c.diff ?? '')).join('')
    if (text === '' && o.mode.tty) text = 'Nothing to change.\n'
  } else if (o.mode.tty)
    text = changes
      .filter((c) => c.outcome !== 'absent')
      .map(
        (c) =>
          `${c.outcome === 'unchanged' ? WORDS[c.outcome] : green(o.mode, WORDS[c.outcome])} ${displayPath(c.path)}: ${o.what(c.role)}\n`,
      )
      .join('')
  else text = changes.map((c) => `${c.outcome}\t${c.path}\n`).join('')
  if (o.mode.tty && !o.dryRun) text += plan.notes.map((n) => `Note: ${n}\n`).join('')
  if (!o.dryRun && changes.every((c) => c.outcome === 'unchanged' || c.outcome === 'absent') && o.mode.tty) text += 'Nothing changed.\n'
  return {report, text}
}
