/**
 * @module The review `kb browse` shows before it shares text with secrets or personal data in it (docs/tui.md,
 * "Safe publish"): what would be shared with whom, each finding — its kind, where it is, its excerpt with
 * every finding masked — and, line by line, what redaction would change. The text arrives made safe for
 * the terminal (load.ts); every line fits the width.
 */
import type {ScannedCall} from './messages.js'
import type {Prompt} from './state.js'
import {seg, type Line, type Seg} from './styled.js'
import {cut, wrap} from './text.js'

export type Review = Extract<Prompt, {kind: 'sensitive'}>

/** "Publishing "Deploy fails" to project", "This comment on "Deploy fails"". */
function what(c: ScannedCall): string {
  const title = `"${c.entry.title}"`
  if (c.kind === 'publish') return `Publishing ${title} to ${c.scope}`
  if (c.kind === 'comment') return `This comment on ${title} (${c.entry.scope})`
  return `This resolution of ${title} (${c.entry.scope})`
}

/** Whether every finding is listed, so that all of them can be kept as written by id. */
export const allListed = (p: Review): boolean => p.report.findings.length >= p.report.findings_total

/** `text` wrapped under an indent, in one style. */
function indented(indent: string, text: string, columns: number, style: Omit<Seg, 'text'> = {}): Line[] {
  return wrap(text, Math.max(10, columns - indent.length - 1)).map((l): Line => [seg(indent), seg(l, style)])
}

export function reviewLines(p: Review, columns: number): Line[] {
  const r = p.report
  const n = r.findings_total
  const out: Line[] = indented(
    '',
    `${what(p.call)} would share ${n === 1 ? 'a secret or personal data' : `${n} secrets or pieces of personal data`}:`,
    columns,
    {
      bold: true,
      color: 'red',
    },
  )
  for (const f of r.findings) {
    out.push([seg(cut(`  ${f.label} · ${f.field}, line ${f.line}`, columns - 1), {bold: true})])
    out.push(...indented('    ', f.excerpt, columns))
  }
  if (n > r.findings.length) out.push([seg(cut(`  … and ${n - r.findings.length} more`, columns - 1), {dim: true})])
  if (r.diff.length > 0) {
    out.push([seg('')], [seg('Redaction would change:', {bold: true})])
    for (const d of r.diff) {
      out.push([seg(cut(`  ${d.field}, line ${d.line}`, columns - 1), {dim: true})])
      out.push(...indented('  - ', d.before, columns, {color: 'red' as const}))
      out.push(...indented('  + ', d.after ?? '(removed)', columns, {color: 'green'}))
    }
  }
  out.push(
    [seg('')],
    [
      seg(
        cut(
          allListed(p)
            ? 'r redacts them, k keeps them as written (recorded on the entry), s stops.'
            : 'r redacts them, s stops (too many to keep them by id here).',
          columns - 1,
        ),
        {dim: true},
      ),
    ],
  )
  return out
}
