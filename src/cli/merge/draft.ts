/**
 * @module What a conflicting edit leaves for its author (docs/cli.md, "Edits that meet other changes"): the draft
 * file in the data directory (like git's COMMIT_EDITMSG, 0600, kept until the edit is sent) and a short diff of
 * each field changed on both sides, made terminal-safe.
 */
import {chmodSync, mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {dataDir} from '../../shared/paths.js'
import type {PatchEntryBody} from '../../shared/schemas.js'
import type {EntryFull} from '../../shared/types.js'
import {safeText} from '../output/safe-text.js'
import type {MergeField} from './three-way.js'

/** `<data dir>/drafts/EDIT_<id>.md`. */
export function draftPath(id: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDir(env), 'drafts', `EDIT_${id.replace(/[^0-9a-zA-Z-]/g, '_')}.md`)
}

/** Writes the draft, readable by its owner only; returns its path. */
export function saveDraft(id: string, text: string, env: NodeJS.ProcessEnv = process.env): string {
  const file = draftPath(id, env)
  mkdirSync(join(file, '..'), {recursive: true, mode: 0o700})
  writeFileSync(file, text, {mode: 0o600})
  chmodSync(file, 0o600) // an older draft may have been made with another mode
  return file
}

export function dropDraft(id: string, env: NodeJS.ProcessEnv = process.env): void {
  rmSync(draftPath(id, env), {force: true})
}

/** At most this many lines of each side of a field are shown; the draft holds the rest. */
const SHOWN_LINES = 30

function show(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value
  return JSON.stringify(value)
}

/**
 * The lines that differ between the newest text and yours: common leading and trailing lines dropped, the rest shown
 * as `-` (newest) and `+` (yours). Linear in the texts' length.
 */
function lineDiff(newest: string, mine: string): string[] {
  const a = newest.trimEnd().split('\n')
  const b = mine.trimEnd().split('\n')
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let end = 0
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++
  const side = (lines: string[], sign: string): string[] => {
    const middle = lines.slice(start, lines.length - end)
    const shown = middle.slice(0, SHOWN_LINES).map((l) => `${sign} ${safeText(l, {newlines: false, tabs: true})}`)
    if (middle.length > SHOWN_LINES) shown.push(`${sign} … ${middle.length - SHOWN_LINES} more lines`)
    return shown
  }
  const at = start > 0 ? [`  @@ from line ${start + 1} @@`] : []
  return [...at, ...side(a, '-'), ...side(b, '+')]
}

/** Per conflicting field, what the newest version says (`-`) against your text (`+`). */
export function conflictDiff(theirs: EntryFull, mine: PatchEntryBody, fields: MergeField[]): string {
  const out: string[] = []
  for (const f of fields) {
    out.push(`${f}:`)
    out.push(...lineDiff(show(theirs[f]), show((mine as Record<string, unknown>)[f])).map((l) => `  ${l}`))
  }
  return out.join('\n')
}
