/**
 * @module The lines of a prompt. Each names its entry fully — title, id, scope, status, author, and
 * which entry it is a fork of — so a fork can be told from its original; a destructive one asks in red. Text typed or
 * pasted shows whole: a multi-line paste is laid out for review before Enter sends it.
 */
import {KEY_LINES} from './keymap.js'
import {allListed} from './review-lines.js'
import {nameOf, type Context} from './lines.js'
import {FLAG_CHOICES, placeOfPrompt} from './reduce-prompt.js'
import type {Prompt} from './state.js'
import {seg, type Line} from './styled.js'
import {cut, tail, width, wrap} from './text.js'
import {shortId} from '../../shared/short-id.js'

/** At most this many lines of typed text are shown (the first ones, the last, and how many between). */
const REVIEW_MAX = 8

/** `id 0199… · private · open · by ann · fork of "Parent" (…9a8b7c6d)`. */
function describe(p: Prompt, ctx: Context): string {
  const e = p.entry
  return [
    `id ${shortId(e.id)}`,
    e.scope,
    e.status,
    `by ${e.author.name}`,
    e.forked_from ? `fork of ${nameOf(e.forked_from, ctx)}` : undefined,
  ]
    .filter(Boolean)
    .join(' · ')
}

/** Wrapped lines, at most two (the second cut). */
const two = (lines: string[], columns: number): string[] => (lines.length > 2 ? [lines[0]!, cut(lines.slice(1).join(' '), columns)] : lines)

/** A question about the entry: the title whole (up to two lines), then what tells it apart. */
function header(question: string, p: Prompt, columns: number, ctx: Context, danger: boolean): Line[] {
  const title = wrap(`${question} "${p.entry.title}"`, columns)
  const about = two(wrap(describe(p, ctx), columns), columns)
  return [
    ...two(title, columns).map((t): Line => [seg(t, {bold: true, ...(danger ? {color: 'red' as const} : {})})]),
    ...about.map((t): Line => [seg(t, {dim: true})]),
  ]
}

/** The typed text with a cursor: one line (its tail when long), or several laid out for review. */
function input(label: string, text: string, columns: number): Line[] {
  const cursor = seg(' ', {inverse: true})
  if (!text.includes('\n')) return [[seg(label, {bold: true}), seg(tail(text, columns - width(label) - 1)), cursor]]
  const lines = text.split('\n').flatMap((l) => wrap(l, columns - 3))
  let shown = lines
  if (lines.length > REVIEW_MAX)
    shown = [...lines.slice(0, REVIEW_MAX - 2), `… ${lines.length - REVIEW_MAX + 1} more lines …`, lines[lines.length - 1]!]
  const out: Line[] = [[seg(label, {bold: true}), seg(`${lines.length} lines — review, then Enter sends all of them`, {dim: true})]]
  shown.forEach((l, i) => out.push([seg('│ ', {dim: true}), seg(l), ...(i === shown.length - 1 ? [cursor] : [])]))
  return out
}

export function promptLines(p: Prompt, columns: number, ctx: Context): Line[] {
  const hint = (text: string): Line => [seg(cut(text, columns), {dim: true})]
  switch (p.kind) {
    case 'delete':
      return [
        ...header('Delete', p, columns, ctx, true),
        [
          seg('Delete it? ', {bold: true, color: 'red'}),
          seg('y/N', {bold: true}),
          seg(cut(`  ${KEY_LINES.confirm}`, columns - 14), {dim: true}),
        ],
      ]
    case 'reopen':
      return [
        ...header('Reopen', p, columns, ctx, false),
        [seg('Reopen it (clears the resolution)? ', {bold: true}), seg('y/N', {bold: true})],
        hint(KEY_LINES.confirm),
      ]
    case 'resolve':
      return [
        ...header('Resolve', p, columns, ctx, false),
        ...input('Note (optional): ', p.text, columns),
        hint('Enter resolve  Esc cancel  Ctrl-C quit'),
      ]
    case 'comment':
      return [
        ...header(`Comment [${p.type}] on`, p, columns, ctx, false),
        ...input('Comment: ', p.text, columns),
        hint('Tab type  Enter send  Esc cancel  Ctrl-C quit'),
      ]
    case 'fork':
      return [
        ...header('Fork', p, columns, ctx, false),
        ...input('Title: ', p.text, columns),
        hint(p.text === '' ? `Enter for "${p.entry.title} (fork)"  Esc cancel` : 'Enter fork  Esc cancel  Ctrl-C quit'),
      ]
    case 'verify':
      return [
        ...header('Verify', p, columns, ctx, false),
        ...input('Note (optional): ', p.text, columns),
        hint('Enter verify: it still holds  Esc cancel  Ctrl-C quit'),
      ]
    case 'flag':
      return [
        ...header(p.reason === 'withdraw' ? 'Withdraw your flag on' : `Flag [${p.reason}]`, p, columns, ctx, false),
        ...(p.reason === 'withdraw' ? [] : input('Note (optional): ', p.text, columns)),
        hint(`Tab ${FLAG_CHOICES.join(' → ')}  Enter ${p.reason === 'withdraw' ? 'withdraw' : 'flag'}  Esc cancel`),
      ]
    case 'sensitive': {
      const verb = p.call.kind === 'publish' ? `Publish to ${p.call.scope}` : p.call.kind === 'comment' ? 'Send this comment on' : 'Resolve'
      const n = p.report.findings_total
      return [
        [
          seg(cut(`${verb} "${p.entry.title}" with ${n === 1 ? 'a finding' : `${n} findings`} (above)?`, columns - 1), {
            bold: true,
            color: 'red',
          }),
        ],
        hint(allListed(p) ? KEY_LINES.review : KEY_LINES.review.replace('k keep as written (recorded)  ', '')),
      ]
    }
    case 'publish': {
      const choices = p.choices.map((sc, i) => seg(` ${sc} `, {inverse: i === p.choice, bold: i === p.choice}))
      return [...header('Publish', p, columns, ctx, false), [seg('to: ', {bold: true}), ...choices], hint(KEY_LINES[placeOfPrompt(p)])]
    }
  }
}
