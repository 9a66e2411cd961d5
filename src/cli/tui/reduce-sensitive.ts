/**
 * @module Safe publish in `kb browse` (docs/tui.md, "Safe publish"): a confirmed publish first asks the server
 * what it would expose and goes ahead only when nothing is found; findings — or the refusal of a comment or
 * a resolution on a shared entry — open a review of them, whose keys redact, keep them as written (recorded
 * on the entry) or stop.
 */
import type {SensitiveReport} from '../../shared/types.js'
import {actionOf} from './keymap.js'
import type {Key} from './keys.js'
import {step, type Msg, type PublishCall, type ScannedCall, type Step} from './messages.js'
import {allListed, reviewLines, type Review} from './review-lines.js'
import {layout, type State} from './state.js'
import {openHelp} from './transitions.js'

/** The rows under the body while a review is open: the status line and the two lines of its prompt. */
const REVIEW_FOOT = 3

/** Publishing confirmed: what it would expose comes first. */
export function askPreview(s: State, call: PublishCall): Step {
  return step({...s, busy: true}, {type: 'preview', call})
}

/** The review of `report`, about to be shared by `call`. */
export function review(call: ScannedCall, report: SensitiveReport): Review {
  const {findings, findings_total, diff} = report
  return {kind: 'sensitive', entry: call.entry, call, report: {findings, findings_total, diff}, scroll: 0}
}

export function previewed(s: State, msg: Extract<Msg, {type: 'previewed' | 'previewFailed'}>): Step {
  // Only the answer for the publish on screen counts (Ctrl-C may have left, the prompt gone).
  if (!s.busy || s.prompt?.kind !== 'publish' || s.prompt.entry.id !== msg.call.entry.id) return step(s)
  if (msg.type === 'previewFailed')
    return step({...s, busy: false, prompt: null, line: {tone: 'error', text: `Not published: ${msg.error}`}})
  // Nothing found: publish as confirmed.
  if (msg.preview.findings_total === 0) return step(s, {type: 'call', call: msg.call})
  return step({...s, busy: false, line: null, prompt: review(msg.call, msg.preview)})
}

const call = (s: State, c: ScannedCall): Step => step({...s, busy: true, line: null}, {type: 'call', call: c})

/** How far the review scrolls: its last line at the bottom of the body. */
function maxScroll(s: State, p: Review): number {
  return Math.max(0, reviewLines(p, s.size.columns).length - layout(s.size, REVIEW_FOOT).bodyRows)
}

/** The review's keys (q, which quits from every prompt, is taken before them in `promptKey`). */
export function reviewKey(s: State, p: Review, k: Key): Step {
  const a = actionOf('review', k)
  const max = maxScroll(s, p)
  const page = Math.max(1, layout(s.size, REVIEW_FOOT).bodyRows - 1)
  const to = (n: number): Step => step({...s, prompt: {...p, scroll: Math.max(0, Math.min(max, n))}})
  const choice = p.call.choice ?? {}
  switch (a) {
    case 'help':
      return openHelp(s)
    case 'redact':
      return call(s, {...p.call, choice: {...choice, redact: true}})
    case 'keep':
      if (!allListed(p))
        return step({
          ...s,
          line: {
            tone: 'error',
            text: `Only ${p.report.findings.length} of ${p.report.findings_total} findings are listed: r redacts them all`,
          },
        })
      return call(s, {...p.call, choice: {...choice, acknowledge: [...(choice.acknowledge ?? []), ...p.report.findings.map((f) => f.id)]}})
    case 'cancel':
      return stopped(s, p)
    case 'up':
      return to(p.scroll - 1)
    case 'down':
      return to(p.scroll + 1)
    case 'pageUp':
      return to(p.scroll - page)
    case 'pageDown':
      return to(p.scroll + page)
    case 'first':
      return to(0)
    case 'last':
      return to(max)
    default:
      return step(s)
  }
}

/** Stopped: nothing is sent. A comment or a note goes back to its prompt, as typed, to be edited. */
function stopped(s: State, p: Review): Step {
  const c = p.call
  const none = 'nothing was changed'
  switch (c.kind) {
    case 'publish':
      return step({...s, prompt: null, line: {tone: 'info', text: `Not published: "${c.entry.title}" stays ${c.entry.scope}; ${none}`}})
    case 'comment':
      return step({
        ...s,
        prompt: {kind: 'comment', entry: c.entry, text: c.body, type: c.type},
        line: {tone: 'info', text: `Comment not sent (${none}): edit it, or Esc to drop it`},
      })
    case 'resolve':
      return step({
        ...s,
        prompt: {kind: 'resolve', entry: c.entry, text: c.note},
        line: {tone: 'info', text: `Not resolved (${none}): edit the note, or Esc to leave it open`},
      })
  }
}
