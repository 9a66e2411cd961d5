/**
 * @module kb's section in an agent's instructions file, between `<!-- kb:begin -->` and `<!-- kb:end -->`:
 * added at the end, replaced in place on the next install, removed by `kb agent uninstall`; the rest of the
 * file is never touched. A Cursor rule (.cursor/rules/kb.mdc) is created whole, with its front matter.
 */
import {AGENT_INSTRUCTIONS, AGENT_INSTRUCTIONS_TITLE} from '../../shared/agent-instructions.js'
import {lineColumn, unreadable} from './edit.js'

const BEGIN = '<!-- kb:begin -->'
const END = '<!-- kb:end -->'

/** Cursor's rule front matter: always in the agent's context (docs/agents.md). */
const CURSOR_FRONT_MATTER = `---
description: When to search kb, the team knowledge base, and when to record, verify or flag an entry
alwaysApply: true
---
`

const section = (): string => `${BEGIN}\n## ${AGENT_INSTRUCTIONS_TITLE}\n\n${AGENT_INSTRUCTIONS}${END}\n`

/** Where kb's section is: [begin, end) including the end marker's line break; null when absent. */
function find(text: string, file: string): {begin: number; end: number} | null {
  const begin = text.indexOf(BEGIN)
  const end = text.indexOf(END, begin === -1 ? 0 : begin)
  if (begin === -1 && end === -1) return null
  if (begin === -1 || end === -1) {
    const at = begin === -1 ? end : begin
    throw unreadable(file, lineColumn(text, at), `has ${begin === -1 ? END : BEGIN} without ${begin === -1 ? BEGIN : END}`)
  }
  let stop = end + END.length
  if (text.startsWith('\r\n', stop)) stop += 2
  else if (text[stop] === '\n') stop += 1
  return {begin, end: stop}
}

/** `text` (null: no file yet) with kb's section, current. */
export function withInstructions(text: string | null, file: string, kind: 'markdown' | 'cursor-rule'): string {
  if (text === null || text.trim() === '') return kind === 'cursor-rule' ? CURSOR_FRONT_MATTER + section() : section()
  const at = find(text, file)
  if (at) return text.slice(0, at.begin) + section() + text.slice(at.end)
  return `${text}${text.endsWith('\n') ? '' : '\n'}\n${section()}`
}

/** `text` without kb's section; null when nothing of anyone else's is left. */
export function withoutInstructions(text: string, file: string): string | null {
  const at = find(text, file)
  if (!at) return text
  let head = text.slice(0, at.begin)
  const tail = text.slice(at.end)
  // The blank line kb put before its section goes with it.
  if (tail === '' && head.endsWith('\n\n')) head = head.slice(0, -1)
  const out = head + tail
  return out.trim() === '' || out === CURSOR_FRONT_MATTER ? null : out
}

/** Whether `text` has kb's section. */
export function hasInstructions(text: string): boolean {
  return text.includes(BEGIN) && text.includes(END)
}
